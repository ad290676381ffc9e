package io.jndk.api;

/** jndk's {@code ProviderDisconnectReason} codes for {@link DisconnectEventCallbackEx}. */
public final class DisconnectReason {
    private DisconnectReason() {}

    public static final int NONE = 0;
    public static final int PEER_GRACEFUL_CLOSE = 1;
    public static final int CONNECTION_RESET = 2;
    public static final int TERMINATE_RECEIVED = 3;
    public static final int TERMINATE_SENT = 4;
    public static final int TIMEOUT = 5;

    /** The constant's name, or the number for an unknown reason. */
    public static String name(int reason) {
        return switch (reason) {
            case NONE -> "NONE";
            case PEER_GRACEFUL_CLOSE -> "PEER_GRACEFUL_CLOSE";
            case CONNECTION_RESET -> "CONNECTION_RESET";
            case TERMINATE_RECEIVED -> "TERMINATE_RECEIVED";
            case TERMINATE_SENT -> "TERMINATE_SENT";
            case TIMEOUT -> "TIMEOUT";
            default -> Integer.toString(reason);
        };
    }
}
