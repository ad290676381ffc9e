package io.jndk.api;

/** {@code NDK_OPERATION_TYPE}: the kind of a completed request in {@link NdkResultEx#type}. Bit values, not 0..7. */
public final class NdkOperationType {
    private NdkOperationType() {}

    public static final int RECEIVE = 0x0001;
    public static final int SEND = 0x0002;
    public static final int FAST_REGISTER = 0x0004;
    public static final int BIND = 0x0008;
    public static final int INVALIDATE = 0x0010;
    public static final int READ = 0x0020;
    public static final int WRITE = 0x0040;
    /** A receive consumed by an incoming send-and-invalidate; the token is in the type-specific output. */
    public static final int RECEIVE_AND_INVALIDATE = 0x8001;

    /** Readable name of an operation type. */
    public static String name(int type) {
        return switch (type) {
            case RECEIVE -> "Receive";
            case SEND -> "Send";
            case FAST_REGISTER -> "FastRegister";
            case BIND -> "Bind";
            case INVALIDATE -> "Invalidate";
            case READ -> "Read";
            case WRITE -> "Write";
            case RECEIVE_AND_INVALIDATE -> "ReceiveAndInvalidate";
            default -> String.format("0x%X", type);
        };
    }
}
