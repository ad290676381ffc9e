package io.jndk.roce.mad;

/**
 * The service IDs Linux {@code rdma_cm} puts in a REQ for its port spaces: {@code (portSpace << 16) | port}
 * ({@code cma_get_service_id} in {@code drivers/infiniband/core/cma.c}; IBTA annex A11, RDMA IP CM Service). For
 * RDMA_PS_TCP this is {@code 0x0000000001060000 | port}: rping's REQ to port 7174 in the test captures carries
 * {@code 0x0000000001061c06}.
 */
public final class CmServiceId {

    /** Port space RDMA_PS_TCP (reliable connections, the one rping and perftest use). */
    public static final int PS_TCP = 0x0106;
    /** Port space RDMA_PS_UDP. */
    public static final int PS_UDP = 0x0111;
    /** Port space RDMA_PS_IB. */
    public static final int PS_IB = 0x013F;
    /** Port space RDMA_PS_IPOIB. */
    public static final int PS_IPOIB = 0x0002;

    private CmServiceId() {
    }

    /**
     * @param portSpace the port space
     * @param port the destination port
     * @return the service ID
     */
    public static long of(int portSpace, int port) {
        return ((long) (portSpace & 0xFFFF) << 16) | (port & 0xFFFF);
    }

    /**
     * @param port the destination port
     * @return the RDMA_PS_TCP service ID
     */
    public static long tcp(int port) {
        return of(PS_TCP, port);
    }

    /**
     * @param serviceId a service ID
     * @return its port space (bits 31-16)
     */
    public static int portSpace(long serviceId) {
        return (int) (serviceId >>> 16) & 0xFFFF;
    }

    /**
     * @param serviceId a service ID
     * @return its port (bits 15-0)
     */
    public static int port(long serviceId) {
        return (int) serviceId & 0xFFFF;
    }

    /**
     * @param serviceId a service ID
     * @return true when it has the form rdma_cm uses for RDMA_PS_TCP
     */
    public static boolean isTcp(long serviceId) {
        return (serviceId >>> 32) == 0 && portSpace(serviceId) == PS_TCP;
    }
}
