package io.jndk.roce.transport;

import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkRdmaTechnology;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.ListenHandler;
import io.jndk.provider.spi.WireTransport;
import io.jndk.roce.cm.CmAgent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code roce} transport of one adapter: its connections go through the JVM's {@link RoceDevice} of the
 * adapter's address (one UDP port 4791 per address, shared by the adapters on it). Ports are rdma_cm's port space,
 * not the host's: the provider's endpoint table is the only one ({@link #hostPorts()} false).
 */
public final class RoceTransport implements WireTransport {
    /** A listening port: its handler and the adapter that listens. */
    record Listening(ListenHandler handler, RoceTransport owner) {}

    /** As the loopback transport: how long an accepted connection waits for the requester's CompleteConnect. */
    static final long DEFAULT_ACCEPT_TIMEOUT_MS = 60_000;
    private final RoceDevice device;
    private final long acceptTimeoutMillis;
    private final AtomicBoolean shut = new AtomicBoolean();

    /**
     * Opens (or shares) the device of {@code address}.
     *
     * @throws UncheckedIOException when the address cannot be bound
     * @throws IllegalArgumentException for a bad option
     */
    public RoceTransport(InetAddress address, Map<String, String> options) {
        RoceOptions o = RoceOptions.of(options);
        this.acceptTimeoutMillis = io.jndk.provider.spi.OptionValues.number(options, "accept.timeout.ms",
            DEFAULT_ACCEPT_TIMEOUT_MS, 1, Long.MAX_VALUE);
        try {
            this.device = RoceDevice.acquire(address, o);
        } catch (IOException e) {
            throw new UncheckedIOException("roce: cannot open the device of " + address.getHostAddress() + " on UDP port "
                + o.udpPort() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "roce";
    }

    @Override
    public boolean hostPorts() {
        return false;
    }

    /** RoCEv2; private data as the CM messages carry it (REQ 56 after the rdma_cm header, REJ 148, REP 196). */
    @Override
    public NdkAdapterInfo adapterInfo(NdkAdapterInfo base) {
        RecordComponent[] rc = NdkAdapterInfo.class.getRecordComponents();
        Object[] values = new Object[rc.length];
        Class<?>[] types = new Class<?>[rc.length];
        try {
            for (int i = 0; i < rc.length; i++) {
                types[i] = rc[i].getType();
                values[i] = switch (rc[i].getName()) {
                    case "maxCallerData" -> CmAgent.REQ_PRIVATE_DATA;
                    case "maxCalleeData" -> Math.min(CmAgent.REJ_PRIVATE_DATA, CmAgent.REP_PRIVATE_DATA);
                    case "maxInboundReadLimit", "maxOutboundReadLimit" -> Math.min(255, (Integer) rc[i].getAccessor()
                        .invoke(base));
                    case "rdmaTechnology" -> NdkRdmaTechnology.ROCE_V2;
                    default -> rc[i].getAccessor().invoke(base);
                };
            }
            return NdkAdapterInfo.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public int listen(InetSocketAddress address, ListenHandler handler) {
        return device.listen(address.getPort(), handler, this);
    }

    @Override
    public void unlisten(InetSocketAddress address) {
        device.unlisten(address.getPort());
    }

    @Override
    public int connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress, ConnectRequest request,
            ActiveHandler handler) {
        if (destination.getAddress().isAnyLocalAddress() || destination.getPort() == 0) {
            return NtStatus.STATUS_INVALID_ADDRESS;
        }
        InetSocketAddress from = source.getAddress().isAnyLocalAddress()
            ? new InetSocketAddress(device.address(), source.getPort()) : source;
        return device.connect(from, destination, request, handler);
    }

    @Override
    public io.jndk.api.NdkOutOfBandEndpoint reserveOutOfBand() {
        return device.reserveOutOfBand();
    }

    @Override
    public void releaseOutOfBand(int qpn) {
        device.releaseOutOfBand(qpn);
    }

    @Override
    public java.util.Map<String, Long> deviceCounters() {
        return device.counterSnapshot();
    }

    @Override
    public void shutdown() {
        if (shut.compareAndSet(false, true)) {
            device.release();
        }
    }

    long acceptTimeoutMillis() {
        return acceptTimeoutMillis;
    }

    RoceDevice device() {
        return device;
    }
}
