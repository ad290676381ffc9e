package io.jndk.api;

/** {@code NDK_ADAPTER_FLAG_*}: bits of {@link NdkAdapterInfo#adapterFlags()}, exact values. */
public final class NdkAdapterFlags {
    private NdkAdapterFlags() {}

    public static final int IN_ORDER_DMA_SUPPORTED = 0x00000001;
    public static final int RDMA_READ_SINK_NOT_REQUIRED = 0x00000002;
    public static final int CQ_INTERRUPT_MODERATION_SUPPORTED = 0x00000004;
    public static final int MULTI_ENGINE_SUPPORTED = 0x00000008;
    public static final int RDMA_READ_LOCAL_INVALIDATE_SUPPORTED = 0x00000010;
    public static final int CQ_RESIZE_SUPPORTED = 0x00000100;
    public static final int LOOPBACK_CONNECTIONS_SUPPORTED = 0x00010000;
}
