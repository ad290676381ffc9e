package io.jndk.api;

/** {@code NDK_RDMA_TECHNOLOGY}, exact values. */
public final class NdkRdmaTechnology {
    private NdkRdmaTechnology() {}

    public static final int UNDEFINED = 0;
    public static final int IWARP = 1;
    public static final int INFINIBAND = 2;
    public static final int ROCE = 3;
    public static final int ROCE_V2 = 4;
    public static final int MAX_TECHNOLOGY = 5;
}
