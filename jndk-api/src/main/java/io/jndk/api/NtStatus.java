package io.jndk.api;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * NTSTATUS values used by NDKPI, with their exact numeric values.
 *
 * <p>An NTSTATUS is a signed 32-bit value; {@link #isSuccess(int)} is {@code NT_SUCCESS}
 * ({@code status >= 0}), so warnings such as {@link #STATUS_BUFFER_OVERFLOW} count as failures.
 */
public final class NtStatus {
    private NtStatus() {}

    public static final int STATUS_SUCCESS = 0x00000000;
    public static final int STATUS_PENDING = 0x00000103;
    public static final int STATUS_BUFFER_OVERFLOW = 0x80000005;
    public static final int STATUS_DEVICE_BUSY = 0x80000011;
    public static final int STATUS_NO_MORE_ENTRIES = 0x8000001A;
    public static final int STATUS_UNSUCCESSFUL = 0xC0000001;
    public static final int STATUS_ACCESS_VIOLATION = 0xC0000005;
    public static final int STATUS_INVALID_HANDLE = 0xC0000008;
    public static final int STATUS_INVALID_PARAMETER = 0xC000000D;
    public static final int STATUS_INVALID_DEVICE_REQUEST = 0xC0000010;
    public static final int STATUS_NO_MEMORY = 0xC0000017;
    public static final int STATUS_BUFFER_TOO_SMALL = 0xC0000023;
    public static final int STATUS_INVALID_PARAMETER_MIX = 0xC0000030;
    public static final int STATUS_DATA_OVERRUN = 0xC000003C;
    public static final int STATUS_SHARING_VIOLATION = 0xC0000043;
    public static final int STATUS_INSUFFICIENT_RESOURCES = 0xC000009A;
    public static final int STATUS_DEVICE_NOT_READY = 0xC00000A3;
    public static final int STATUS_IO_TIMEOUT = 0xC00000B5;
    public static final int STATUS_NOT_SUPPORTED = 0xC00000BB;
    public static final int STATUS_REQUEST_NOT_ACCEPTED = 0xC00000D0;
    public static final int STATUS_INTERNAL_ERROR = 0xC00000E5;
    public static final int STATUS_CANCELLED = 0xC0000120;
    public static final int STATUS_REMOTE_RESOURCES = 0xC000013D;
    public static final int STATUS_INVALID_ADDRESS = 0xC0000141;
    public static final int STATUS_INVALID_DEVICE_STATE = 0xC0000184;
    public static final int STATUS_INVALID_BUFFER_SIZE = 0xC0000206;
    public static final int STATUS_TOO_MANY_ADDRESSES = 0xC0000209;
    public static final int STATUS_ADDRESS_ALREADY_EXISTS = 0xC000020A;
    public static final int STATUS_CONNECTION_DISCONNECTED = 0xC000020C;
    public static final int STATUS_CONNECTION_RESET = 0xC000020D;
    public static final int STATUS_CONNECTION_REFUSED = 0xC0000236;
    public static final int STATUS_GRACEFUL_DISCONNECT = 0xC0000237;
    public static final int STATUS_CONNECTION_INVALID = 0xC000023A;
    public static final int STATUS_CONNECTION_ACTIVE = 0xC000023B;
    public static final int STATUS_NETWORK_UNREACHABLE = 0xC000023C;
    public static final int STATUS_HOST_UNREACHABLE = 0xC000023D;
    public static final int STATUS_REQUEST_ABORTED = 0xC0000240;
    public static final int STATUS_CONNECTION_ABORTED = 0xC0000241;
    public static final int STATUS_DEVICE_REMOVED = 0xC00002B6;
    public static final int STATUS_IMPLEMENTATION_LIMIT = 0xC000042B;

    public static final int NDIS_STATUS_SUCCESS = 0x00000000;
    public static final int NDIS_STATUS_BAD_VERSION = 0xC0010004;
    public static final int NDIS_STATUS_ADAPTER_NOT_READY = 0xC0010011;
    public static final int NDIS_STATUS_RESOURCES = 0xC000009A;

    private static final Map<Integer, String> NAMES = new LinkedHashMap<>();

    static {
        for (var f : NtStatus.class.getFields()) {
            if (f.getType() == int.class && f.getName().startsWith("STATUS_")) {
                try {
                    NAMES.putIfAbsent(f.getInt(null), f.getName());
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        NAMES.putIfAbsent(NDIS_STATUS_BAD_VERSION, "NDIS_STATUS_BAD_VERSION");
        NAMES.putIfAbsent(NDIS_STATUS_ADAPTER_NOT_READY, "NDIS_STATUS_ADAPTER_NOT_READY");
    }

    /** {@code NT_SUCCESS}: true for success and informational values (the sign bit is clear). */
    public static boolean isSuccess(int status) {
        return status >= 0;
    }

    /** The symbolic name of a status, or its hex value when it has none. */
    public static String name(int status) {
        String n = NAMES.get(status);
        return n != null ? n : String.format("0x%08X", status);
    }

    /** Name and hex value, e.g. {@code STATUS_CANCELLED (0xC0000120)}. */
    public static String describe(int status) {
        return String.format("%s (0x%08X)", name(status), status);
    }
}
