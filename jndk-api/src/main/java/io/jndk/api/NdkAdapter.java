package io.jndk.api;

import java.net.InetSocketAddress;

/**
 * {@code NDK_ADAPTER}: one open instance of an RDMA adapter, root of every other object
 * ({@code NDK_ADAPTER_DISPATCH}). Opened with {@link Ndk#openAdapter}; closed with {@link #close()}, which
 * blocks ({@code CLOSE_NDK_ADAPTER_HANDLER}).
 */
public interface NdkAdapter extends NdkObject, AutoCloseable {
    /**
     * {@code NdkQueryAdapterInfo}. May block.
     *
     * @param info receives the adapter info on success
     * @param bufferSize in: the caller's buffer size in bytes; out: bytes written or the required size
     * @return {@code STATUS_SUCCESS} or {@code STATUS_BUFFER_TOO_SMALL}
     */
    int queryAdapterInfo(Ref<NdkAdapterInfo> info, IntRef bufferSize);

    /** Convenience: the adapter info (as {@link #queryAdapterInfo} with a large enough buffer). */
    NdkAdapterInfo info();

    /** {@code NdkCreateCq}. Statuses: SUCCESS, PENDING, INVALID_PARAMETER ({@code cqDepth}), INSUFFICIENT_RESOURCES. */
    int createCq(int cqDepth, CqNotificationCallback cqNotification, Object cqNotificationContext, GroupAffinity affinity,
            CreateCompletion createCompletion, Object requestContext, Ref<NdkCq> cq);

    /** {@code NdkCreatePd}. Statuses: SUCCESS, PENDING, INSUFFICIENT_RESOURCES. */
    int createPd(CreateCompletion createCompletion, Object requestContext, Ref<NdkPd> pd);

    /**
     * {@code NdkCreateSharedEndpoint}. Statuses: SUCCESS, PENDING, INSUFFICIENT_RESOURCES, SHARING_VIOLATION,
     * TOO_MANY_ADDRESSES, INVALID_ADDRESS.
     */
    int createSharedEndpoint(InetSocketAddress address, CreateCompletion createCompletion, Object requestContext,
            Ref<NdkSharedEndpoint> sharedEndpoint);

    /** {@code NdkCreateConnector}. Statuses: SUCCESS, PENDING, INSUFFICIENT_RESOURCES. */
    int createConnector(CreateCompletion createCompletion, Object requestContext, Ref<NdkConnector> connector);

    /** {@code NdkCreateListener}. Statuses: SUCCESS, PENDING, INSUFFICIENT_RESOURCES. */
    int createListener(ConnectEventCallback connectEvent, Object connectEventContext, CreateCompletion createCompletion,
            Object requestContext, Ref<NdkListener> listener);

    /**
     * {@code NdkBuildLAM}: adapter logical page addresses for the first {@code length} bytes of {@code mdl}.
     *
     * @param lam receives the mapping; its capacity is the C {@code *pLAMSize} input
     * @param lamSize out: bytes written, or the required size on {@code STATUS_BUFFER_TOO_SMALL}
     * @param fbo out: first byte offset within the first page
     * @return SUCCESS, PENDING, INVALID_PARAMETER (not virtually contiguous), INSUFFICIENT_RESOURCES, BUFFER_TOO_SMALL
     */
    int buildLam(Mdl mdl, long length, RequestCompletion requestCompletion, Object requestContext,
            NdkLogicalAddressMapping lam, IntRef lamSize, IntRef fbo);

    /** {@code NdkReleaseLAM}: releases a mapping built by {@link #buildLam}. */
    void releaseLam(NdkLogicalAddressMapping lam);

    /** The name of the transport under this adapter ({@code loopback} or {@code iwarp}). */
    String transport();

    /** A snapshot of the adapter's counters (jndk extension). */
    NdkCounters counters();

    /**
     * A snapshot of the counters of the device under the adapter, by lower-case name, in a fixed order (jndk
     * extension; what a driver's hardware counters are to {@code rdma statistic}): what the wire did below the NDK
     * objects, such as packets dropped for a bad ICRC or an unknown QP, retransmissions, NAKs, CM resends. They count
     * for the whole device: adapters that share one (roce: one device per address and UDP port) read the same values.
     * docs/USAGE.md lists them. Empty when the transport keeps none beyond {@link #counters()} (loopback, iwarp).
     * The device's engine takes the snapshot: the call may wait for it, at most about a second.
     */
    default java.util.Map<String, Long> deviceCounters() {
        return java.util.Map.of();
    }

    /**
     * Closes the adapter ({@code CLOSE_NDK_ADAPTER_HANDLER}). Blocks until every descendant object has been
     * closed by the consumer and every callback has returned. Must not be called from a callback.
     */
    @Override
    void close();
}
