package io.jndk.provider.loopback;

import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.ListenHandler;
import io.jndk.provider.spi.OptionValues;
import io.jndk.provider.spi.WireTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-JVM {@code loopback} transport of one adapter: connections to adapters of the same JVM, with no wire. It is
 * a transport like the others, behind the same SPI: connection setup exchanges what MPA would (private data, read
 * limits) through {@link LoopbackRequest}, and each connection's data path ({@link LoopbackConnection}) runs the
 * requests on the posting thread through the peer QP's {@link io.jndk.provider.spi.QpPort}, so every access check,
 * bound, invalidation and completion rule is the provider's one implementation.
 *
 * <p>Options (the adapter's): {@code accept.timeout.ms} (default 60 000), how long an accepted connection waits
 * for the requester's CompleteConnect.
 */
public final class LoopbackTransport implements WireTransport {
    static final long DEFAULT_ACCEPT_TIMEOUT_MS = 60_000;
    private final InetAddress address;
    private final long acceptTimeoutMillis;
    private final AtomicBoolean shut = new AtomicBoolean();

    /**
     * @param address the adapter's address (the fabric knows it is owned while the transport lives)
     * @param options the adapter's options
     */
    public LoopbackTransport(InetAddress address, Map<String, String> options) {
        this.address = address;
        this.acceptTimeoutMillis = OptionValues.number(options, "accept.timeout.ms", DEFAULT_ACCEPT_TIMEOUT_MS, 1,
                Long.MAX_VALUE);
        LoopbackFabric.JVM.adapterOpened(address);
    }

    InetAddress address() {
        return address;
    }

    long acceptTimeoutMillis() {
        return acceptTimeoutMillis;
    }

    @Override
    public String name() {
        return "loopback";
    }

    /** Ports are the provider's own (no host socket is ever bound). */
    @Override
    public boolean hostPorts() {
        return false;
    }

    @Override
    public int listen(InetSocketAddress address, ListenHandler handler) {
        LoopbackFabric.JVM.listen(address, handler, this);
        return NtStatus.STATUS_SUCCESS;
    }

    @Override
    public void unlisten(InetSocketAddress address) {
        LoopbackFabric.JVM.unlisten(address);
    }

    /**
     * Finds the listener in this JVM and hands it the request at once: a destination no adapter owns is
     * {@code STATUS_HOST_UNREACHABLE}, an owned address without a listener (or one that refuses now: paused, backlog
     * full) {@code STATUS_CONNECTION_REFUSED}, both inline.
     */
    @Override
    public int connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress, ConnectRequest request,
            ActiveHandler handler) {
        LoopbackFabric.Listening l = LoopbackFabric.JVM.find(destination);
        if (l == null) {
            return LoopbackFabric.JVM.owned(destination.getAddress()) ? NtStatus.STATUS_CONNECTION_REFUSED
                    : NtStatus.STATUS_HOST_UNREACHABLE;
        }
        return new LoopbackRequest(l.transport(), destination, source, request, handler).offer(l);
    }

    @Override
    public void shutdown() {
        if (shut.compareAndSet(false, true)) {
            LoopbackFabric.JVM.adapterClosed(address);
        }
    }
}
