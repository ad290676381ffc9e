package io.jndk.iwarp.transport;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.MpaFailure;
import io.jndk.iwarp.cm.MpaInitiator;
import io.jndk.iwarp.cm.MpaListenResult;
import io.jndk.iwarp.cm.MpaListener;
import io.jndk.iwarp.cm.MpaNegotiated;
import io.jndk.iwarp.cm.MpaOutcome;
import io.jndk.iwarp.cm.MpaParams;
import io.jndk.iwarp.cm.MpaRequest;
import io.jndk.iwarp.cm.PendingMpaConnection;
import io.jndk.iwarp.cm.RtrType;
import io.jndk.iwarp.pcap.PcapWriter;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.ListenHandler;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The iWARP {@link WireTransport} of one adapter: MPA connection setup ({@link MpaListener},
 * {@link MpaInitiator}) with jndk's peer-to-peer model (a Write RTR from the initiator), then one
 * {@link IwarpConnection} stream engine per connection.
 *
 * <p>Options (from the adapter's open parameters):
 * <ul>
 *   <li>{@code crc} ({@code true}/{@code false}, default false): ask for MPA CRC;</li>
 *   <li>{@code mss} (default 1448): FPDU size limit, rounded down to a multiple of 8 (IWARP.md 1.9). When the
 *       option is absent and both ends of a connection are loopback addresses, the loopback MSS of siw on
 *       {@code lo} ({@value #LOOPBACK_MSS}) is used instead;</li>
 *   <li>{@code mpa.timeout.ms}: wait for the MPA Request (listener) and, when the connect request gives no
 *       bound, for the MPA Reply;</li>
 *   <li>{@code accept.timeout.ms} (default 60 000): wait after the Reply for the initiator's first FPDU;</li>
 *   <li>{@code pcap}: a file that receives every FPDU stream sent and received.</li>
 * </ul>
 *
 * <p>No method blocks on the network: connects, accepts and rejects run on virtual threads.
 */
public final class IwarpTransport implements WireTransport {

    /** Default FPDU size limit: a 1500-octet MTU with TCP timestamps. */
    public static final int DEFAULT_MSS = 1448;
    /** FPDU size limit on loopback (siw attached to {@code lo}; ULPDU_Length stays below 65536). */
    public static final int LOOPBACK_MSS = 65_483;
    /** Default wait for the first FPDU after an accept. */
    public static final long DEFAULT_ACCEPT_TIMEOUT_MS = 60_000;
    private static final int MIN_MSS = 64;

    private final boolean crc;
    private final Integer mss;
    private final Duration mpaTimeout;
    private final long acceptTimeoutMillis;
    private final PcapWriter pcap;
    private final Map<InetSocketAddress, MpaListener> listeners = new ConcurrentHashMap<>();
    private final Set<IwarpConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean shut;

    /**
     * @param options adapter options (see the class comment); unknown keys are ignored
     * @throws IllegalArgumentException if a value cannot be parsed or the capture file cannot be created
     */
    public IwarpTransport(Map<String, String> options) {
        Map<String, String> o = options == null ? Map.of() : options;
        this.crc = Boolean.parseBoolean(o.getOrDefault("crc", "false"));
        String m = o.get("mss");
        this.mss = m == null ? null : Math.max(MIN_MSS, Math.min(0x10000, Integer.parseInt(m.trim())));
        String t = o.get("mpa.timeout.ms");
        this.mpaTimeout = t == null ? null : Duration.ofMillis(Math.max(1, Long.parseLong(t.trim())));
        this.acceptTimeoutMillis = Math.max(1, Long.parseLong(
            o.getOrDefault("accept.timeout.ms", Long.toString(DEFAULT_ACCEPT_TIMEOUT_MS)).trim()));
        String p = o.get("pcap");
        try {
            this.pcap = p == null || p.isBlank() ? null : PcapWriter.create(Path.of(p));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot create capture file " + p, e);
        }
    }

    @Override
    public String name() {
        return "iwarp";
    }

    /** @return connections whose channel is still open (for diagnostics and tests) */
    public int openConnections() {
        return connections.size();
    }

    @Override
    public int listen(InetSocketAddress address, ListenHandler handler) {
        if (shut) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        Duration requestTimeout = mpaTimeout == null ? MpaListener.DEFAULT_REQUEST_TIMEOUT : mpaTimeout;
        MpaListenResult r = MpaListener.open(address, MpaListener.DEFAULT_BACKLOG, requestTimeout,
            (request, pending) -> handler.onRequest(new Incoming(request, pending)));
        return switch (r) {
            case MpaListenResult.Listening l -> {
                MpaListener previous = listeners.put(address, l.listener());
                if (previous != null) {
                    previous.stopAccepting();
                }
                yield NtStatus.STATUS_SUCCESS;
            }
            case MpaListenResult.Failed f -> f.reason() == MpaFailure.ADDRESS_IN_USE
                || f.reason() == MpaFailure.INVALID_ADDRESS
                ? NtStatus.STATUS_SHARING_VIOLATION : NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        };
    }

    /**
     * @param requested the address given to {@link #listen}
     * @return the address actually bound (with the real port when {@code requested} had port 0), or {@code null}
     */
    public InetSocketAddress boundAddress(InetSocketAddress requested) {
        MpaListener l = listeners.get(requested);
        return l == null ? null : l.localAddress();
    }

    @Override
    public void unlisten(InetSocketAddress address) {
        MpaListener l = listeners.remove(address);
        if (l != null) {
            l.stopAccepting();
        }
    }

    @Override
    public void connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress,
                        ConnectRequest request, ActiveHandler handler) {
        Thread.ofVirtual().name("iwarp-connect").start(() -> runConnect(source, destination, reuseAddress, request,
            handler));
    }

    private void runConnect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress,
                            ConnectRequest request, ActiveHandler handler) {
        MpaParams params;
        Duration timeout = request.timeoutMillis() > 0 ? Duration.ofMillis(request.timeoutMillis())
            : mpaTimeout != null ? mpaTimeout : MpaParams.DEFAULT_MPA_TIMEOUT;
        try {
            params = new MpaParams(depth(request.inboundReadLimit()), depth(request.outboundReadLimit()),
                request.privateData(), request.crc() || crc, true, EnumSet.of(RtrType.WRITE), timeout, timeout);
        } catch (IllegalArgumentException e) {
            handler.onFailed(NtStatus.STATUS_INVALID_PARAMETER);
            return;
        }
        MpaOutcome outcome = MpaInitiator.connect(source, destination, params, timeout, timeout, reuseAddress);
        switch (outcome) {
            case MpaOutcome.Accepted a -> {
                if (shut) {
                    closeQuietly(a);
                    handler.onFailed(NtStatus.STATUS_CANCELLED);
                    return;
                }
                MpaNegotiated n = a.negotiated();
                IwarpConnection c = newConnection(true, a, n);
                handler.onReply(c, n.localAddress(), n.peerPrivateData(), n.peerIrd(), n.peerOrd());
            }
            case MpaOutcome.Rejected r -> handler.onRejected(r.privateData());
            case MpaOutcome.Failed f -> handler.onFailed(status(f.reason()));
        }
    }

    private static void closeQuietly(MpaOutcome.Accepted a) {
        try {
            a.channel().close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private IwarpConnection newConnection(boolean active, MpaOutcome.Accepted a, MpaNegotiated n) {
        InetSocketAddress local = n.localAddress();
        InetSocketAddress remote = n.remoteAddress();
        int segment = mss != null ? mss
            : local.getAddress().isLoopbackAddress() && remote.getAddress().isLoopbackAddress() ? LOOPBACK_MSS
            : DEFAULT_MSS;
        PcapWriter.TcpStream stream = pcap == null ? null
            : active ? pcap.stream(local, remote, true) : pcap.stream(remote, local, true);
        ByteBuffer surplus = a.surplus();
        IwarpConnection c = new IwarpConnection(active, a.channel(), n, surplus, segment, stream);
        connections.add(c);
        c.onClose(() -> connections.remove(c));
        return c;
    }

    private static int depth(int value) {
        return Math.max(0, Math.min(MpaParams.MAX_READ_DEPTH, value));
    }

    /** Maps a connection-setup failure to its NTSTATUS. */
    static int status(MpaFailure reason) {
        return switch (reason) {
            case REFUSED -> NtStatus.STATUS_CONNECTION_REFUSED;
            case HOST_UNREACHABLE -> NtStatus.STATUS_HOST_UNREACHABLE;
            case NETWORK_UNREACHABLE -> NtStatus.STATUS_NETWORK_UNREACHABLE;
            case TIMEOUT -> NtStatus.STATUS_IO_TIMEOUT;
            case ADDRESS_IN_USE -> NtStatus.STATUS_SHARING_VIOLATION;
            case INVALID_ADDRESS -> NtStatus.STATUS_INVALID_ADDRESS;
            case INSUFFICIENT_RESOURCES -> NtStatus.STATUS_INSUFFICIENT_RESOURCES;
            case CANCELLED -> NtStatus.STATUS_CANCELLED;
            case ABORTED -> NtStatus.STATUS_CONNECTION_ABORTED;
            case INVALID_STATE -> NtStatus.STATUS_INVALID_DEVICE_STATE;
        };
    }

    @Override
    public void shutdown() {
        shut = true;
        for (InetSocketAddress a : listeners.keySet()) {
            MpaListener l = listeners.remove(a);
            if (l != null) {
                l.close();
            }
        }
        for (IwarpConnection c : connections) {
            c.reset();
        }
        if (pcap != null) {
            try {
                pcap.close();
            } catch (IOException ignored) {
                // capture is best effort
            }
        }
    }

    /** A received MPA Request waiting for the provider's decision. */
    private final class Incoming implements IncomingRequest {
        private final MpaRequest request;
        private final PendingMpaConnection pending;
        private boolean refused;
        private IwarpConnection accepted;

        Incoming(MpaRequest request, PendingMpaConnection pending) {
            this.request = request;
            this.pending = pending;
        }

        @Override
        public InetSocketAddress local() {
            return request.localAddress();
        }

        @Override
        public InetSocketAddress remote() {
            return request.remoteAddress();
        }

        @Override
        public byte[] privateData() {
            return request.privateData();
        }

        @Override
        public int inboundReadLimit() {
            return Math.max(0, request.peerIrd());
        }

        @Override
        public int outboundReadLimit() {
            return Math.max(0, request.peerOrd());
        }

        @Override
        public void accept(byte[] privateData, int inboundReadLimit, int outboundReadLimit, QpPort qp,
                           PassiveHandler handler) {
            MpaParams params;
            try {
                params = new MpaParams(depth(inboundReadLimit), depth(outboundReadLimit), privateData, crc, false,
                    EnumSet.of(RtrType.WRITE), MpaParams.DEFAULT_CONNECT_TIMEOUT, MpaParams.DEFAULT_MPA_TIMEOUT);
            } catch (IllegalArgumentException e) {
                pending.close();
                handler.onFailed(NtStatus.STATUS_INVALID_PARAMETER);
                return;
            }
            Thread.ofVirtual().name("iwarp-accept").start(() -> {
                MpaOutcome outcome = pending.accept(params);
                if (!(outcome instanceof MpaOutcome.Accepted a)) {
                    handler.onFailed(NtStatus.STATUS_CONNECTION_ABORTED);
                    return;
                }
                IwarpConnection c = newConnection(false, a, a.negotiated());
                synchronized (this) {
                    if (refused) {
                        c.reset();
                        handler.onFailed(NtStatus.STATUS_CONNECTION_ABORTED);
                        return;
                    }
                    accepted = c;
                }
                c.beginPassive(qp, handler);
                c.awaitEstablished(acceptTimeoutMillis);
            });
        }

        @Override
        public void reject(byte[] privateData) {
            byte[] pd = privateData == null ? new byte[0] : privateData.clone();
            Thread.ofVirtual().name("iwarp-reject").start(() -> {
                try {
                    pending.reject(pd);
                } catch (IllegalArgumentException e) {
                    pending.close();
                }
            });
        }

        /** Also abandons an accepted connection that is not yet established (the consumer closed its connector). */
        @Override
        public void refuse() {
            IwarpConnection c;
            synchronized (this) {
                refused = true;
                c = accepted;
            }
            pending.close();
            if (c != null) {
                c.reset();
            }
        }
    }
}
