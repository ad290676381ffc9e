package io.jndk.api;

/**
 * {@code NDK_MR_FLAG_*}: flags of {@link NdkMr#registerMr}, exact values. A different flag space from
 * {@link NdkOpFlags}: 0x8 is RDMA_READ_SINK here but ALLOW_REMOTE_READ there.
 *
 * <p>{@link #ALLOW_REMOTE_WRITE} (0x5) contains {@link #ALLOW_LOCAL_WRITE} (0x1): remote write implies local write.
 */
public final class NdkMrFlags {
    private NdkMrFlags() {}

    public static final int ALLOW_LOCAL_READ = 0x00000000;
    public static final int ALLOW_LOCAL_WRITE = 0x00000001;
    public static final int ALLOW_REMOTE_READ = 0x00000002;
    public static final int ALLOW_REMOTE_WRITE = 0x00000005;
    public static final int RDMA_READ_SINK = 0x00000008;

    /** Every defined bit. */
    public static final int VALID_MASK = 0xF;

    /** True when the flags grant remote write (bit 0x4). */
    public static boolean remoteWrite(int flags) {
        return (flags & 0x4) != 0;
    }

    /** True when the flags grant remote read. */
    public static boolean remoteRead(int flags) {
        return (flags & ALLOW_REMOTE_READ) != 0;
    }

    /** True when the flags grant local write (bit 0x1, or implied by remote write). */
    public static boolean localWrite(int flags) {
        return (flags & 0x1) != 0 || remoteWrite(flags);
    }
}
