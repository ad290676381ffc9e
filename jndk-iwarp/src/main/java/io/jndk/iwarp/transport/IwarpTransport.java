package io.jndk.iwarp.transport;

import io.jndk.api.ConnectFailure;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.MpaFailure;
import io.jndk.iwarp.cm.MpaInitiator;
import io.jndk.iwarp.cm.MpaListenResult;
import io.jndk.iwarp.cm.MpaListener;
import io.jndk.iwarp.cm.MpaNegotiated;
import io.jndk.iwarp.cm.MpaOutcome;
import io.jndk.iwarp.cm.MpaParams;
import io.jndk.iwarp.cm.MpaRequest;
import io.jndk.iwarp.cm.MpaSetupFrames;
import io.jndk.iwarp.cm.PendingMpaConnection;
import io.jndk.iwarp.cm.RtrType;
import io.jndk.iwarp.cm.SocketBuffers;
import io.jndk.iwarp.pcap.PcapWriter;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.ListenHandler;
import io.jndk.provider.spi.OptionValues;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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
 *   <li>{@code mpa.hold.ms} (default {@value #DEFAULT_HOLD_MS}): a responder whose initiator asked for no
 *       ready-to-receive frame (siw's client-server default) holds its output until the initiator's first FPDU
 *       (RFC 5044 section 7.1.2) for at most this long, then sends: siw as responder does not hold at all, and an
 *       application whose server speaks first (perftest's {@code ib_write_lat}) would otherwise never start;</li>
 *   <li>{@code limit.connections} (default unlimited): TCP connections this adapter holds at once, counting
 *       incoming ones still in MPA setup or waiting for the consumer's answer, connects in progress and
 *       established connections. Beyond it an incoming TCP connection is closed before anything is read, and a
 *       connect fails with {@code STATUS_INSUFFICIENT_RESOURCES} before it opens a socket;</li>
 *   <li>{@code pcap}: a capture file (classic pcap, see {@link PcapWriter}) of every connection of this adapter:
 *       a synthetic TCP handshake, the MPA Request and Reply, the RTR, every FPDU (Terminates included) in
 *       both directions, and the FINs, so that a dissector can follow each stream from its start. The file
 *       belongs to this adapter: when another adapter of this JVM already captures into the same path, this
 *       one writes to {@code name-2.ext} (then {@code -3}, ...) instead ({@link #capturePath()} tells which);
 *       a connection whose both ends belong to this adapter is recorded once;</li>
 *   <li>{@code engine} ({@code shared} or {@code threads}, default shared): the shared engine runs every
 *       connection of this adapter on a few engine loops, each serving many connections over one selector
 *       ({@link EngineLoop}); the thread engine gives each connection end a transmit and a receive thread
 *       (docs/DECISIONS.md, "The shared engine");</li>
 *   <li>{@code engine.loops} (default: the number of cores, 1 to {@value EngineMode#MAX_LOOPS}): the shared
 *       engine's loops of this adapter; a loop runs while it serves connections and ends after a short idle time;</li>
 *   <li>{@code engine.spin.us} (default 0, at most {@value EngineMode#MAX_LOOP_SPIN_MICROS}): after a turn with
 *       work, a shared engine loop polls its selector for up to this long before it waits, so that an answer that
 *       comes meanwhile costs no thread wake-up (latency for CPU time, as Linux's busy polling of sockets);</li>
 *   <li>{@code engine.yield.us} (default {@value EngineMode#DEFAULT_LOOP_YIELD_MICROS}, 0 to
 *       {@value EngineMode#MAX_LOOP_YIELD_MICROS}; 0: never): a shared engine loop whose turn ran longer than this
 *       yields its CPU before its next selection, so that a thread waiting for that CPU (a consumer, another loop)
 *       runs before the loop's next long turn: a bulk transfer does not hold a core for whole scheduler time
 *       slices;</li>
 *   <li>{@code threads} ({@code platform} only: virtual threads were removed): the thread engine, the kind of
 *       each connection's transmit and receive thread (docs/DECISIONS.md, "Threading model");</li>
 *   <li>{@code poll} ({@code true}/{@code false}, default false): polling mode for latency: a post transmits on
 *       the posting thread when no other thread is transmitting, and the receive thread spins up to
 *       {@code poll.spin.us} microseconds (default {@value EngineMode#DEFAULT_SPIN_MICROS}: no spin; 0 to
 *       {@value EngineMode#MAX_SPIN_MICROS}, checked whether or not {@code poll} is on) for input before it blocks
 *       in a read;</li>
 *   <li>{@code pcap.max.bytes} (default {@value #DEFAULT_PCAP_MAX_BYTES}): size bound of the capture file;
 *       packets that do not fit are dropped and counted.</li>
 * </ul>
 *
 * <p>{@link #shutdown()} (the adapter's close) closes the capture file; nothing is buffered in memory.
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
    /** Default bound of a client-server responder's output hold ({@code mpa.hold.ms}). */
    public static final long DEFAULT_HOLD_MS = 250;
    /** Default size bound of the capture file (1 GiB). */
    public static final long DEFAULT_PCAP_MAX_BYTES = 1L << 30;
    private static final int MIN_MSS = 64;
    /** Capture files open in this JVM, each owned by one transport. */
    private static final Map<Path, IwarpTransport> CAPTURE_FILES = new ConcurrentHashMap<>();
    /** Transports made in this JVM (names the engine loops of each). */
    private static final AtomicInteger ADAPTERS = new AtomicInteger();

    private final boolean crc;
    private final EngineMode engine;
    /** The shared engine's loops (started with the first connection), or null for the thread engine. */
    private final EngineLoops loops;
    private final Integer mss;
    private final Duration mpaTimeout;
    /** Options {@code tcp.sndbuf}, {@code tcp.rcvbuf}: every connection's socket buffer sizes (0: the system's). */
    private final SocketBuffers buffers;
    private final long acceptTimeoutMillis;
    private final long holdMillis;
    private final PcapWriter pcap;
    private final Path capturePath;
    /** Streams recorded in {@link #pcap}, keyed by (initiator, responder): both ends of one connection share one. */
    private final Map<List<InetSocketAddress>, Boolean> captured = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, MpaListener> listeners = new ConcurrentHashMap<>();
    private final Set<IwarpConnection> connections = ConcurrentHashMap.newKeySet();
    private final int maxConnections;
    private final AtomicInteger connecting = new AtomicInteger();
    private volatile boolean shut;

    /**
     * @param options adapter options (see the class comment); unknown keys are ignored
     * @throws IllegalArgumentException if a value cannot be parsed or the capture file cannot be created
     */
    public IwarpTransport(Map<String, String> options) {
        Map<String, String> o = options == null ? Map.of() : options;
        this.crc = Boolean.parseBoolean(o.getOrDefault("crc", "false"));
        this.engine = EngineMode.of(o);
        this.loops = engine.shared()
            ? new EngineLoops(engine, "iwarp-engine-" + ADAPTERS.incrementAndGet()) : null;
        this.buffers = new SocketBuffers(bytes(o, "tcp.sndbuf"), bytes(o, "tcp.rcvbuf"));
        String m = o.get("mss");
        this.mss = m == null ? null
                : (int) Math.max(MIN_MSS, Math.min(0x10000, OptionValues.parse("mss", m, 0, 0xFFFF_FFFFL)));
        String t = o.get("mpa.timeout.ms");
        this.mpaTimeout = t == null ? null : Duration.ofMillis(OptionValues.parse("mpa.timeout.ms", t, 1, Long.MAX_VALUE));
        this.holdMillis = OptionValues.number(o, "mpa.hold.ms", DEFAULT_HOLD_MS, 0, Long.MAX_VALUE / 2_000_000);
        this.acceptTimeoutMillis = OptionValues.number(o, "accept.timeout.ms", DEFAULT_ACCEPT_TIMEOUT_MS, 1,
                Long.MAX_VALUE);
        this.maxConnections = OptionValues.limit(o, "limit.connections", Integer.MAX_VALUE);
        String p = o.get("pcap");
        long pcapLimit = Math.max(PcapWriter.FILE_HEADER_LENGTH,
                OptionValues.number(o, "pcap.max.bytes", DEFAULT_PCAP_MAX_BYTES, 0, Long.MAX_VALUE));
        if (p == null || p.isBlank()) {
            this.pcap = null;
            this.capturePath = null;
        } else {
            Path file = claimCaptureFile(Path.of(p.trim()));
            try {
                this.pcap = PcapWriter.create(file, pcapLimit);
            } catch (IOException | RuntimeException e) {
                CAPTURE_FILES.remove(file, this);
                throw new IllegalArgumentException("cannot create capture file " + file, e);
            }
            this.capturePath = file;
        }
    }

    /** Claims {@code requested} for this transport, or the first free {@code name-N.ext} (N = 2, 3, ...). */
    private Path claimCaptureFile(Path requested) {
        Path absolute = requested.toAbsolutePath().normalize();
        if (CAPTURE_FILES.putIfAbsent(absolute, this) == null) {
            return absolute;
        }
        String name = absolute.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        String ext = dot > 0 ? name.substring(dot) : "";
        for (int n = 2; ; n++) {
            Path candidate = absolute.resolveSibling(stem + "-" + n + ext);
            if (CAPTURE_FILES.putIfAbsent(candidate, this) == null) {
                return candidate;
            }
        }
    }

    /** @return the capture file this adapter writes (absolute), or {@code null} without the {@code pcap} option */
    public Path capturePath() {
        return capturePath;
    }

    /** @return the capture writer (for diagnostics and tests), or {@code null} without the {@code pcap} option */
    public PcapWriter capture() {
        return pcap;
    }

    @Override
    public String name() {
        return "iwarp";
    }

    /** @return connections whose channel is still open (for diagnostics and tests) */
    public int openConnections() {
        return connections.size();
    }

    /**
     * @return TCP connections held: incoming ones in MPA setup or pending an answer, connects in progress and
     *     open connections (what {@code limit.connections} bounds)
     */
    public int heldConnections() {
        int n = connections.size() + connecting.get();
        for (MpaListener l : listeners.values()) {
            n += l.inSetupCount() + l.pendingCount();
        }
        return n;
    }

    /** A size in bytes from option {@code key}; unset: 0 (the system's). */
    private static int bytes(Map<String, String> options, String key) {
        String v = options.get(key);
        if (v == null || v.isBlank()) {
            return 0;
        }
        return (int) OptionValues.parse(key, v, 0, Integer.MAX_VALUE);
    }

    private boolean belowLimit() {
        return heldConnections() < maxConnections;
    }

    @Override
    public int listen(InetSocketAddress address, ListenHandler handler) {
        if (shut) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        Duration requestTimeout = mpaTimeout == null ? MpaListener.DEFAULT_REQUEST_TIMEOUT : mpaTimeout;
        MpaListenResult r = MpaListener.open(address, MpaListener.DEFAULT_BACKLOG, requestTimeout,
            (request, pending) -> handler.onRequest(new Incoming(request, pending)), this::belowLimit, buffers);
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
    public int connect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress,
                        ConnectRequest request, ActiveHandler handler) {
        connecting.incrementAndGet(); // counted first, so that concurrent connects cannot all pass the check
        if (heldConnections() > maxConnections) {
            connecting.decrementAndGet();
            Thread.ofVirtual().name("iwarp-connect").start(() -> handler.onFailed(NtStatus.STATUS_INSUFFICIENT_RESOURCES,
                ConnectFailure.Reason.LOCAL, "this adapter holds its most connections (" + maxConnections + ")"));
            return NtStatus.STATUS_PENDING;
        }
        Thread.ofVirtual().name("iwarp-connect").start(() -> {
            try {
                runConnect(source, destination, reuseAddress, request, handler);
            } finally {
                connecting.decrementAndGet();
            }
        });
        return NtStatus.STATUS_PENDING;
    }

    private void runConnect(InetSocketAddress source, InetSocketAddress destination, boolean reuseAddress,
                            ConnectRequest request, ActiveHandler handler) {
        MpaParams params;
        Duration timeout = request.timeoutMillis() > 0 ? Duration.ofMillis(request.timeoutMillis())
            : mpaTimeout != null ? mpaTimeout : MpaParams.DEFAULT_MPA_TIMEOUT;
        try {
            params = new MpaParams(depth(request.inboundReadLimit()), depth(request.outboundReadLimit()),
                request.privateData(), crc, true, EnumSet.of(RtrType.WRITE), timeout, timeout);
        } catch (IllegalArgumentException e) {
            handler.onFailed(NtStatus.STATUS_INVALID_PARAMETER, ConnectFailure.Reason.LOCAL, e.getMessage());
            return;
        }
        MpaOutcome outcome = MpaInitiator.connect(source, destination, params, timeout, timeout, reuseAddress,
            buffers);
        switch (outcome) {
            case MpaOutcome.Accepted a -> {
                if (shut) {
                    closeQuietly(a);
                    handler.onFailed(NtStatus.STATUS_CANCELLED, ConnectFailure.Reason.LOCAL,
                        "the transport shut down during the attempt");
                    return;
                }
                MpaNegotiated n = a.negotiated();
                IwarpConnection c = newConnection(true, a, n);
                handler.onReply(c, n.localAddress(), n.peerPrivateData(), n.peerIrd(), n.peerOrd());
            }
            case MpaOutcome.Rejected r -> {
                if (r.crcPolicy()) {
                    handler.onRejected(r.privateData(), ConnectFailure.Reason.CRC_MISMATCH, crc
                        ? "the peer rejected the connection: it refuses the MPA CRC this side requires (the Reply has"
                            + " C=0 to a Request with C=1)"
                        : "the peer rejected the connection: it requires the MPA CRC this side does not use (the Reply"
                            + " has C=1 to a Request with C=0; turn the crc option on)");
                } else {
                    handler.onRejected(r.privateData(), ConnectFailure.Reason.REJECTED, "the peer rejected the"
                        + " connection (an MPA Reply with R=1, " + r.privateData().length + " octets of private data)");
                }
            }
            case MpaOutcome.Failed f -> handler.onFailed(status(f.reason()), reason(f.reason()), f.detail());
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
        PcapWriter.TcpStream stream = null;
        List<InetSocketAddress> key = null;
        if (pcap != null) {
            InetSocketAddress initiator = active ? local : remote;
            InetSocketAddress responder = active ? remote : local;
            key = List.of(initiator, responder);
            if (captured.putIfAbsent(key, Boolean.TRUE) == null) {
                stream = pcap.stream(initiator, responder, true);
                // the setup frames, in the order they crossed: the Request, then the Reply
                MpaSetupFrames setup = a.setup();
                stream.fromInitiator(setup.request());
                stream.fromResponder(setup.reply());
            } else {
                key = null; // the other end of this connection is ours too and records it
            }
        }
        ByteBuffer surplus = a.surplus();
        IwarpConnection c = new IwarpConnection(active, a.channel(), n, surplus, segment, stream, engine, loops);
        connections.add(c);
        List<InetSocketAddress> recordedKey = key;
        c.onClose(() -> {
            connections.remove(c);
            if (recordedKey != null) {
                captured.remove(recordedKey);
            }
        });
        return c;
    }

    private static int depth(int value) {
        return Math.max(0, Math.min(MpaParams.MAX_READ_DEPTH, value));
    }

    /** Maps a connection-setup failure to its NTSTATUS. */
    static int status(MpaFailure reason) {
        return switch (reason) {
            case REFUSED, PEER_CLOSED, TERMINATED, BAD_REVISION, MARKERS, CRC_MISMATCH, NO_MATCHING_RTR,
                 PRIVATE_DATA_TOO_LONG, BAD_FRAME -> NtStatus.STATUS_CONNECTION_REFUSED;
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

    /** The consumer's reason for a connection-setup failure ({@code NdkConnector.connectFailure}). */
    static ConnectFailure.Reason reason(MpaFailure failure) {
        return switch (failure) {
            case REFUSED -> ConnectFailure.Reason.NO_LISTENER;
            case PEER_CLOSED, ABORTED -> ConnectFailure.Reason.PEER_CLOSED;
            case TERMINATED -> ConnectFailure.Reason.PEER_TERMINATED;
            case BAD_REVISION -> ConnectFailure.Reason.VERSION_MISMATCH;
            case MARKERS -> ConnectFailure.Reason.FRAMING_MISMATCH;
            case CRC_MISMATCH -> ConnectFailure.Reason.CRC_MISMATCH;
            case NO_MATCHING_RTR -> ConnectFailure.Reason.STARTUP_MISMATCH;
            case PRIVATE_DATA_TOO_LONG -> ConnectFailure.Reason.PRIVATE_DATA_TOO_LONG;
            case BAD_FRAME -> ConnectFailure.Reason.PROTOCOL_ERROR;
            case HOST_UNREACHABLE, NETWORK_UNREACHABLE -> ConnectFailure.Reason.UNREACHABLE;
            case TIMEOUT -> ConnectFailure.Reason.TIMEOUT;
            case INSUFFICIENT_RESOURCES -> ConnectFailure.Reason.READ_LIMITS;
            case ADDRESS_IN_USE, INVALID_ADDRESS, CANCELLED, INVALID_STATE -> ConnectFailure.Reason.LOCAL;
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
        if (loops != null) {
            loops.shutdown(); // each loop ends once its connections have
        }
        if (pcap != null) {
            try {
                pcap.close();
            } catch (IOException ignored) {
                // capture is best effort
            } finally {
                CAPTURE_FILES.remove(capturePath, this);
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
                c.releaseHeldOutput(holdMillis);
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
