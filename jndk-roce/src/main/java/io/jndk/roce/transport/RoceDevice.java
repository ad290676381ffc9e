package io.jndk.roce.transport;

import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.EngineThread;
import io.jndk.provider.spi.ListenHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.roce.cm.CmAgent;
import io.jndk.roce.cm.CmConfig;
import io.jndk.roce.cm.CmConnection;
import io.jndk.roce.cm.CmCounter;
import io.jndk.roce.cm.CmEvent;
import io.jndk.roce.cm.CmIdSource;
import io.jndk.roce.cm.CmState;
import io.jndk.roce.cm.CmStatus;
import io.jndk.roce.cm.ConnectParams;
import io.jndk.roce.cm.ConnectReply;
import io.jndk.roce.cm.Gid;
import io.jndk.roce.cm.IncomingConnect;
import io.jndk.roce.codec.BthFlyweight;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import io.jndk.roce.mad.GsiPacket;
import io.jndk.roce.mad.MadHeaderFlyweight;
import io.jndk.roce.rc.RcCounter;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One RoCEv2 port: a {@link RoceLink} on one IP address, its GID, the connection manager ({@link CmAgent}) on QP1,
 * the QP numbers and every RC QP on it, all driven by one engine thread (as rxe runs one device per netdev). The
 * adapters of a JVM that share an address share its device (reference-counted), so that their listeners and QPs
 * live behind the one UDP port 4791 the address has.
 *
 * <p>The engine loop: commands from other threads (connect, accept, kicks, closes), then up to a batch of arrivals
 * (dispatched by destination QPN: 1 to the CM, others to their QP's requester or responder), then the QPs with
 * output, then the timers (CM resends, RC ACK timeouts, connection deadlines); it waits in the selector only when
 * none of these had anything to do.
 */
final class RoceDevice implements Runnable {
    private static final Logger LOG = Logger.getLogger(RoceDevice.class.getName());
    private static final Map<String, RoceDevice> DEVICES = new HashMap<>();
    /** Engines of released devices that may still hold their socket, by key (guarded by {@link #DEVICES}). */
    private static final Map<String, Thread> CLOSING = new HashMap<>();
    private static final int RECEIVE_BATCH = 64;
    private static final int SERVICE_BUDGET = 32;
    private static final long MAX_WAIT_MILLIS = 100;
    /** Polling mode: how long the engine stands by after a consumer's last pass. */
    private static final long STANDBY_NANOS = 1_000_000;
    /** Polling mode: how long the engine parks when a consumer holds the turn. */
    private static final long TURN_BACKOFF_NANOS = 50_000;

    /** Device counters ({@code ./jndk info}, tests). */
    enum Counter {
        PACKETS_IN, PACKETS_OUT, UNKNOWN_QPN, MALFORMED, DROPPED_CLOSED, PLACEMENT_REFUSED, GSI_IN, GSI_OUT,
        /** Packets (RC or CM) whose send failed with an error (no route to the peer, ...): lost as on a wire. */
        SEND_FAILED
    }

    final String key;
    final RoceOptions options;
    final RoceLink link;
    final int mtu;
    private final InetAddress address;
    private final Gid gid;
    private final Selector selector;
    private final Thread thread;
    private final CmAgent cm;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    /** QPs kicked by posting threads: a Treiber stack through {@link RoceQp#nextKick} (no allocation per post). */
    private final java.util.concurrent.atomic.AtomicReference<RoceQp> kicks = new java.util.concurrent.atomic.AtomicReference<>();
    private final Map<InetAddress, Probe> probes = new HashMap<>();
    private final ByteBuffer probeIn = ByteBuffer.allocate(64);
    private final ConcurrentHashMap<Integer, RoceTransport.Listening> listeners = new ConcurrentHashMap<>();
    private final AtomicLongArray counters = new AtomicLongArray(Counter.values().length);
    /** The RC counters of the QPs that left {@link #live} (engine). */
    private final long[] rcEnded = new long[RcCounter.COUNT];
    /** The last send's error, for the connect that waits to know whether its REQ left (engine thread). */
    private IOException lastSendFailure;
    /** Whether the first send failure has been reported (engine thread). */
    private boolean sendFailureWarned;
    /** Whether the first ICRC drop has been reported (engine thread). */
    private boolean icrcWarned;
    private final QpTable qps = new QpTable();
    /** The QPs of {@link #qps}, for the timers' scan without an iterator. */
    private final ArrayList<RoceQp> live = new ArrayList<>();
    private final Map<CmConnection, RoceQp> byCm = new HashMap<>();
    private final ArrayDeque<RoceQp> ready = new ArrayDeque<>();
    private final java.util.Set<RoceQp> readySet = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final ArrayList<RoceQp> connecting = new ArrayList<>();
    /** QP numbers reserved for out-of-band connections (engine thread; the PSNs travel with the reservation). */
    private final java.util.Set<Integer> reservedQpns = new java.util.HashSet<>();
    private final RocePacketDecoder decoder = new RocePacketDecoder();
    private final RocePacketEncoder encoder = new RocePacketEncoder();
    private final ByteBuffer in;
    private final ByteBuffer gsiOut = ByteBuffer.allocateDirect(GsiPacket.LENGTH + 64);
    private final SecureRandom random = new SecureRandom();
    private final RocePcap pcap;
    private int references;
    private int nextQpn;
    private int gsiPsn;
    private volatile boolean sleeping;
    /**
     * Polling mode ({@code poll=true}): the device's passes run on whichever thread claims {@link #turn} - the engine,
     * a consumer polling a CQ of one of its QPs, or a posting thread - and the engine stands by while consumers poll.
     */
    final boolean polling;
    /**
     * Who runs a pass over the device's state now (polling mode only; without it the engine thread owns that state).
     * A claim never waits: a thread that does not get it leaves the work to the holder (or wakes the engine).
     */
    private final java.util.concurrent.atomic.AtomicBoolean turn = new java.util.concurrent.atomic.AtomicBoolean();
    /** When a consumer last ran a pass ({@link System#nanoTime}); {@link Long#MIN_VALUE} once a CQ was armed. */
    private volatile long consumerPassed = Long.MIN_VALUE;
    /**
     * When a consumer last armed a CQ of the device: for {@link #STANDBY_NANOS} after it the engine does not stand by
     * (a consumer that arms waits for notifications, and its passes, a post or a poll or two per notification, must
     * not keep the engine from receiving what it waits for; as iwarp's receive thread).
     */
    private volatile long consumerArmedAt = System.nanoTime() - STANDBY_NANOS;
    /**
     * A consumer's pass left output for the next pass (polling mode). Set before the consumer looks whether the engine
     * sleeps, and read by the engine after it says it sleeps, so that one of the two sees the other: the engine does
     * not go to sleep on it. Cleared when the engine takes the turn for a pass.
     */
    private volatile boolean outputOwed;
    /** Whether the running pass is a consumer's (the turn holder's own field: packets count as polled). */
    private boolean inConsumerPass;
    /**
     * Polling mode: the earliest timer deadline a consumer's pass left since the engine's last pass began
     * ({@link Long#MAX_VALUE}: none). Written under the turn, read by the engine after it says it sleeps: a timer armed
     * on a consumer's thread (an ACK timeout, an RNR wait, a CM resend) shortens the engine's sleep.
     */
    private volatile long consumerDeadline = Long.MAX_VALUE;
    /**
     * Polling mode: the latest time by which the engine must wake for the timers consumers' passes armed since its last
     * pass began (each timer's deadline plus half its length: {@link #wakeBy}); {@link Long#MAX_VALUE}: none. Only
     * falls between the engine's resets, so a pass that finds it no higher knows the wake is already seen to.
     */
    private volatile long consumerWakeBy = Long.MAX_VALUE;
    /** When the sleeping engine plans to wake ({@link System#nanoTime}); written before {@link #sleeping}. */
    private volatile long sleepUntil;
    /** The running consumer pass's earliest deadline of the QPs it touched (the turn holder's own field). */
    private long passDeadline;
    /** How long the engine keeps polling after its last work before it sleeps ({@code poll.spin.us}). */
    private final long spinNanos;
    private long lastWork;
    private volatile boolean closed;

    private RoceDevice(String key, InetAddress address, RoceOptions options) throws IOException {
        this.key = key;
        this.address = address;
        this.options = options;
        this.gid = gidOf(address);
        this.spinNanos = options.spinMicros() * 1_000L;
        this.polling = options.poll();
        this.link = options.link().equals("udp")
            ? new UdpLink(address, options.udpPort(), options.peerPort(), options.lenientIpv4() ? UdpLink.Ipv4Check.LENIENT
                : UdpLink.Ipv4Check.STRICT, options.socketBuffer(), options.socketBuffer(), options.sendPath())
            : LinkFactory.open(options.link(), address);
        try {
            this.mtu = options.mtu() != 0 ? options.mtu() : autoMtu(address, link);
            this.in = ByteBuffer.allocateDirect(65536);
            this.selector = Selector.open();
            link.channel().register(selector, SelectionKey.OP_READ);
            this.pcap = options.pcap() == null ? null : new RocePcap(java.nio.file.Path.of(options.pcap()));
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
        this.nextQpn = 0x11 + random.nextInt(0x100);
        this.gsiPsn = random.nextInt(1 << 24);
        long guid = random.nextLong();
        CmConfig base = CmConfig.rdmaCm(guid);
        CmConfig c = new CmConfig(guid, base.packetLifeTime(), base.cmResponseTimeout(), base.maxCmRetries(),
            base.localAckTimeout(), base.targetAckDelay(), base.retryCount(), base.rnrRetryCount(),
            RoceOptions.mtuCode(mtu), base.hopLimit(), base.mraServiceTimeout(), base.maxPendingRequests(),
            base.maxConnections());
        this.cm = new CmAgent(gid, c, System::nanoTime, CmIdSource.linuxStyle(random), this::sendMad);
        this.thread = new Thread(this, "jndk-roce-" + address.getHostAddress());
        thread.setDaemon(true);
        thread.start();
    }

    /** The device of {@code address} in this JVM, opened on first use. */
    static RoceDevice acquire(InetAddress address, RoceOptions options) throws IOException {
        String key = address.getHostAddress() + "/" + options.udpPort();
        while (true) {
            Thread leaving;
            synchronized (DEVICES) {
                RoceDevice d = DEVICES.get(key);
                leaving = d == null ? CLOSING.get(key) : null;
                if (leaving == null) {
                    if (d == null) {
                        d = new RoceDevice(key, address, options);
                        DEVICES.put(key, d);
                    }
                    d.references++;
                    return d;
                }
            }
            // the last adapter of the device that had this address just closed: its engine closes the socket as it
            // ends, and leaves CLOSING under the monitor, so wait for it without holding the monitor; bind after that
            try {
                leaving.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (DEVICES) {
                CLOSING.remove(key, leaving);
            }
        }
    }

    /** One adapter less; the last one closes the device. */
    void release() {
        synchronized (DEVICES) {
            if (--references > 0) {
                return;
            }
            DEVICES.remove(key);
            CLOSING.put(key, thread);
        }
        closed = true;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static Gid gidOf(InetAddress a) {
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            return Gid.ipv4Mapped((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF);
        }
        return new Gid(b);
    }

    static InetAddress addressOf(Gid g) {
        try {
            if (g.isIpv4Mapped()) {
                int v = g.ipv4();
                return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8),
                    (byte) v});
            }
            return Inet6Address.getByAddress(g.octets());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** As rxe: the largest IB MTU that fits the interface's MTU with the IP, UDP, BTH, RETH and ICRC headers. */
    private static int autoMtu(InetAddress a, RoceLink link) {
        int ifMtu = 1500;
        if (link instanceof UdpLink) {
            try {
                NetworkInterface n = NetworkInterface.getByInetAddress(a);
                if (n == null && a.isLoopbackAddress()) {
                    // 127.0.0.2 and the rest of 127/8 reach lo without being one of its configured addresses
                    n = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
                }
                if (n != null && n.getMTU() > 0) {
                    ifMtu = n.getMTU();
                }
            } catch (SocketException e) {
                // the default
            }
        }
        int room = ifMtu - (a instanceof Inet6Address ? 40 : 20) - 8 - 12 - 16 - 4;
        int m = 4096;
        while (m > 256 && m > room) {
            m >>= 1;
        }
        return m;
    }

    InetAddress address() {
        return address;
    }

    long counter(Counter c) {
        return counters.get(c.ordinal());
    }

    /**
     * The device's counters by lower-case name ({@link io.jndk.api.NdkAdapter#deviceCounters()}): the device's own, the
     * link's ICRC checks (and the frame link's counters), the CM's, and the RC counters summed over the device's QPs,
     * live and ended. Taken by the engine (or the turn holder), or by the caller once the engine has ended; a caller
     * that is not the engine waits up to a second for it and, if it is held up longer (an adapter's close under way, a
     * callback that blocks it), gets the device's own counters only.
     */
    java.util.Map<String, Long> counterSnapshot() {
        if (Thread.currentThread() == thread || !thread.isAlive()) {
            return takeCounters(); // the engine itself, or no engine left to race with
        }
        java.util.concurrent.CompletableFuture<java.util.Map<String, Long>> f = new java.util.concurrent.CompletableFuture<>();
        execute(() -> f.complete(takeCounters()));
        try {
            return f.get(1, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the engine did not answer: it ended meanwhile (then all can be read), or it is held up
        }
        if (!thread.isAlive()) {
            return takeCounters();
        }
        return java.util.Collections.unmodifiableMap(ownCounters());
    }

    private java.util.LinkedHashMap<String, Long> ownCounters() {
        java.util.LinkedHashMap<String, Long> m = new java.util.LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            m.put(c.name().toLowerCase(java.util.Locale.ROOT), counters.get(c.ordinal()));
        }
        return m;
    }

    private java.util.Map<String, Long> takeCounters() {
        java.util.LinkedHashMap<String, Long> m = ownCounters();
        m.put("icrc_good", link.icrcGood());
        m.put("icrc_bad", link.icrcBad());
        m.put("icrc_unchecked", link.icrcUnchecked());
        m.put("send_drops", link.sendDrops());
        link.counters(m);
        for (CmCounter c : CmCounter.values()) {
            m.put("cm_" + c.name().toLowerCase(java.util.Locale.ROOT), cm.counter(c));
        }
        long[] rc = rcEnded.clone();
        for (RoceQp q : live) {
            q.addRcCounters(rc);
        }
        for (RcCounter c : RcCounter.values()) {
            m.put("rc_" + c.name().toLowerCase(java.util.Locale.ROOT), rc[c.ordinal()]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    void count(Counter c) {
        counters.incrementAndGet(c.ordinal());
    }

    // ---- commands from other threads ----------------------------------------------------------

    void execute(Runnable r) {
        commands.add(r);
        wake();
    }

    void kick(RoceQp q) {
        RoceQp head;
        do {
            head = kicks.get();
            q.nextKick = head;
        } while (!kicks.compareAndSet(head, q));
        if (!polling || consumerTurn() < 0) {
            wake();
        }
    }

    /** A connected probe socket of the connection requests to one destination (see {@link UdpLink#openProbe}). */
    private static final class Probe {
        final java.nio.channels.DatagramChannel channel;
        final ArrayList<RoceQp> waiting = new ArrayList<>(1);

        Probe(java.nio.channels.DatagramChannel channel) {
            this.channel = channel;
        }
    }

    private void wake() {
        if (sleeping) {
            selector.wakeup();
        }
    }

    int listen(int port, ListenHandler handler, RoceTransport owner) {
        if (listeners.putIfAbsent(port, new RoceTransport.Listening(handler, owner)) != null) {
            return NtStatus.STATUS_SHARING_VIOLATION;
        }
        execute(() -> cm.listen(port, this::onCmEvent));
        return NtStatus.STATUS_SUCCESS;
    }

    void unlisten(int port) {
        if (listeners.remove(port) != null) {
            execute(() -> cm.unlisten(port));
        }
    }

    /** Starts an active connection; the outcome reaches {@code handler}. */
    int connect(InetSocketAddress source, InetSocketAddress destination, ConnectRequest request, ActiveHandler handler) {
        if ((destination.getAddress() instanceof Inet6Address) != (address instanceof Inet6Address)
            && !(address instanceof Inet6Address)) {
            return NtStatus.STATUS_INVALID_ADDRESS;
        }
        if (request.outOfBand() != null) {
            execute(() -> startOutOfBand(source, destination, request, handler));
        } else {
            execute(() -> startConnect(source, destination, request, handler));
        }
        return NtStatus.STATUS_PENDING;
    }

    // ---- engine -------------------------------------------------------------------------------

    @Override
    public void run() {
        EngineThread engine = EngineThread.enter();
        try {
            while (!closed) {
                if (polling && !turn.compareAndSet(false, true)) {
                    // a consumer runs a pass now: stand by as below (a retry every few microseconds would take the
                    // consumers' cores), or briefly if no consumer pass has ended yet
                    long standBy = standByNanos(System.nanoTime());
                    LockSupport.parkNanos(standBy > 0 ? standBy : TURN_BACKOFF_NANOS);
                    continue;
                }
                boolean work;
                long now;
                long next;
                try {
                    outputOwed = false; // this pass sends it
                    if (polling) {
                        consumerDeadline = Long.MAX_VALUE; // the timers below see every deadline
                        consumerWakeBy = Long.MAX_VALUE;
                    }
                    work = pass(engine);
                    now = System.nanoTime();
                    next = timers(now);
                    engine.runPending(); // what the timers ended (a retry exceeded): notified now, not after a wait
                } finally {
                    if (polling) {
                        turn.set(false);
                    }
                }
                boolean idle = !work && ready.isEmpty();
                if (!idle) {
                    lastWork = now;
                } else if (now - lastWork < spinNanos) {
                    Thread.onSpinWait(); // poll.spin.us: stay awake a moment after work, ready for the next packet
                    continue;
                }
                if (idle) {
                    long standBy = polling ? standByNanos(now) : 0;
                    if (standBy > 0) {
                        // consumers' polls drive the device: stand by (no wake-ups that take their cores), keep the
                        // timers, and take over within a millisecond of their last pass, at once when a CQ is armed
                        LockSupport.parkNanos(Math.max(1, Math.min(now + standBy, Math.min(next, consumerDeadline)) - now));
                        continue;
                    }
                    long waitMillis = waitMillis(next, now);
                    sleepUntil = now + waitMillis * 1_000_000;
                    sleeping = true;
                    if (commands.isEmpty() && kicks.get() == null && !outputOwed && !closed) {
                        long armed = consumerDeadline; // after sleeping: a consumer's pass sees one or the other
                        if (armed < next) {
                            waitMillis = waitMillis(armed, now);
                            sleepUntil = now + waitMillis * 1_000_000; // no consumer wakes it for what it knows
                        }
                        if (waitMillis == 0) {
                            selector.selectNow();
                        } else {
                            selector.select(waitMillis);
                        }
                    }
                    sleeping = false;
                    selector.selectedKeys().clear();
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            LOG.log(Level.SEVERE, "roce device " + key + " stopped", e);
        } finally {
            while (polling && !turn.compareAndSet(false, true)) {
                Thread.onSpinWait(); // a consumer's pass is short: it never waits for input
            }
            shutdownEngine(engine);
        }
    }

    /** The engine's selector wait at {@code now} for a timer due at {@code next}: at most {@link #MAX_WAIT_MILLIS}. */
    private static long waitMillis(long next, long now) {
        return next == Long.MAX_VALUE ? MAX_WAIT_MILLIS : Math.max(0, Math.min(MAX_WAIT_MILLIS, (next - now) / 1_000_000));
    }

    /**
     * How long the engine stands by at {@code now}: until {@link #STANDBY_NANOS} after a consumer's last pass, or 0
     * when no consumer passed that recently, or a CQ was armed since or within that time.
     */
    private long standByNanos(long now) {
        long polled = consumerPassed;
        if (polled == Long.MIN_VALUE || now - consumerArmedAt < STANDBY_NANOS) {
            return 0;
        }
        return now - polled < STANDBY_NANOS ? polled + STANDBY_NANOS - now : 0;
    }

    /** The engine's pass: commands and kicks, arrivals, then the QPs with output (deferred callbacks run). */
    private boolean pass(EngineThread engine) throws IOException {
        boolean work = runCommands();
        work |= receive(RECEIVE_BATCH, false);
        engine.runPending();
        work |= serviceReady();
        engine.runPending();
        return work;
    }

    /**
     * A consumer's pass: commands and kicks, the QPs with output, then arrivals up to the end of a message (the
     * consumer may be waiting for it: it looks before anything more is done). What the arrivals make a QP send (ACKs,
     * Read responses) goes out in the next pass, a poster's or a poller's, or the engine's once polls stop, so that
     * the consumer's own requests never wait behind them.
     */
    private boolean runConsumerPass() throws IOException {
        boolean work = runCommands();
        work |= serviceReady();
        work |= receive(RECEIVE_BATCH, true);
        return work;
    }

    /**
     * Polling mode: one pass on the calling thread (a consumer polling a CQ, or a posting thread), unless another
     * thread runs one now. Never waits for input; the timers stay the engine's.
     *
     * @return whether it did something (1) or nothing (0); -1 when another thread holds the turn or the device
     *     closed (the caller leaves the work to the engine)
     */
    int consumerTurn() {
        if (closed || !turn.compareAndSet(false, true)) {
            return -1;
        }
        boolean work = false;
        boolean owed = false;
        long needBy = Long.MAX_VALUE;
        try {
            if (!closed) {
                inConsumerPass = true;
                passDeadline = Long.MAX_VALUE;
                work = runConsumerPass();
                owed = !ready.isEmpty();
                long d = Math.min(passDeadline, cm.nextDeadline());
                if (d < consumerDeadline) {
                    consumerDeadline = d;
                }
                if (d != Long.MAX_VALUE) {
                    long by = wakeBy(d, System.nanoTime());
                    if (by < consumerWakeBy) {
                        consumerWakeBy = by;
                        needBy = by; // the first pass to need the engine this early: it looks whether it sleeps
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.SEVERE, "roce device " + key + " stopped (in a polling consumer's pass)", e);
            closed = true;
            selector.wakeup();
        } finally {
            inConsumerPass = false;
            turn.set(false);
        }
        consumerPassed = System.nanoTime();
        if (owed) {
            // output the pass left for the next one (ACKs, Read responses): an engine asleep in its selector sends it
            // now, as the next pass may be long in coming (a consumer that armed a CQ waits for what that output
            // brings back); an engine standing by for polls is not asleep and takes it over as before
            outputOwed = true;
            wake();
        } else if (needBy != Long.MAX_VALUE && sleeping && sleepUntil > needBy) {
            selector.wakeup(); // a timer this pass armed would fire too late from the engine's planned wake
        }
        return work ? 1 : 0;
    }

    /**
     * The latest wake that serves a timer due at {@code deadline}, armed at {@code now}: the deadline plus half the
     * timer's length. An engine planning to wake by then serves it (no wake-up per post in the common case: the local
     * ACK timeout is tens of milliseconds, the idle wait 100); one planning to wake later (for an RNR wait, a short ACK
     * timeout) is woken by the consumer.
     */
    static long wakeBy(long deadline, long now) {
        return deadline + Math.max(0, deadline - now) / 2;
    }

    /** A timer due at {@code deadline} was armed: a consumer's pass reports it to the engine (see {@link #consumerTurn}). */
    private void armed(long deadline) {
        if (inConsumerPass) {
            passDeadline = Math.min(passDeadline, deadline);
        }
    }

    /** A consumer of one of the device's CQs waits for a notification now: the engine must not stand by. */
    void consumerArmed() {
        consumerArmedAt = System.nanoTime();
        if (consumerPassed != Long.MIN_VALUE) {
            consumerPassed = Long.MIN_VALUE;
            LockSupport.unpark(thread);
        }
    }

    /** Whether the running pass is a consumer's. */
    boolean inConsumerPass() {
        return inConsumerPass;
    }

    private boolean runCommands() {
        boolean work = false;
        Runnable r;
        while ((r = commands.poll()) != null) {
            work = true;
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "roce device " + key + ": a command failed", e);
            }
        }
        RoceQp q = kicks.getAndSet(null);
        while (q != null) {
            RoceQp next = q.nextKick;
            q.nextKick = null;
            q.kicked();
            ready(q);
            work = true;
            q = next;
        }
        return work;
    }

    /** Engine: {@code q} has work (output, new requests). */
    void ready(RoceQp q) {
        if (readySet.add(q)) {
            ready.add(q);
        }
    }

    private boolean serviceReady() {
        int n = ready.size();
        boolean work = n > 0;
        for (int i = 0; i < n; i++) {
            RoceQp q = ready.poll();
            readySet.remove(q);
            boolean more;
            try {
                more = q.service(SERVICE_BUDGET);
            } catch (RuntimeException e) {
                crashed(q, e);
                continue;
            }
            armed(q.nextDeadline());
            if (more) {
                ready(q);
            }
        }
        return work;
    }

    /** Takes up to {@code batch} arrivals; {@code toMessageEnd}: stops after one that ends an RC message. */
    private boolean receive(int batch, boolean toMessageEnd) throws IOException {
        boolean work = false;
        for (int i = 0; i < batch; i++) {
            int length = link.receive(in);
            if (length < 0) {
                if (!icrcWarned && link.icrcBad() > 0) {
                    icrcWarned = true;
                    LOG.warning(icrcMessage());
                }
                break;
            }
            work = true;
            count(Counter.PACKETS_IN);
            if (pcap != null) {
                pcap.packet(link.source(), link.sourcePort(), address, link.localPort(), link.ipIdentification(false), in, 0,
                    length);
            }
            if (dispatch(length) && toMessageEnd) {
                break;
            }
        }
        return work;
    }

    /** Hands one arrival to its QP or the CM; returns whether it was an RC packet that ends a message. */
    private boolean dispatch(int length) {
        if (decoder.decode(in, 0, length) != RocePacketError.NONE) {
            count(Counter.MALFORMED);
            return false;
        }
        BthFlyweight bth = decoder.bth();
        int dest = bth.destQp();
        RoceOpcode op = decoder.opcode();
        if (dest == GsiPacket.QPN) {
            if (op != RoceOpcode.UD_SEND_ONLY || decoder.payloadLength() < MadHeaderFlyweight.MAD_LENGTH
                || decoder.deth().qkey() != GsiPacket.QKEY) {
                count(Counter.MALFORMED);
                return false;
            }
            count(Counter.GSI_IN);
            cm.receive(gidOf(link.source()), in, decoder.payloadOffset(), MadHeaderFlyweight.MAD_LENGTH);
            return false;
        }
        RoceQp q = qps.get(dest);
        if (q == null || op.transport() != RoceOpcode.Transport.RC || !q.peer.equals(link.source())) {
            count(Counter.UNKNOWN_QPN);
            return false;
        }
        try {
            q.onPacket(in, 0, length, op.isResponse());
            armed(q.nextDeadline());
        } catch (RuntimeException e) {
            crashed(q, e);
        }
        return op.position() == RoceOpcode.Position.LAST || op.position() == RoceOpcode.Position.ONLY;
    }

    private void pollProbes() {
        if (probes.isEmpty()) {
            return;
        }
        for (Probe p : new ArrayList<>(probes.values())) {
            try {
                probeIn.clear();
                p.channel.read(probeIn);
            } catch (java.net.PortUnreachableException e) {
                for (RoceQp q : new ArrayList<>(p.waiting)) {
                    if (q.cm != null && q.cm.state() == CmState.REQ_SENT) {
                        q.cm.close();
                        forget(q);
                        q.activeHandler.onFailed(NtStatus.STATUS_HOST_UNREACHABLE,
                            io.jndk.api.ConnectFailure.Reason.UNREACHABLE, "no RoCE device answers at "
                                + q.peer.getHostAddress() + " (ICMP port unreachable for UDP port " + options.udpPort() + ")");
                    }
                }
                closeProbe(q(p));
            } catch (IOException e) {
                // nothing to learn from it; the CM's retries and the connect deadline still run
            }
        }
    }

    private InetAddress q(Probe p) {
        for (Map.Entry<InetAddress, Probe> e : probes.entrySet()) {
            if (e.getValue() == p) {
                return e.getKey();
            }
        }
        return null;
    }

    private void closeProbe(InetAddress a) {
        Probe p = a == null ? null : probes.remove(a);
        if (p != null) {
            try {
                p.channel.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private long timers(long now) {
        pollProbes();
        long next = cm.nextDeadline();
        if (next <= now) {
            next = cm.tick();
        }
        for (int i = connecting.size() - 1; i >= 0; i--) {
            RoceQp q = connecting.get(i);
            if (q.connectDeadline <= now) {
                connecting.remove(i);
                if (q.active && q.cm != null && q.cm.state() == CmState.REQ_SENT) {
                    q.cm.close();
                    forget(q);
                    q.activeHandler.onFailed(NtStatus.STATUS_IO_TIMEOUT);
                } else if (!q.active && q.cm != null && q.cm.state() == CmState.REP_SENT) {
                    q.cm.close(); // REJ: the active side's CompleteConnect is aborted
                    forget(q);
                    q.end(false);
                    q.passiveHandler.onFailed(NtStatus.STATUS_IO_TIMEOUT);
                }
            } else {
                next = Math.min(next, q.connectDeadline);
            }
        }
        for (int i = 0; i < live.size(); i++) {
            RoceQp q = live.get(i);
            long d = q.nextDeadline();
            if (d <= now) {
                try {
                    q.onTimer(now);
                } catch (RuntimeException e) {
                    crashed(q, e);
                }
                d = q.nextDeadline();
            }
            next = Math.min(next, d);
        }
        return next;
    }

    /**
     * What one QP's processing threw (a defect, never the peer's packets, which are checked first) ends that QP alone,
     * as a reset, as iwarp's engine resets the one connection: the device goes on serving every other QP on it.
     */
    private void crashed(RoceQp q, RuntimeException e) {
        LOG.log(Level.SEVERE, "roce device " + key + ": QP " + q.qpn + " failed; resetting it, the device goes on", e);
        reset(q);
    }

    /** Fails {@code q} as a reset; what that throws is logged, so that the caller goes on with the other QPs. */
    private void reset(RoceQp q) {
        try {
            q.fail(NtStatus.STATUS_CONNECTION_RESET, 0, false, io.jndk.api.DisconnectReason.CONNECTION_RESET);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "roce device " + key + ": resetting QP " + q.qpn + " failed", e);
        }
    }

    private void shutdownEngine(EngineThread engine) {
        for (RoceQp q : new ArrayList<>(live)) {
            reset(q);
        }
        engine.runPending(); // the notifications of what the failures completed (notify=inline)
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
        if (link.icrcBad() > 0 || link.icrcUnchecked() > 0) {
            LOG.info("roce device " + key + ": ICRC good " + link.icrcGood() + ", bad (dropped) " + link.icrcBad()
                + ", not checkable (accepted, icrc.ipv4=lenient) " + link.icrcUnchecked());
        }
        try {
            link.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing " + link, e);
        }
        if (pcap != null) {
            try {
                pcap.close();
            } catch (IOException e) {
                LOG.log(Level.FINE, "closing the capture", e);
            }
        }
        synchronized (DEVICES) {
            CLOSING.remove(key, thread);
        }
    }

    /** Sends one RC packet of a QP. */
    void transmit(InetAddress peer, int sourcePort, ByteBuffer buffer, int offset, int length) {
        try {
            if (link.send(peer, sourcePort, buffer, offset, length)) {
                count(Counter.PACKETS_OUT);
                if (pcap != null) {
                    pcap.packet(address, link.sentSourcePort(sourcePort), peer, link.peerPort(),
                        link.ipIdentification(true), buffer, offset, length);
                }
            }
        } catch (IOException e) {
            sendFailed(peer, e);
        }
    }

    /**
     * A packet that could not be sent (the socket's error: no route to the peer, a firewall, ...) is lost as a packet
     * lost on the wire would be, and the protocol's timers take it from there (RC retransmission, CM resends): the
     * error never stops the device, which serves every other QP on it. Counted; said once per device.
     */
    private void sendFailed(InetAddress peer, IOException e) {
        count(Counter.SEND_FAILED);
        lastSendFailure = e;
        if (!sendFailureWarned) {
            sendFailureWarned = true;
            LOG.warning("roce device " + key + ": a send to " + peer.getHostAddress() + " failed (" + e
                + "); such packets count as lost (later failures are counted, not logged)");
        } else {
            LOG.log(Level.FINE, "roce send to " + peer + " failed", e);
        }
    }

    private void sendMad(Gid destination, ByteBuffer mad) {
        int at = GsiPacket.begin(encoder, gsiOut, 0, gsiPsn);
        gsiPsn = (gsiPsn + 1) & 0xFFFFFF;
        gsiOut.put(at, mad, 0, MadHeaderFlyweight.MAD_LENGTH);
        int length = encoder.finish();
        count(Counter.GSI_OUT);
        try {
            InetAddress to = addressOf(destination);
            Probe p = probes.get(to);
            int from;
            if (p != null && link instanceof UdpLink u) {
                u.sendVia(p.channel, to, gsiOut, 0, length);
                from = ((InetSocketAddress) p.channel.getLocalAddress()).getPort();
            } else {
                if (!link.send(to, GsiPacket.RXE_SOURCE_PORT, gsiOut, 0, length)) {
                    return; // the link did not take it (counted there): lost
                }
                from = link.sentSourcePort(GsiPacket.RXE_SOURCE_PORT);
            }
            count(Counter.PACKETS_OUT);
            if (pcap != null) {
                pcap.packet(address, from, to, link.peerPort(), link.ipIdentification(true), gsiOut, 0, length);
            }
        } catch (IOException e) {
            sendFailed(addressOf(destination), e);
        }
    }

    /** Said once per device, at its first packet dropped for its ICRC (a peer that cannot be heard is otherwise silent). */
    String icrcMessage() {
        String m = "roce device " + key + ": dropping packets whose ICRC does not match";
        if (!link.icrcExact()) {
            m += "; over IPv4 a UDP socket cannot see the IP identification the ICRC covers, so only jndk peers (which"
                + " compute it with identification 0) are heard: use IPv6 addresses, or icrc.ipv4=lenient to accept"
                + " such packets unchecked";
        }
        return m;
    }

    int allocateQpn() {
        for (int i = 0; i < 1 << 24; i++) {
            int q = nextQpn;
            nextQpn = nextQpn + 1 > 0xFFFFFF ? 0x11 : nextQpn + 1;
            if (!qps.containsKey(q) && !reservedQpns.contains(q)) {
                return q;
            }
        }
        throw new IllegalStateException("no free QPN");
    }

    /**
     * Out-of-band extension: a QP number and a PSN for a connection without the CM, reserved on the engine (a
     * command it runs at once; the caller waits for it, never for the network).
     *
     * @throws IllegalStateException when the engine did not answer within 2 s (the device closed, or is stopped);
     *     a reservation made after that is given back
     */
    io.jndk.api.NdkOutOfBandEndpoint reserveOutOfBand() {
        java.util.concurrent.CompletableFuture<io.jndk.api.NdkOutOfBandEndpoint> f = new java.util.concurrent.CompletableFuture<>();
        execute(() -> {
            int qpn = allocateQpn();
            reservedQpns.add(qpn);
            f.complete(new io.jndk.api.NdkOutOfBandEndpoint(qpn, newPsn(), gid.octets(), mtu));
        });
        try {
            return f.get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            giveBackLate(f);
            throw new IllegalStateException("interrupted while roce device " + key + " reserved a QPN", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            giveBackLate(f);
            throw new IllegalStateException("roce device " + key + " did not reserve a QPN within 2 s", e);
        }
    }

    /** A reservation its caller stopped waiting for is released when (if ever) the engine makes it. */
    private void giveBackLate(java.util.concurrent.CompletableFuture<io.jndk.api.NdkOutOfBandEndpoint> f) {
        f.thenAccept(e -> releaseOutOfBand(e.qpn())); // a command: the engine owns reservedQpns
    }

    void releaseOutOfBand(int qpn) {
        execute(() -> reservedQpns.remove(qpn));
    }

    /** Engine: a connection without the CM on reserved numbers: it stands at once (the consumer completes it next). */
    private void startOutOfBand(InetSocketAddress source, InetSocketAddress destination, ConnectRequest request,
            ActiveHandler handler) {
        ConnectRequest.OutOfBand o = request.outOfBand();
        if (!reservedQpns.remove(o.localQpn()) || qps.containsKey(o.localQpn())) {
            handler.onFailed(NtStatus.STATUS_INVALID_DEVICE_STATE, io.jndk.api.ConnectFailure.Reason.PROTOCOL_ERROR,
                "QP number 0x" + Integer.toHexString(o.localQpn()) + " is not reserved on this device");
            return;
        }
        RoceQp q = new RoceQp(this, true, o.localQpn(), source, destination);
        q.activeHandler = handler;
        q.outOfBand = o;
        qps.put(q.qpn, q);
        live.add(q);
        handler.onReply(q, q.local, new byte[0], request.inboundReadLimit(), request.outboundReadLimit());
    }

    int newPsn() {
        return random.nextInt(1 << 24);
    }

    void forget(RoceQp q) {
        settled(q);
        if (qps.get(q.qpn) == q) {
            qps.remove(q.qpn);
            if (live.remove(q)) {
                q.addRcCounters(rcEnded); // the device's RC counters keep what its ended QPs did
            }
        }
        if (q.cm != null) {
            byCm.remove(q.cm);
        }
        connecting.remove(q);
        readySet.remove(q);
        ready.remove(q);
    }

    // ---- connection set-up (engine thread) ----------------------------------------------------

    /** The connection request of {@code q} is answered (or given up): its probe is not needed for it any more. */
    private void settled(RoceQp q) {
        if (!q.active) {
            return;
        }
        Probe p = probes.get(q.peer);
        if (p != null && p.waiting.remove(q) && p.waiting.isEmpty()) {
            closeProbe(q.peer);
        }
    }

    private void startConnect(InetSocketAddress source, InetSocketAddress destination, ConnectRequest request,
            ActiveHandler handler) {
        int qpn = allocateQpn();
        RoceQp q = new RoceQp(this, true, qpn, source, destination);
        q.activeHandler = handler;
        q.cm = cm.newConnection(this::onCmEvent);
        qps.put(qpn, q);
        live.add(q);
        byCm.put(q.cm, q);
        if (link instanceof UdpLink u) {
            Probe p = probes.get(q.peer);
            if (p == null) {
                try {
                    p = new Probe(u.openProbe(q.peer));
                    probes.put(q.peer, p);
                } catch (IOException e) {
                    forget(q);
                    handler.onFailed(NtStatus.STATUS_HOST_UNREACHABLE, io.jndk.api.ConnectFailure.Reason.UNREACHABLE,
                        "no route to " + q.peer.getHostAddress() + ": " + e.getMessage());
                    return;
                }
            }
            p.waiting.add(q);
        }
        int psn = newPsn();
        lastSendFailure = null;
        CmStatus s = q.cm.connect(new ConnectParams(gidOf(destination.getAddress()), source.getPort(),
            destination.getPort(), qpn, psn, Math.min(255, request.inboundReadLimit()),
            Math.min(255, request.outboundReadLimit()), request.privateData()));
        IOException unsent = lastSendFailure;
        if (s == CmStatus.OK && unsent != null) { // the REQ could not leave: the consumer hears it now
            forget(q);
            q.cm.close();
            handler.onFailed(NtStatus.STATUS_HOST_UNREACHABLE, io.jndk.api.ConnectFailure.Reason.UNREACHABLE,
                "no route to " + q.peer.getHostAddress() + ": " + unsent.getMessage());
            return;
        }
        if (s != CmStatus.OK) {
            forget(q);
            handler.onFailed(status(s));
            return;
        }
        q.receivePsn = psn;
        q.connectDeadline = System.nanoTime() + Math.max(1, request.timeoutMillis()) * 1_000_000;
        armed(q.connectDeadline);
        connecting.add(q);
    }

    static int status(CmStatus s) {
        return switch (s) {
            case OK -> NtStatus.STATUS_SUCCESS;
            case INVALID_BUFFER_SIZE -> NtStatus.STATUS_INVALID_BUFFER_SIZE;
            case INVALID_PARAMETER -> NtStatus.STATUS_INVALID_PARAMETER;
            case INVALID_STATE -> NtStatus.STATUS_CONNECTION_INVALID;
            case INSUFFICIENT_RESOURCES -> NtStatus.STATUS_INSUFFICIENT_RESOURCES;
            case ADDRESS_IN_USE -> NtStatus.STATUS_SHARING_VIOLATION;
        };
    }

    /** Engine: the provider started the active side: RTU, then data. */
    void completeActive(RoceQp q, QpPort port) {
        ConnectRequest.OutOfBand o = q.outOfBand;
        if (o != null) { // no CM: perftest's ctx_connect semantics, each side sends with its own PSN
            int pathMtu = Math.min(mtu, o.mtu());
            q.build(port, pathMtu, o.remoteQpn(), o.sendPsn(), o.receivePsn());
            q.established();
            ready(q);
            return;
        }
        ConnectReply r = q.reply;
        if (q.abandoned || r == null || q.cm.complete(null) != CmStatus.OK) {
            q.abandoned = true;
            port.failed(NtStatus.STATUS_CONNECTION_ABORTED, 0, false, io.jndk.api.DisconnectReason.CONNECTION_RESET);
            q.end(false);
            return;
        }
        q.build(port, mtu, r.remoteQpn(), r.startingPsn(), q.receivePsn); // as Linux's ib_cm: each side sends with its peer's Starting PSN
        ready(q);
    }

    /** Engine: accepts a request with {@code port}. */
    void accept(RoceIncoming request, byte[] privateData, int ird, int ord, QpPort port,
            io.jndk.provider.spi.PassiveHandler handler, long acceptTimeoutMillis) {
        IncomingConnect ic = request.connect;
        if (request.connection.state() != CmState.REQ_RECEIVED) {
            handler.onFailed(NtStatus.STATUS_CONNECTION_ABORTED);
            return;
        }
        int qpn = allocateQpn();
        RoceQp q = new RoceQp(this, false, qpn, request.local(), request.remote());
        q.passiveHandler = handler;
        q.cm = request.connection;
        int psn = newPsn();
        int pathMtu = Math.min(mtu, RoceOptions.mtuSize(ic.pathMtu()));
        q.build(port, pathMtu, ic.remoteQpn(), ic.startingPsn(), psn); // sends with the REQ's PSN, expects the REP's
        qps.put(qpn, q);
        live.add(q);
        byCm.put(q.cm, q);
        CmStatus s = q.cm.accept(new io.jndk.roce.cm.AcceptParams(qpn, psn, Math.min(255, ird), Math.min(255, ord),
            privateData));
        if (s != CmStatus.OK) {
            forget(q);
            q.end(false);
            handler.onFailed(status(s));
            return;
        }
        q.connectDeadline = System.nanoTime() + acceptTimeoutMillis * 1_000_000;
        armed(q.connectDeadline);
        connecting.add(q);
    }

    /** Engine: the passive consumer gave up an accepted connection that is not established yet. */
    void abandon(CmConnection c) {
        if (c.state() == CmState.ESTABLISHED) {
            return;
        }
        RoceQp q = byCm.get(c);
        c.close();
        if (q != null) {
            forget(q);
            q.abort(0);
        }
    }

    private void onCmEvent(CmEvent e) {
        CmConnection c = e.connection();
        RoceQp q = byCm.get(c);
        switch (e) {
            case CmEvent.RequestReceived rr -> {
                RoceTransport.Listening l = listeners.get(rr.request().destinationPort());
                if (l == null) {
                    c.reject(null);
                    return;
                }
                l.handler().onRequest(new RoceIncoming(this, c, rr.request(), l.owner().acceptTimeoutMillis()));
            }
            case CmEvent.ReplyReceived rep -> {
                if (q == null) {
                    c.reject(null);
                    return;
                }
                connecting.remove(q);
                settled(q);
                q.reply = rep.reply();
                ConnectReply r = rep.reply();
                q.activeHandler.onReply(q, q.local, r.privateData(), r.responderResources(), r.initiatorDepth());
            }
            case CmEvent.Established est -> {
                if (q != null) {
                    connecting.remove(q);
                    q.established();
                    q.passiveHandler.onEstablished(q);
                }
            }
            case CmEvent.Rejected rej -> {
                if (q == null) {
                    return;
                }
                switch (rej.during()) {
                    case REQ_SENT -> {
                        forget(q);
                        connecting.remove(q);
                        if (rej.reason() == 28) {
                            q.activeHandler.onRejected(rej.privateData());
                        } else {
                            q.activeHandler.onFailed(NtStatus.STATUS_CONNECTION_REFUSED, rej.reason() == 8
                                ? io.jndk.api.ConnectFailure.Reason.NO_LISTENER : io.jndk.api.ConnectFailure.Reason.REJECTED,
                                "the peer refused the connection (CM REJ reason " + rej.reason() + ")");
                        }
                    }
                    case REP_RECEIVED -> q.abandoned = true;
                    case REP_SENT, REQ_RECEIVED -> {
                        forget(q);
                        q.end(false);
                        q.passiveHandler.onFailed(NtStatus.STATUS_CONNECTION_ABORTED);
                    }
                    default -> q.peerEnded(false);
                }
            }
            case CmEvent.TimedOut to -> {
                if (q == null) {
                    return;
                }
                forget(q);
                if (to.during() == CmState.REQ_SENT) {
                    connecting.remove(q);
                    q.activeHandler.onFailed(NtStatus.STATUS_IO_TIMEOUT);
                } else if (q.passiveHandler != null) {
                    q.end(false);
                    q.passiveHandler.onFailed(NtStatus.STATUS_IO_TIMEOUT);
                }
            }
            case CmEvent.Disconnected d -> {
                if (q == null) {
                    return;
                }
                if (!q.running()) {
                    q.abandoned = true;
                } else {
                    q.peerEnded(d.cause() != io.jndk.roce.cm.DisconnectCause.RESET);
                }
            }
            case CmEvent.TimewaitExit t -> {
                if (q != null) {
                    q.end(false);
                    forget(q);
                }
            }
        }
    }
}
