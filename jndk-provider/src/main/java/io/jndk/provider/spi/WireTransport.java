package io.jndk.provider.spi;

import java.net.InetSocketAddress;

/** A transport that carries connections between hosts. Methods never block on the network. */
public interface WireTransport {
    /** The transport name ({@code iwarp}). */
    String name();

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
     * outcome reaches {@code handler} exactly once, on a transport thread.
     *
     * @param reuseAddress the source address is a shared endpoint used by several connections
     */
    void connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress, ConnectRequest request,
            ActiveHandler handler);

    /** Releases everything (adapter close). */
    void shutdown();
}
