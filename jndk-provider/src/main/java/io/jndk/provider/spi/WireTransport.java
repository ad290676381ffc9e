package io.jndk.provider.spi;

import io.jndk.api.NdkAdapterInfo;
import java.net.InetSocketAddress;

/**
 * A transport: how an adapter's connections are set up and carried (one instance per adapter). Methods never block
 * on the network. See the package documentation for the contract.
 */
public interface WireTransport {
    /** The transport name ({@code loopback}, {@code iwarp}, ...). */
    String name();

    /**
     * Whether local ports come from the host's port space (the transport binds host sockets), so that the provider
     * picks a free one from the host; false: the provider's endpoint table is the only port space.
     */
    default boolean hostPorts() {
        return true;
    }

    /**
     * What this transport changes in the adapter's {@code NDK_ADAPTER_INFO} before the adapter's own option overrides
     * apply: its RDMA technology, and limits its wire imposes (RoCE's CM messages carry 56 octets of private data in a
     * request, 148 in a reject). The default keeps the provider's values.
     */
    default NdkAdapterInfo adapterInfo(NdkAdapterInfo base) {
        return base;
    }

    /**
     * Starts listening on an address the provider has already reserved in its endpoint table.
     *
     * @return {@code STATUS_SUCCESS}, {@code STATUS_SHARING_VIOLATION} (the OS refused the address) or
     *     {@code STATUS_INSUFFICIENT_RESOURCES}
     */
    int listen(InetSocketAddress address, ListenHandler handler);

    /** Stops listening on {@code address}; requests already handed over are unaffected. */
    void unlisten(InetSocketAddress address);

    /**
     * Starts an active connection from {@code source} (port already chosen) to {@code destination}. The
     * outcome reaches {@code handler} exactly once, on a transport thread (or on the caller's, once this returned),
     * unless the attempt fails at once.
     *
     * @param reuseAddress the source address is a shared endpoint used by several connections
     * @return {@code STATUS_PENDING} (the outcome goes to {@code handler}), or the failure status of an attempt
     *     that ended before anything left (the handler is not called): {@code STATUS_HOST_UNREACHABLE},
     *     {@code STATUS_CONNECTION_REFUSED}, {@code STATUS_INVALID_ADDRESS}, ...
     */
    int connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress, ConnectRequest request,
            ActiveHandler handler);

    /**
     * jndk's out-of-band extension: reserves a QP number and a starting PSN for a connection set up without the
     * connection manager ({@link ConnectRequest#outOfBand()}); null when the transport has none (the default).
     * Inline; the reservation ends with the connection built on it, or with {@link #releaseOutOfBand}.
     *
     * @throws IllegalStateException when the transport has such numbers but cannot reserve them now (it is closing,
     *     or did not answer in time)
     */
    default io.jndk.api.NdkOutOfBandEndpoint reserveOutOfBand() {
        return null;
    }

    /** Gives back a reservation no connection was built on (its connector closed first). */
    default void releaseOutOfBand(int qpn) {
    }

    /**
     * The device's counters by lower-case name, in a fixed order ({@link io.jndk.api.NdkAdapter#deviceCounters()}); the
     * default has none. May wait briefly for the transport's engine; never blocks on the network.
     */
    default java.util.Map<String, Long> deviceCounters() {
        return java.util.Map.of();
    }

    /** Releases everything (adapter close). */
    void shutdown();
}
