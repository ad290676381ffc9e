package io.jndk.api;

/**
 * {@code NDK_OP_FLAG_*}: flags of work-request functions, exact values.
 *
 * <p>{@link #ALLOW_REMOTE_WRITE} (0x30) contains {@link #ALLOW_LOCAL_WRITE} (0x10): test remote write
 * with {@code (flags & 0x20) != 0}, never with a non-zero AND against 0x30.
 */
public final class NdkOpFlags {
    private NdkOpFlags() {}

    public static final int SILENT_SUCCESS = 0x00000001;
    public static final int READ_FENCE = 0x00000002;
    public static final int SEND_AND_SOLICIT_EVENT = 0x00000004;
    public static final int ALLOW_REMOTE_READ = 0x00000008;
    public static final int ALLOW_LOCAL_WRITE = 0x00000010;
    public static final int ALLOW_REMOTE_WRITE = 0x00000030;
    public static final int INLINE = 0x00000040;
    public static final int RDMA_READ_SINK = 0x00000080;
    public static final int RDMA_READ_LOCAL_INVALIDATE = 0x00000100;
    public static final int DEFER = 0x00000200;

    /** The bit that alone means remote write (0x20); not a named flag. */
    public static final int REMOTE_WRITE_BIT = 0x20;

    /** True when the flags grant remote write. */
    public static boolean remoteWrite(int flags) {
        return (flags & REMOTE_WRITE_BIT) != 0;
    }

    /** True when the flags grant remote read. */
    public static boolean remoteRead(int flags) {
        return (flags & ALLOW_REMOTE_READ) != 0;
    }

    /** True when the flags grant local write (directly or through remote write). */
    public static boolean localWrite(int flags) {
        return (flags & ALLOW_LOCAL_WRITE) != 0 || remoteWrite(flags);
    }
}
