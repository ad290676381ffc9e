package io.jndk.iwarp.transport;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.MpaNegotiated;
import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.iwarp.codec.TerminateFlyweight;
import io.jndk.iwarp.pcap.PcapWriter;
import io.jndk.iwarp.transport.ConnectionState.Phase;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.EngineThread;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The iWARP stream engine of one connection: an RDMAP/DDP/MPA byte stream over a {@link SocketChannel}, driven by
 * one transmit and one receive thread (platform threads by default, virtual threads with the
 * {@code threads=virtual} option; see {@link EngineMode}). The channel is blocking, except in polling mode, where it
 * is non-blocking and the threads wait for readiness on a selector each.
 *
 * <p><b>Transmit side.</b> Whoever holds the transmit side ({@link TxEngine}) makes every TX-side call into the {@link QpPort}
 * ({@code nextRequest}, {@code sent}), so they never race: the transmit thread, or in polling mode a posting
 * thread that found the transmit side free (caller-runs). The single final {@code failed} call is the transmit
 * thread's. Each turn: one queued inbound Read Response, then one initiator request; a recorded failure first
 * stops the thread (its Terminate, if any, goes out at an FPDU boundary). An FPDU with up to
 * {@link TxBatch#STAGED_PAYLOAD} payload octets is copied into one buffer; a larger one's payload is written straight from
 * its memory, all in gathering writes of whole batches. Outside polling mode posting threads only {@link #kick()}:
 * a flag plus {@code unpark}. In polling mode an engine thread posting from an inline notification never waits
 * for the socket ({@link TxEngine}). No provider lock is held across socket I/O.
 *
 * <p><b>Receive thread.</b> Reads into a direct buffer and feeds the resumable {@link FpduDecoder};
 * tagged payload is placed straight through the provider's {@link BufferCursor}. In polling mode it may spin for
 * input before it waits, and it stands by while consumers polling the QP's CQs run the receive side themselves
 * ({@link #progress}); whoever holds {@link #rxOwner} makes every RX-side call
 * ({@code writeTarget}, {@code readSource}, {@code beginReceive}, {@code endReceive}, {@code failReceive},
 * {@code readDone}: a Read completes where its response's last octet is placed, with no hand-off)
 * and {@code peerClosed}. A protocol error builds the Terminate here and hands it to the transmit thread.
 *
 * <p><b>Queues.</b> The outbound and inbound read queues (ORQ, IRQ) are preallocated rings in {@link ReadQueues}.
 *
 * <p><b>Lifecycle.</b> Both threads start in {@link #begin}. The one that ends last closes the channel.
 * After a failure a guard closes the channel if the peer does not close within {@link #LINGER_MILLIS}.
 */
public final class IwarpConnection implements WireConnection {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(IwarpConnection.class.getName());


    /** Bound on how long a failed connection waits for its Terminate to drain and the peer to close. */
    static final long LINGER_MILLIS = 2_000;
    private static final int RX_BUFFER = 64 * 1024;
    /**
     * Polling mode: the receive thread stands by for a consumer that is polling a CQ of this connection right now
     * (its last poll at most this long ago, and no CQ armed within {@link #SLICE_NANOS})...
     */
    static final long CONSUMER_ACTIVE_NANOS = 50_000;
    /**
     * ...and goes on standing by, one slice of this length at a time, while the consumers poll at least
     * {@link #SLICE_POLLS} times a slice; fewer (a consumer that stopped, or polls only now and then) and it takes
     * the receive side back. Arming one of the connection's CQs ends the stand-by at once.
     */
    static final long SLICE_NANOS = 1_000_000;
    /** See {@link #SLICE_NANOS}: polls a slice that keep the receive thread standing by (one per 31 µs). */
    static final int SLICE_POLLS = 32;
    /**
     * Polling mode: the longest the receive thread stands by while consumers drive; it then reads once itself
     * (a backstop: a consumer's step that meets the end of the stream or an error already hands it over at once).
     */
    static final long STANDBY_NANOS = 50_000_000;
    /** Reads one {@link #progress} call takes at most while input is there. */
    private static final int PROGRESS_READS = 4;
    /** Outcome of one receive step: something was read, nothing was there (non-blocking), the stream ended. */
    private static final int STEP_READ = 1, STEP_IDLE = 0, STEP_END = -1;
    /** A selection action that does nothing: waiting is all a selector is for here (and it adds no keys). */
    private static final java.util.function.Consumer<SelectionKey> IGNORE_KEY = ConsumerDrive.IGNORE_KEY;

    private final EngineMode engine;
    /** The role, set at construction. */
    private final boolean active;
    final SocketChannel channel;
    private final MpaNegotiated negotiated;
    private final int segmentLength;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    final ConnectionCapture capture;
    private final ByteBuffer surplus;
    /** The STag this side's Read Requests name as their sink (random, so that a stray response is refused). */
    final int sinkStag;

    private volatile QpPort qp;
    private volatile PassiveHandler passiveHandler;
    /** The receive thread is in (or about to enter) a read straight into consumer memory. */
    private volatile boolean directRead;
    /**
     * Held by whichever thread runs the receive side: the receive thread (from the start, and for good once it
     * ends), or in polling mode a consumer's {@link #progress} call while the receive thread stands by.
     */
    private final AtomicBoolean rxOwner = new AtomicBoolean(true);
    /** When a consumer last asked for receive progress ({@link System#nanoTime}); 0: never, or since armed. */
    private volatile long consumerPolled;
    /** Consumer polls so far (racy increments: an estimate of the rate is all it is for). */
    private volatile int consumerPolls;
    /** When a CQ of this connection was last armed ({@link System#nanoTime}). */
    private volatile long consumerArmed = System.nanoTime() - SLICE_NANOS;
    /** {@link #consumerPolls} when a consumer last woke the receive thread out of its selector. */
    private volatile int pollsAtWake;
    /** Polling mode: the receive thread is waiting for input in its selector. */
    private volatile boolean rxSelecting;
    /** A consumer's step met the end of the stream or an error: the receive thread takes over at once. */
    private volatile boolean rxHandoff;
    private volatile Thread rxThread;
    private volatile Rx rx;
    private volatile TxEngine tx;
    /** The ORQ and IRQ, sized from the QP's limits in {@link #begin} (before the threads start). */
    private ReadQueues queues;
    /** The lifecycle: establishment phase, failure, close, and the one-shot flags of the end. */
    final ConnectionState state = new ConnectionState();
    /** Polling mode (a no-op in the other modes); its state exists from the start, its selectors from begin. */
    final ConsumerDrive drive;
    private Runnable onClose = () -> { };
    private final WireCounters counters = new WireCounters();

    /**
     * @param active whether this is the initiator's side
     * @param channel the connected channel (blocking), after MPA setup
     * @param negotiated the MPA outcome
     * @param surplus FPDU octets already read behind the MPA frame (position 0)
     * @param mss the configured maximum FPDU size (rounded down to a multiple of 8 here)
     * @param capture where frames are captured, or {@code null}
     * @param engine threads and waiting strategy
     */
    IwarpConnection(boolean active, SocketChannel channel, MpaNegotiated negotiated, ByteBuffer surplus, int mss,
                    PcapWriter.TcpStream capture, EngineMode engine) {
        this.engine = engine;
        this.active = active;
        this.channel = channel;
        this.negotiated = negotiated;
        this.surplus = surplus;
        this.segmentLength = mss & ~7;
        this.local = negotiated.localAddress();
        this.remote = negotiated.remoteAddress();
        this.capture = ConnectionCapture.of(capture, active);
        this.sinkStag = ThreadLocalRandom.current().nextInt(1, 1 << 24) << 8;
        this.drive = new ConsumerDrive(engine, state);
    }

    void onClose(Runnable action) {
        this.onClose = action;
    }

    /** @return the MPA outcome this connection runs on */
    public MpaNegotiated negotiated() {
        return negotiated;
    }

    /** @return the FPDU size limit in use */
    public int segmentLength() {
        return segmentLength;
    }

    /** @return whether the channel has been closed */
    public boolean isClosed() {
        return state.isClosed();
    }

    /**
     * Waits until the channel is closed and both threads have ended (for tests and adapter shutdown).
     *
     * @param millis upper bound
     * @return whether it closed in time
     * @throws InterruptedException if interrupted
     */
    public boolean awaitClosed(long millis) throws InterruptedException {
        return state.awaitClosed(millis);
    }

    // ---- WireConnection ---------------------------------------------------------------------------------

    @Override
    public void start(QpPort port) {
        if (!active) {
            throw new IllegalStateException("start is for the active side");
        }
        begin(port, null);
    }

    /** Passive side: binds the QP, starts the threads; the TX side stays silent until the first FPDU. */
    void beginPassive(QpPort port, PassiveHandler handler) {
        begin(port, handler);
    }

    private void begin(QpPort port, PassiveHandler handler) {
        // the active side is established at once; a passive one when the initiator's first FPDU arrives, or (no
        // ready-to-receive frame announced) at once, but silent until that FPDU
        Phase to = active ? Phase.ESTABLISHED : negotiated.expectsRtr() ? Phase.AWAITING_PEER : Phase.OUTPUT_HELD;
        if (!state.advance(Phase.NEW, to)) {
            throw new IllegalStateException("already started");
        }
        this.qp = port;
        this.passiveHandler = handler;
        queues = new ReadQueues(port);
        if (!drive.open(channel)) {
            closeChannel();
        }
        if (state.isClosed()) {
            counters.retire();
            drive.close();
            state.threadsDone();
            return;
        }
        state.threadsStarting(2);
        String name = "iwarp-" + local.getPort() + "-" + remote.getPort();
        TxEngine transmitter = new TxEngine(this, port, queues);
        this.tx = transmitter;
        transmitter.start(engine.thread(name + "-tx", transmitter));
        Rx receiver = new Rx();
        this.rx = receiver;
        Thread r = engine.thread(name + "-rx", receiver);
        rxThread = r;
        r.start();
        if (to == Phase.OUTPUT_HELD) {
            handler.onEstablished(this);
        }
    }

    /**
     * Passive side: waits for the first FPDU up to {@code millis}; on timeout the handler hears
     * {@code STATUS_IO_TIMEOUT} and the connection closes.
     */
    void awaitEstablished(long millis) {
        boolean done;
        try {
            done = state.awaitSettled(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done = false;
        }
        if (!done) {
            failPassive(NtStatus.STATUS_IO_TIMEOUT);
        }
    }

    @Override
    public void reject() {
        state.closeLocally();
        state.endReportNotNeeded();
        closeChannel();
    }

    /**
     * New work from the posting thread. In polling mode the poster sends it itself when no other thread is
     * transmitting (the caller-runs path); otherwise, and always in blocking mode, the transmit thread is woken.
     */
    @Override
    public void kick() {
        TxEngine t = tx;
        if (t != null) {
            t.kick();
        }
    }

    @Override
    public boolean progressByPolling() {
        return engine.poll();
    }

    /**
     * Polling mode: consumer-driven receive. A consumer polling a CQ of this connection's QP calls this (through
     * the provider) on its own thread: when input is waiting and no other thread runs the receive side, it is
     * read and placed here, as the receive thread would (direct placement, completions, Terminates), so that a
     * polling consumer sees a Write land or a Send complete without waiting for the receive thread to wake. Never
     * blocks: it reads only what the socket already holds. The receive thread stands by while consumers keep
     * calling at a high rate (see {@link #SLICE_NANOS}, {@link #STANDBY_NANOS}). A call from any engine thread (a
     * notification callback running inline, on this connection's threads or another's) does nothing.
     *
     * @return {@link #PROGRESS_CLOSED} once the connection is closed (the caller may forget it), else the number
     *     of reads done (0: nothing waiting, or another thread runs the receive side)
     */
    @Override
    public int progress() {
        if (state.isClosed() || state.receiveEnded()) {
            return PROGRESS_CLOSED;
        }
        if (!engine.poll() || EngineThread.isEngineThread()) {
            return 0;
        }
        consumerPolled = System.nanoTime();
        int polls = ++consumerPolls;
        if (rxSelecting && polls - pollsAtWake >= SLICE_POLLS) {
            // the receive thread waits for input in its selector and would take the next message itself: wake it,
            // so that it sees a consumer polling often and stands by (once; it does not wait there meanwhile)
            pollsAtWake = polls;
            drive.wakeReceiver();
        }
        Rx r = rx;
        if (r == null || !rxOwner.compareAndSet(false, true)) {
            return 0;
        }
        int reads = 0;
        try {
            reads = r.consumerStep();
        } finally {
            rxOwner.set(false);
        }
        if (rxHandoff) {
            LockSupport.unpark(rxThread);
        }
        return reads;
    }

    @Override
    public void consumerArmed() {
        consumerArmed = System.nanoTime();
        if (consumerPolled != 0) {
            consumerPolled = 0; // notification-driven from now on: the receive thread reads, until polls come again
            wakeReceiver();
        }
    }

    /** Wakes the receive thread when it stands by for a polling consumer (a failure, a disconnect, the close). */
    void wakeReceiver() {
        Thread t = rxThread;
        if (t != null) {
            LockSupport.unpark(t);
        }
        drive.wakeReceiver();
    }

    /** Wakes the transmit thread (every engine-internal hand-off: never sends on the calling thread). */
    void wakeTransmitter() {
        TxEngine t = tx;
        if (t != null) {
            t.wake();
        }
    }

    @Override
    public void disconnect() {
        state.requestDisconnect();
        if (!state.started()) {
            reject();
            return;
        }
        wakeTransmitter();
        wakeReceiver();
    }

    @Override
    public void abort(int term) {
        state.endReportNotNeeded(); // the provider knows: no failed() back
        Failure f = new Terminates(new FpduEncoder(negotiated.crc())).sending(term, null);
        if (!state.started()) {
            reject();
            return;
        }
        fail(f);
    }

    @Override
    public void reset() {
        state.closeLocally();
        state.endReportNotNeeded();
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | RuntimeException ignored) {
            // already closed
        }
        closeChannel();
    }

    @Override
    public WireCounters counters() {
        return counters;
    }

    @Override
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public String toString() {
        return "IwarpConnection[" + (active ? "active " : "passive ") + local + " <-> " + remote
            + " " + state + "]";
    }

    // ---- shared helpers ---------------------------------------------------------------------------------

    /**
     * First failure wins; the TX thread acts on it. A receive thread blocked in a direct read into consumer memory
     * is woken at once (its input is shut down), so that nothing more lands in memory the consumer may now
     * deregister, invalidate or reuse; without one, the input stays open to drain until the peer closes.
     */
    void fail(Failure f) {
        if (state.record(f)) {
            if (directRead) {
                try {
                    channel.shutdownInput();
                } catch (IOException | RuntimeException ignored) {
                    // already closed
                }
            }
            guardClose();
            wakeTransmitter();
            wakeReceiver();
        }
    }

    /**
     * An engine thread's I/O failed (or the engine threw): the connection is reset, unless this side is closing it
     * anyway.
     */
    void resetAfterError() {
        if (!state.closingLocally() && !state.isClosed()) {
            fail(Failure.connectionReset());
        }
    }

    private void guardClose() {
        Thread.ofVirtual().name("iwarp-linger").start(() -> {
            try {
                if (!state.awaitCloseDone(LINGER_MILLIS)) {
                    closeChannel();
                }
            } catch (InterruptedException e) {
                closeChannel();
            }
        });
    }

    private void failPassive(int status) {
        if (!state.advance(Phase.AWAITING_PEER, Phase.ABANDONED)) {
            return; // the active side, or established already, or abandoned already
        }
        state.endReportNotNeeded();
        state.closeLocally();
        closeChannel();
        PassiveHandler h = passiveHandler;
        if (h != null) {
            h.onFailed(status);
        }
    }

    /**
     * The receive side met a frame header while not {@link Phase#ESTABLISHED}: the initiator's first FPDU. A passive
     * side that held its output lets it go; one that awaited the initiator is established now and tells its handler.
     *
     * @return false when the passive side was abandoned already (decoding stops)
     */
    private boolean firstFrameArrived() {
        Phase p = state.phase();
        if (p == Phase.OUTPUT_HELD) {
            state.advance(Phase.OUTPUT_HELD, Phase.ESTABLISHED);
            wakeTransmitter();
            return true;
        }
        if (p == Phase.AWAITING_PEER && state.advance(Phase.AWAITING_PEER, Phase.ESTABLISHED)) {
            passiveHandler.onEstablished(this);
            wakeTransmitter();
            return true;
        }
        return false;
    }

    void threadExit() {
        if (state.threadEnded()) {
            counters.retire();
            closeChannel();
            drive.close();
            state.threadsDone();
        }
    }

    void closeChannel() {
        if (state.close()) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
            capture.localFin();
            onClose.run();
            state.closeDone();
            wakeTransmitter();
            wakeReceiver();
            drive.wakeTransmitter();
        }
    }

    // ---- receive ----------------------------------------------------------------------------------------

    /** The receive thread and the decoder's listener. */
    private final class Rx implements Runnable, FpduListener {
        private final FpduDecoder decoder = new FpduDecoder(this, negotiated.crc());
        private final Terminates terminates = new Terminates(new FpduEncoder(negotiated.crc()));
        private final BufferCursor[] out = new BufferCursor[1];
        /** The socket's input stream, for {@code available()} (FIONREAD; it takes no read lock); null if closed. */
        private final java.io.InputStream input;
        private boolean draining;
        /** A consumer's {@link #progress} call is running the receive side now. */
        private boolean consumerStepping;

        Rx() {
            java.io.InputStream in = null;
            try {
                in = channel.socket().getInputStream();
            } catch (IOException e) {
                // closed already: the receive thread ends at once (and never spins on available())
            }
            input = in;
        }

        // current FPDU
        private RdmapOpcode opcode;
        private BufferCursor target;
        private long placeOffset;
        private boolean placeFailed;
        // untagged receive context (QN 0)
        private int expectedSendMsn = 1;
        private BufferCursor receive;
        private long received;
        // inbound read request (QN 1)
        private int expectedReadMsn = 1;
        // read response context
        private long responseReceived;
        /** The read being completed, handed to the QP (its ORQ place is freed after it completes). */
        private final WireRequest doneRead = new WireRequest();

        /** Where the stream is read into when it is not placed directly. */
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(RX_BUFFER);

        @Override
        public void run() {
            EngineThread deferred = EngineThread.enter();
            try {
                if (surplus != null && surplus.hasRemaining()) {
                    capture.inbound(surplus, surplus.position(), surplus.remaining());
                    consume(surplus);
                }
                boolean readOwed = false;
                while (!state.isClosed()) {
                    deferred.runPending(); // notifications of what the last read completed, outside every lock
                    Thread.interrupted(); // a callback's interrupt would make every wait return at once
                    if (!readOwed && consumerDriving()) {
                        standBy();
                        readOwed = true; // one read of its own after each stand-by (an orderly close, a lull)
                        continue;
                    }
                    readOwed = false;
                    int r = step(true);
                    if (r == STEP_END) {
                        return;
                    }
                    if (r == STEP_IDLE) {
                        awaitReadable();
                    }
                }
            } catch (IOException | RuntimeException e) {
                broke(e);
            } finally {
                // a Send in progress when the stream ends for any reason (a local abort included, which reports
                // nothing back) completes its receive: the request it took from the receive queue is not flushed
                abandonReceive();
                deferred.runPending();
                state.rxEnded();
                wakeTransmitter();
                threadExit();
            }
        }

        /**
         * One read (straight into a target, or into the buffer) and everything it completes.
         *
         * @param engineThread the receive thread (it handles the end of the stream); false for a consumer's step
         * @return {@link #STEP_READ}, {@link #STEP_IDLE} (polling mode: nothing to read now) or {@link #STEP_END}
         */
        private int step(boolean engineThread) throws IOException {
            int direct = placeDirect();
            if (direct != PLACE_BUFFERED) {
                return direct;
            }
            buffer.clear();
            if (largeFrames) {
                // after a large frame, take just the next header so that its payload can go straight
                // into its target instead of through this buffer; a payload that is not placed directly
                // (too little left after its header, no target) is taken whole, not a header's worth at a time
                buffer.limit(Math.min(buffer.capacity(), HEADER_READ + decoder.payloadRemaining()));
            }
            int n = channel.read(buffer);
            if (n < 0) {
                if (engineThread) {
                    capture.peerFin();
                    endOfStream();
                }
                return STEP_END;
            }
            if (n == 0) {
                return STEP_IDLE; // non-blocking (polling mode): nothing there yet
            }
            buffer.flip();
            capture.inbound(buffer, 0, n);
            consume(buffer);
            return STEP_READ;
        }

        /** A read failed (or the engine threw): the connection is reset, unless it is already going down. */
        private void broke(Exception e) {
            if (e instanceof RuntimeException) {
                LOG.log(java.util.logging.Level.WARNING, "iWARP receive engine failed; resetting the connection", e);
            }
            if (!state.closingLocally() && state.failure() == null && !state.isClosed()) {
                if (!state.established()) {
                    failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
                } else {
                    abandonReceive();
                    fail(Failure.connectionReset());
                }
            }
        }

        /**
         * A consumer's {@link #progress} call, holding {@link #rxOwner}: the reads the socket can serve now, at most
         * {@link #PROGRESS_READS}. The end of the stream and errors are left to the receive thread (woken by the
         * caller), which reports them as it always does.
         */
        int consumerStep() {
            int reads = 0;
            consumerStepping = true;
            try {
                while (reads < PROGRESS_READS && !state.isClosed() && !rxHandoff) {
                    int r = step(false);
                    if (r == STEP_IDLE) {
                        break;
                    }
                    reads++;
                    if (r == STEP_END) {
                        rxHandoff = true;
                    }
                }
            } catch (IOException | RuntimeException e) {
                rxHandoff = true;
                broke(e);
            } finally {
                consumerStepping = false;
            }
            return reads;
        }

        /**
         * Polling mode: whether a consumer polls now (its last poll within {@link #CONSUMER_ACTIVE_NANOS}) and armed
         * none of the connection's CQs lately (within {@link #SLICE_NANOS}): a consumer that arms waits for
         * notifications, and its polls (once or twice per notification) must not keep the receive thread away.
         */
        private boolean consumerDriving() {
            long polled = consumerPolled;
            long now = System.nanoTime();
            return engine.poll() && polled != 0 && now - polled < CONSUMER_ACTIVE_NANOS
                && now - consumerArmed >= SLICE_NANOS && !rxHandoff && state.failure() == null
                && !state.disconnectRequested()
                && !draining;
        }

        /**
         * Lets polling consumers run the receive side: parks (not in a read, so arriving input wakes nobody) while
         * they keep polling at a high rate, for at most {@link #STANDBY_NANOS}, until a CQ is armed, or until a
         * failure, a disconnect, the close or a consumer's hand-off; then takes the receive side back.
         */
        private void standBy() {
            long since = System.nanoTime();
            rxOwner.set(false);
            try {
                long sliceStart = since;
                int before = consumerPolls;
                while (!state.isClosed() && !rxHandoff && state.failure() == null && !state.disconnectRequested()
                    && consumerPolled != 0 && System.nanoTime() - since < STANDBY_NANOS) {
                    LockSupport.parkNanos(this, SLICE_NANOS - (System.nanoTime() - sliceStart));
                    long now = System.nanoTime();
                    if (now - sliceStart < SLICE_NANOS) {
                        continue; // woken early (an unpark meant for another moment): the slice goes on
                    }
                    int polls = consumerPolls;
                    if (polls - before < SLICE_POLLS) {
                        break;
                    }
                    sliceStart = now;
                    before = polls;
                }
            } finally {
                while (!rxOwner.compareAndSet(false, true)) {
                    Thread.yield(); // a consumer's step is short and never waits for input
                }
                rxHandoff = false;
            }
        }

        private void endOfStream() {
            if (draining || state.failure() != null || state.closingLocally()) {
                return;
            }
            if (!state.established()) {
                failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
                return;
            }
            abandonReceive();
            if (state.disconnectRequested()) {
                return;
            }
            if (!decoder.atFrameBoundary()) {
                // the stream ended inside an FPDU: the connection was lost (RFC 5044), not closed in order
                fail(Failure.connectionReset());
                return;
            }
            if (state.claimEndReport()) {
                qp.peerClosed();
            }
        }

        private void consume(ByteBuffer chunk) {
            if (!draining && state.failure() != null) {
                draining = true; // a local abort: nothing more is placed
            }
            if (draining) {
                return;
            }
            FpduError error = decoder.feed(chunk);
            if (error == FpduError.NONE) {
                return;
            }
            draining = true;
            if (error == FpduError.CRC_MISMATCH) {
                counters.crcError();
            }
            if (error == FpduError.STOPPED) {
                return; // a listener callback recorded the failure already
            }
            if (!state.established()) {
                failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
                return;
            }
            abandonReceive();
            fail(terminates.answering(error, decoder));
        }

        /**
         * Polling mode (non-blocking channel), nothing to read: spins for input for the engine's spin time, if any,
         * then waits until the socket is readable (or the selector is woken: close, failure).
         */
        private void awaitReadable() throws IOException {
            long spin = engine.spinNanos();
            if (spin > 0 && input != null) {
                long end = System.nanoTime() + spin;
                while (input.available() == 0 && System.nanoTime() - end < 0 && !state.isClosed()) {
                    Thread.onSpinWait();
                }
                if (input.available() > 0) {
                    return;
                }
            }
            if (!state.isClosed()) {
                rxSelecting = true;
                try {
                    drive.rxSelector().select(IGNORE_KEY, 0);
                } finally {
                    rxSelecting = false;
                }
            }
        }

        /** A Send in progress when the connection breaks completes its receive in error. */
        private void abandonReceive() {
            if (receive != null) {
                receive = null;
                qp.failReceive(NtStatus.STATUS_CANCELLED, 0);
            }
        }

        /** A check failed on the current FPDU: Terminate (attachments per IWARP.md 3.8), stop decoding. */
        private void protocolError(int term, FpduHeaderView header) {
            Failure f = terminates.sending(term, header);
            if (receive != null) {
                receive = null;
                qp.failReceive(NtStatus.STATUS_CANCELLED, term);
            }
            fail(f);
            decoder.stop();
        }

        @Override
        public void onHeader(FpduHeaderView h) {
            counters.fpduIn();
            if (consumerStepping) {
                counters.fpduInPolled();
            }
            if (state.phase() != Phase.ESTABLISHED && !firstFrameArrived()) {
                decoder.stop(); // an abandoned passive side
                return;
            }
            opcode = h.opcode();
            target = null;
            placeOffset = 0;
            placeFailed = false;
            int length = h.payloadLength();
            switch (opcode) {
                case RDMA_WRITE -> {
                    if (length > 0) {
                        int term = qp.writeTarget(h.stag(), h.taggedOffset(), length, out);
                        if (term != 0) {
                            protocolError(term, h);
                            return;
                        }
                        target = out[0];
                    }
                }
                case RDMA_READ_RESPONSE -> {
                    if (queues.orqEmpty()) {
                        protocolError(Term.DDP_CATASTROPHIC, h);
                        return;
                    }
                    WireRequest head = queues.orqHead();
                    if (h.stag() != sinkStag) {
                        protocolError(Term.DDP_TAGGED_INVALID_STAG, h);
                        return;
                    }
                    if (h.taggedOffset() != responseReceived || responseReceived + length > head.length) {
                        protocolError(Term.DDP_TAGGED_BASE_BOUNDS, h);
                        return;
                    }
                    if (length > 0) {
                        target = head.local;
                        placeOffset = responseReceived;
                    }
                }
                case RDMA_READ_REQUEST -> onReadRequest(h);
                case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE -> onSendHeader(h, length);
                case TERMINATE -> {
                    TerminateFlyweight t = h.terminate();
                    int term = Term.of(t.layer(), t.errorType(), t.errorCode());
                    abandonReceive();
                    fail(Failure.terminateReceived(term));
                    decoder.stop();
                }
            }
        }

        private void onReadRequest(FpduHeaderView h) {
            if (h.msn() != expectedReadMsn) {
                protocolError(Term.DDP_UNTAGGED_INVALID_MSN, h);
                return;
            }
            if (queues.irqFull()) {
                protocolError(Term.RDMAP_CATASTROPHIC_STREAM, h);
                return;
            }
            ReadRequestFlyweight rr = h.readRequest();
            long size = rr.readSize() & 0xFFFF_FFFFL;
            BufferCursor source = null;
            if (size > 0) {
                int term = qp.readSource(rr.sourceStag(), rr.sourceTaggedOffset(), size, out);
                if (term != 0) {
                    protocolError(term, h);
                    return;
                }
                source = out[0];
            }
            ReadQueues.InboundRead slot = queues.irqReserve();
            slot.sinkStag = rr.sinkStag();
            slot.sinkTo = rr.sinkTaggedOffset();
            slot.length = size;
            slot.source = source;
        }

        private void onSendHeader(FpduHeaderView h, int length) {
            if (h.msn() != expectedSendMsn) {
                protocolError(Term.DDP_UNTAGGED_INVALID_MSN, h);
                return;
            }
            long mo = h.messageOffset() & 0xFFFF_FFFFL;
            if (receive == null) {
                if (mo != 0) {
                    protocolError(Term.DDP_UNTAGGED_INVALID_MO, h);
                    return;
                }
                int term = qp.beginReceive(out);
                if (term != 0) {
                    protocolError(term, h);
                    return;
                }
                receive = out[0];
                received = 0;
            } else if (mo != received) {
                protocolError(Term.DDP_UNTAGGED_INVALID_MO, h);
                return;
            }
            if (received + length > receive.length()) {
                receive = null;
                qp.failReceive(NtStatus.STATUS_BUFFER_OVERFLOW, Term.DDP_UNTAGGED_TOO_LONG);
                protocolError(Term.DDP_UNTAGGED_TOO_LONG, h);
                return;
            }
            if (length > 0) {
                target = receive;
                placeOffset = received;
            }
        }

        /** {@link #placeDirect}: the payload is not for a direct read; the buffered read takes what comes. */
        private static final int PLACE_BUFFERED = -2;

        /** Payloads at least this large are read straight into their target. */
        private static final int DIRECT_PLACEMENT_MIN = 8192;
        /** Read size while large frames arrive: a whole header, a little payload at most. */
        private static final int HEADER_READ = 64;
        /** What a direct read takes beyond the payload: pad and CRC (at most 7 octets), then a header's worth. */
        private static final int READ_AHEAD = 8 + HEADER_READ;
        /** Whether the last frame carried a payload worth placing directly. */
        private boolean largeFrames;

        /** Views of the current target for direct placement (and one more place for the read-ahead); reused. */
        private final ByteBuffer[] views = new ByteBuffer[65];
        private final int[] viewStarts = new int[64];

        /**
         * Direct data placement: when the decoder waits for payload of a checked target, read the payload from the
         * socket straight into the target memory (scattering read), then account for it in the decoder (CRC).
         *
         * @return {@link #STEP_READ}, {@link #STEP_IDLE} (non-blocking, nothing there yet), or
         *     {@link #PLACE_BUFFERED}: not for a direct read, or the end of the stream (which the buffered read sees)
         */
        private int placeDirect() throws IOException {
            int remaining = decoder.payloadRemaining();
            // small payloads are cheaper to take with the next buffered read than with a read of their own
            if (remaining < DIRECT_PLACEMENT_MIN || target == null || placeFailed || draining) {
                return PLACE_BUFFERED;
            }
            int k = target.slices(placeOffset, remaining, Long.MAX_VALUE, views, 0);
            if (k <= 0 || k >= views.length) {
                return PLACE_BUFFERED; // more pieces than views, or outside the grant: the buffered path reports it
            }
            // views may be windows of a larger buffer (position = where the piece starts): remember the starts
            for (int i = 0; i < k; i++) {
                viewStarts[i] = views[i].position();
            }
            // the same read takes the FPDU's pad and CRC and the start of what follows (the next header) into the
            // receive buffer: one system call per FPDU while the stream keeps up
            buffer.clear().limit(READ_AHEAD);
            views[k] = buffer;
            long n;
            directRead = true;
            try {
                // a failure recorded from now on shuts the input down (record); one recorded before is seen here
                if (state.failure() != null) {
                    java.util.Arrays.fill(views, 0, k + 1, null);
                    return PLACE_BUFFERED;
                }
                n = channel.read(views, 0, k + 1);
            } finally {
                directRead = false;
            }
            views[k] = null;
            if (n <= 0) {
                for (int i = 0; i < k; i++) {
                    views[i] = null;
                }
                // the end of the stream: the buffered read sees it; nothing there (non-blocking): say so
                return n < 0 ? PLACE_BUFFERED : STEP_IDLE;
            }
            int placed = (int) Math.min(n, remaining);
            for (int i = 0; i < k; i++) {
                views[i].limit(views[i].position()).position(viewStarts[i]); // exactly the bytes this read placed
            }
            capture.inbound(views, k);
            decoder.payloadPlaced(views, 0, k, placed);
            placeOffset += placed;
            java.util.Arrays.fill(views, 0, k, null);
            if (n > placed) {
                buffer.flip();
                capture.inbound(buffer, 0, buffer.remaining());
                consume(buffer);
            }
            return STEP_READ;
        }

        @Override
        public void onPayload(ByteBuffer buffer, int index, int length) {
            if (target == null || placeFailed) {
                return;
            }
            if (!target.place(placeOffset, buffer, index, length)) {
                placeFailed = true;
            }
            placeOffset += length;
        }

        @Override
        public void onFrameEnd(FpduHeaderView h, CrcVerdict verdict) {
            largeFrames = h.payloadLength() >= DIRECT_PLACEMENT_MIN;
            if (verdict == CrcVerdict.MISMATCH) {
                return; // the decoder reports CRC_MISMATCH next
            }
            int length = h.payloadLength();
            if (placeFailed) {
                boolean tagged = opcode.tagged();
                if (!tagged && receive != null) {
                    receive = null;
                    qp.failReceive(NtStatus.STATUS_BUFFER_OVERFLOW, Term.DDP_UNTAGGED_TOO_LONG);
                }
                protocolError(tagged ? Term.DDP_TAGGED_BASE_BOUNDS : Term.DDP_UNTAGGED_TOO_LONG, h);
                return;
            }
            switch (opcode) {
                case RDMA_WRITE, TERMINATE -> { }
                case RDMA_READ_RESPONSE -> {
                    responseReceived += length;
                    if (h.last()) {
                        WireRequest head = queues.orqHead();
                        if (responseReceived != head.length) {
                            protocolError(Term.DDP_TAGGED_BASE_BOUNDS, h);
                            return;
                        }
                        responseReceived = 0;
                        // the read completes here, on this thread: no hand-off to TX. It completes before its ORQ
                        // place is freed: a request fenced behind it (READ_FENCE) must not start while the read's
                        // local invalidation (in readDone) is still to come. A read posted meanwhile that finds the
                        // ORQ full is sent by the transmit thread, woken below
                        doneRead.kind = WireRequest.READ;
                        doneRead.length = head.length;
                        doneRead.handle = head.handle;
                        qp.readDone(doneRead);
                        doneRead.handle = null;
                        queues.orqRelease();
                        if (queues.txWaitsForRead()) {
                            wakeTransmitter();
                        }
                    }
                }
                case RDMA_READ_REQUEST -> {
                    expectedReadMsn++;
                    queues.irqPush();
                    wakeTransmitter();
                }
                case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE -> {
                    received += length;
                    if (h.last()) {
                        BufferCursor done = receive;
                        receive = null;
                        expectedSendMsn++;
                        if (done != null) {
                            boolean solicited = opcode == RdmapOpcode.SEND_WITH_SE
                                || opcode == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
                            int term = qp.endReceive(received, solicited, opcode.invalidates(),
                                opcode.invalidates() ? h.invalidateStag() : 0);
                            if (term != 0) {
                                protocolError(term, h);
                            }
                        }
                    }
                }
            }
        }
    }
}
