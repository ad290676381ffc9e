package io.jndk.iwarp.transport;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.MpaNegotiated;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.pcap.PcapWriter;
import io.jndk.iwarp.transport.ConnectionState.Phase;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireCounters;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The iWARP stream engine of one connection: an RDMAP/DDP/MPA byte stream over a {@link SocketChannel}, driven by
 * an engine loop of the shared engine, or by one transmit and one receive platform thread (the thread engine; see
 * {@link EngineMode}). The thread engine's channel is blocking, except in polling mode, where it is non-blocking and
 * the threads wait for readiness on a selector each ({@link ConsumerDrive}).
 *
 * <p>This class is the {@link WireConnection} facade and the connection's lifecycle actions; the engine is in
 * package-private parts, one concern each (siw's {@code siw_qp_tx.c}, {@code siw_qp_rx.c}, {@code siw_qp.c}):
 * <ul>
 *   <li>{@link ConnectionState}: the establishment phase, the first failure, the close and the one-shot facts.
 *   <li>{@link TxEngine} (the transmit thread and its turns), {@link MessageSegmenter} (a message into FPDUs),
 *       {@link TxBatch} (the gathering writes).
 *   <li>{@link RxEngine} (the receive thread and its reads, direct placement), {@link RxDispatch} (the decoder's
 *       listener: a switch on the opcode), {@link InboundWrite}, {@link InboundSend}, {@link InboundReadRequest},
 *       {@link InboundReadResponse} (one per message type), {@link RxPlacement} (the current FPDU's target).
 *   <li>{@link ReadQueues}: the ORQ and IRQ. {@link Terminates}: every Terminate sent. {@link ConnectionCapture}.
 *   <li>{@link ConsumerDrive}: all of polling mode (consumer-driven receive, caller-runs transmit, selectors).
 * </ul>
 *
 * <p><b>Threads.</b> Whoever holds the transmit side makes every TX-side call into the {@link QpPort}, whoever holds
 * the receive side every RX-side call ({@link TxEngine}, {@link RxEngine} say who that may be); a TX and an RX call
 * may run at once. Provider threads call the {@code WireConnection} methods; outside polling mode a poster only
 * {@link #kick}s (a flag plus {@code unpark}). No provider lock is held across socket I/O.
 *
 * <p><b>Lifecycle.</b> Both threads start in {@link #begin}. A failure is recorded once ({@link #fail}); the transmit
 * thread sends its Terminate, if any, and reports it. The thread that ends last closes the channel. After a failure a
 * guard closes the channel if the peer does not close within {@link #LINGER_MILLIS}.
 */
public final class IwarpConnection implements WireConnection {

    /** Bound on how long a failed connection waits for its Terminate to drain and the peer to close. */
    static final long LINGER_MILLIS = 2_000;

    // ---- set at construction: read by every part ------------------------------------------------------------
    private final EngineMode engine;
    /** The shared engine's loops of the adapter, or null (the thread engine). */
    private final EngineLoops loops;
    /** The role: the initiator's side. */
    private final boolean active;
    final SocketChannel channel;
    private final MpaNegotiated negotiated;
    private final int segmentLength;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    final ConnectionCapture capture;
    /** FPDU octets already read behind the MPA frame, for the receive side. */
    private final ByteBuffer surplus;
    /** The STag this side's Read Requests name as their sink (random, so that a stray response is refused). */
    final int sinkStag;
    /** The lifecycle: establishment phase, failure, close, and the one-shot facts of the end. */
    final ConnectionState state = new ConnectionState();
    /** Polling mode (hooks that do nothing in the other modes): its state from the start, its selectors from begin. */
    final ConsumerDrive drive;
    private final WireCounters counters = new WireCounters();
    /** The transport's bookkeeping when the channel closes; set once, before the connection is handed out. */
    private Runnable onClose = () -> { };

    // ---- set once in begin, before the threads start; read by provider and consumer threads -------------------
    private volatile PassiveHandler passiveHandler;
    /** Passive, client-server: the accept's thread while it holds the output ({@link #releaseHeldOutput}). */
    private volatile Thread holder;
    private volatile TxEngine tx;
    /** The shared engine: this connection's place on its engine loop (null: the thread engine, or before start). */
    private volatile LoopDrive place;
    private volatile RxEngine rx;

    /**
     * @param active whether this is the initiator's side
     * @param channel the connected channel (blocking), after MPA setup
     * @param negotiated the MPA outcome
     * @param surplus FPDU octets already read behind the MPA frame (position 0)
     * @param mss the configured maximum FPDU size (rounded down to a multiple of 8 here)
     * @param capture where frames are captured, or {@code null}
     * @param engine threads and waiting strategy
     * @param loops the adapter's engine loops (the shared engine), or null
     */
    IwarpConnection(boolean active, SocketChannel channel, MpaNegotiated negotiated, ByteBuffer surplus, int mss,
                    PcapWriter.TcpStream capture, EngineMode engine, EngineLoops loops) {
        this.engine = engine;
        this.loops = engine.shared() ? loops : null;
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

    /** @return whether the shared engine runs this connection (engine loops, a non-blocking channel) */
    boolean sharedEngine() {
        return loops != null;
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

    // ---- WireConnection -----------------------------------------------------------------------------------

    @Override
    public int start(QpPort port) {
        if (!active) {
            throw new IllegalStateException("start is for the active side");
        }
        begin(port, null);
        return NtStatus.STATUS_SUCCESS;
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
        this.passiveHandler = handler;
        ReadQueues queues = new ReadQueues(port);
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
        TxEngine transmitter = new TxEngine(this, port, queues);
        RxEngine receiver = new RxEngine(this, port, queues, transmitter, surplus);
        this.tx = transmitter;
        this.rx = receiver;
        if (loops != null) {
            // the shared engine: both sides on one of the adapter's engine loops (LoopDrive)
            LoopDrive place = new LoopDrive(this, loops.assign(), transmitter, receiver);
            this.place = place;
            transmitter.attach(place);
            receiver.attach(place);
            place.schedule();
        } else {
            String name = "iwarp-" + local.getPort() + "-" + remote.getPort();
            transmitter.start(engine.thread(name + "-tx", transmitter));
            receiver.start(engine.thread(name + "-rx", receiver));
        }
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

    /**
     * Passive side of a client-server initiator ({@link Phase#OUTPUT_HELD}): waits up to {@code millis} for the
     * initiator's first FPDU, then lets the output go without it (as siw's responder does at once). Runs on the
     * accept's own virtual thread; the wait is a bounded timer, and the first FPDU ends the hold early.
     */
    void releaseHeldOutput(long millis) {
        holder = Thread.currentThread();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = deadline - System.nanoTime(); state.phase() == Phase.OUTPUT_HELD && left > 0;
             left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(this, left); // firstFrameArrived unparks it
        }
        holder = null;
        if (state.advance(Phase.OUTPUT_HELD, Phase.ESTABLISHED)) {
            wakeTransmitter();
        }
    }

    @Override
    public void reject() {
        state.closeLocally();
        state.endReportNotNeeded();
        closeChannel();
    }

    /** @return the transmit side, or null before {@link #start} (for tests) */
    TxEngine txEngine() {
        return tx;
    }

    /** @return the shared engine's loop serving this connection, or null (the thread engine, or before start; tests) */
    EngineLoop engineLoop() {
        LoopDrive p = place;
        return p == null ? null : p.engineLoop();
    }

    /**
     * New work from the posting thread. In polling mode the poster sends it itself when no other thread is
     * transmitting (the caller-runs path, {@link ConsumerDrive#transmitInline}); otherwise, and always in blocking
     * mode, the transmit thread is woken.
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
        return drive.polling();
    }

    /**
     * Polling mode: consumer-driven receive, on the polling consumer's thread ({@link ConsumerDrive#progress}). The
     * receive thread stands by while consumers keep calling at a high rate (see {@link ConsumerDrive#SLICE_NANOS},
     * {@link ConsumerDrive#STANDBY_NANOS}). A call from any engine thread does nothing.
     *
     * @return {@link #PROGRESS_CLOSED} once the connection is closed (the caller may forget it), else the number
     *     of reads done (0: nothing waiting, or another thread runs the receive side)
     */
    @Override
    public int progress() {
        return drive.progress(rx);
    }

    @Override
    public void consumerArmed() {
        if (drive.armed()) {
            wakeReceiver(); // notification-driven from now on: the receive thread reads, until polls come again
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

    /**
     * Abortive close (a TCP reset), except after a Terminate: a connection that failed with a Terminate of ours goes
     * on closing in order (the Terminate at an FPDU boundary, the half-close, the drain until the peer closes or
     * {@link #LINGER_MILLIS} passes, then the close), since a reset would destroy the Terminate before the peer read it.
     * Either way nothing more is placed or reported.
     */
    @Override
    public void reset() {
        state.closeLocally();
        state.endReportNotNeeded();
        Failure f = state.failure();
        if (f != null && f.frame() != null && state.started() && !state.isClosed()) {
            return; // the failure's linger guard (fail) bounds the orderly close
        }
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | RuntimeException ignored) {
            // already closed
        }
        closeChannel();
    }

    /**
     * {@code action} runs once both engine threads have ended (they are the only threads of this connection that
     * touch the QP's memory), or at once for a connection that closed without starting them. After {@link #abort},
     * {@link #reset} or a failure that is within {@link #LINGER_MILLIS} (the linger guard closes the channel, which
     * wakes a thread blocked in a read or write) and the moment the threads take to return.
     */
    @Override
    public void whenReleased(Runnable action) {
        state.whenThreadsDone(action);
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

    /** For logs: the role, the addresses and the {@link ConnectionState}. */
    @Override
    public String toString() {
        return "IwarpConnection[" + (active ? "active " : "passive ") + local + " <-> " + remote + " " + state + "]";
    }

    // ---- lifecycle actions (the parts call these; any thread) ------------------------------------------------

    /**
     * Records a failure; the first one wins ({@link ConnectionState#record}) and the transmit thread acts on it: its
     * Terminate, if any, at an FPDU boundary, then the half-close. The receive side stops placing at once (a read
     * straight into consumer memory never waits for input, {@link RxEngine}, so none is in progress for long) and
     * drains the input until the peer closes: the input is never shut down, because Linux answers data that arrives
     * after both halves are shut with a reset, which can destroy the Terminate before the peer reads it. A guard
     * closes the channel if the peer has not closed within {@link #LINGER_MILLIS}.
     */
    void fail(Failure f) {
        fail(f, null);
    }

    /**
     * {@link #fail(Failure)}, running {@code completeFirst} (the receive side completing the receive in progress in
     * error) after the failure is recorded and before the transmit thread is woken: a consumer that sees that
     * completion and resets the connection at once finds the Terminate on its way (and {@link #reset} lingers), and the
     * QP's failure report, which flushes a receive still in progress, comes after it.
     *
     * @param completeFirst run whether or not {@code f} is the first failure; null: nothing
     */
    void fail(Failure f, Runnable completeFirst) {
        boolean first = state.record(f);
        if (completeFirst != null) {
            completeFirst.run();
        }
        if (first) {
            guardClose();
            wakeTransmitter();
            wakeReceiver();
        }
    }

    /** An engine thread's I/O failed (or the engine threw): the connection is reset, unless this side closes anyway. */
    void resetAfterError() {
        if (!state.closingLocally() && !state.isClosed()) {
            fail(Failure.connectionReset());
        }
    }

    /** After a failure: closes the channel if the peer has not closed it within {@link #LINGER_MILLIS}. */
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

    /**
     * The receive side met a frame header while not {@link Phase#ESTABLISHED}: the initiator's first FPDU. A passive
     * side that held its output lets it go; one that awaited the initiator is established now and tells its handler.
     *
     * @return false when the passive side was abandoned already (decoding stops)
     */
    boolean firstFrameArrived() {
        Phase p = state.phase();
        if (p == Phase.OUTPUT_HELD || p == Phase.ESTABLISHED) { // established meanwhile: the hold ran out
            if (state.advance(Phase.OUTPUT_HELD, Phase.ESTABLISHED)) {
                wakeTransmitter();
                Thread h = holder;
                if (h != null) {
                    LockSupport.unpark(h);
                }
            }
            return true;
        }
        if (p == Phase.AWAITING_PEER && state.advance(Phase.AWAITING_PEER, Phase.ESTABLISHED)) {
            passiveHandler.onEstablished(this);
            wakeTransmitter();
            return true;
        }
        return false;
    }

    /** A passive side that never got established: it closes, and its handler hears {@code status}. */
    void failPassive(int status) {
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
     * An engine thread (or a side on an engine loop) ends; the last one closes the channel and retires the counters.
     * The thread engine's threads are done then, their channel closed (a blocking channel's close completes when its
     * last blocked thread leaves the call). A channel registered with a loop's selector is closed only when the
     * selector lets it go, so the loop reports that ({@link #engineReleased}).
     */
    void threadExit() {
        if (state.threadEnded()) {
            counters.retire();
            closeChannel();
            drive.close();
            if (loops == null) {
                state.threadsDone(); // the shared engine's loop reports it after its selection (engineReleased)
            }
        }
    }

    /** The shared engine: both sides have ended and the loop's selector has let the channel go (its socket closed). */
    void engineReleased() {
        state.threadsDone();
    }

    /** Closes the channel, once; wakes both engine threads wherever they wait. */
    void closeChannel() {
        if (state.close()) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
            capture.localFin();
            onClose.run();
            if (!state.started()) {
                state.threadsDone(); // no engine thread will start (begin sees the close)
            }
            state.closeDone();
            wakeTransmitter();
            wakeReceiver();
            drive.wakeTransmitter();
        }
    }

    /** Wakes the transmit thread (every engine-internal hand-off: never sends on the calling thread). */
    void wakeTransmitter() {
        TxEngine t = tx;
        if (t != null) {
            t.wake();
        }
    }

    /** Wakes the receive thread where it stands by or waits for input (a failure, a disconnect, the close). */
    void wakeReceiver() {
        RxEngine r = rx;
        if (r != null) {
            r.unpark();
        }
        drive.wakeReceiver();
    }
}
