package io.jndk.iwarp.transport;

import io.jndk.iwarp.cm.MpaNegotiated;
import io.jndk.iwarp.cm.Rtr;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.transport.ConnectionState.Phase;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.EngineThread;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The transmit side of one connection (siw's {@code siw_qp_tx.c}): what goes out next, and the thread that sends it.
 *
 * <p><b>Ownership.</b> Whoever holds {@link #owner} runs the transmit side and makes every TX-side call into the
 * {@link QpPort} ({@code nextRequest}, {@code sent}), so they never race: the transmit thread, or in polling mode a
 * posting thread that found the transmit side free (caller-runs, {@link ConsumerDrive#transmitInline}). The single
 * final {@code failed} call is the transmit thread's. Outside polling mode posting threads only {@link #kick}: a
 * flag plus {@code unpark}. No provider lock is held across socket I/O.
 *
 * <p><b>Turns.</b> Each turn sends one unit of work into the {@link TxBatch}: the ready-to-receive frame first, then
 * one queued inbound Read Response, then one initiator request, and once the provider asked for a graceful close and
 * no Read Response is owed, the FIN. Up to {@link TxBatch#BATCH_REQUESTS} turns share a gathering write. A recorded
 * failure first stops the thread: its Terminate, if any, goes out at an FPDU boundary ({@link #finish}).
 *
 * <p><b>An owner that may not wait.</b> In polling mode an engine thread posting from an inline notification (on
 * this connection's receive thread, or another connection's thread) must never wait for this socket: it runs only
 * {@link #smallTurn}s, sending small requests into a batch that holds them without a write in between, and leaves
 * everything else (the RTR, Read Responses, a disconnect, a large request, a write the socket cannot take at once)
 * to the transmit thread ({@link #ownerWaits}, {@link #leftWork}, {@link TxBatch#carried()},
 * {@link TxBatch#pendingFlush()}). In blocking mode every owner waits and none of this happens.
 */
final class TxEngine implements Runnable {
    private static final Logger LOG = Logger.getLogger(TxEngine.class.getName());
    /** Polling mode: the largest Write or Send an engine thread posting inline (it may not wait) sends itself. */
    static final int SMALL_INLINE = 16 * 1024;

    // ---- wiring, set at construction (before the thread starts) ------------------------------------------
    final IwarpConnection connection;
    final ConnectionState state;
    final QpPort qp;
    final ReadQueues queues;
    private final ConsumerDrive drive;
    final SocketChannel channel;
    final MpaNegotiated negotiated;
    final ConnectionCapture capture;
    final WireCounters counters;
    /** The STag this side's Read Requests name as their sink (Read Responses come back to it). */
    private final int sinkStag;
    final FpduEncoder encoder;
    final Terminates terminates;
    final TxBatch batch;
    final MessageSegmenter segmenter;

    // ---- shared with posting and receive threads ----------------------------------------------------------
    /** There may be new work: set by posters ({@link #kick}) and hand-offs ({@link #wake}); the owner clears it. */
    final AtomicBoolean signal = new AtomicBoolean();
    /** Held by whichever thread is transmitting: the transmit thread, or a poster in polling mode. */
    final AtomicBoolean owner = new AtomicBoolean();
    private volatile Thread thread;
    /** The FIN or a Terminate went out: nothing more is written. */
    volatile boolean outputShut;

    // ---- owned by whoever holds owner ---------------------------------------------------------------------
    int sendMsn;
    private int readMsn;
    boolean rtrPending;
    /**
     * Whether the current owner may wait for the socket: the transmit thread and consumer posters may; an engine
     * thread posting from an inline notification may not ({@link #smallTurn}, {@link TxBatch#flush(boolean)}).
     */
    private boolean ownerWaits = true;
    /** The last turns of an owner that may not wait left work for the transmit thread. */
    boolean leftWork;

    // ---- the transmit thread's own ------------------------------------------------------------------------
    /** Work the provider deferred to this thread (inline notifications), run once no lock is held. */
    private EngineThread deferred;

    // ---- posting engine threads (inline notifications) ----------------------------------------------------
    /** A flush of this side is deferred on an engine thread ({@link #deferFlush}); cleared as it runs. */
    private volatile boolean flushDeferred;
    private final EngineThread.Task flush = this::flush;

    // ---- the shared engine ------------------------------------------------------------------------------------
    /** The shared engine: every owner runs resumable turns that never wait for the socket ({@link TxLoopTurns}). */
    private final boolean resumable;
    /** The shared engine's side of this connection (set before it starts), or null. */
    private volatile LoopDrive loop;
    /** The shared engine's turns and service, or null. */
    final TxLoopTurns loopTurns;

    TxEngine(IwarpConnection connection, QpPort qp, ReadQueues queues) {
        this.connection = connection;
        this.state = connection.state;
        this.qp = qp;
        this.queues = queues;
        this.drive = connection.drive;
        this.channel = connection.channel;
        this.negotiated = connection.negotiated();
        this.capture = connection.capture;
        this.counters = connection.counters();
        this.sinkStag = connection.sinkStag;
        this.rtrPending = negotiated.mustSendRtr();
        this.encoder = new FpduEncoder(negotiated.crc());
        this.terminates = new Terminates(encoder);
        this.resumable = connection.sharedEngine();
        this.batch = new TxBatch(channel, qp, encoder, capture, counters, drive, resumable);
        this.segmenter = new MessageSegmenter(connection, batch, queues, terminates);
        this.loopTurns = resumable ? new TxLoopTurns(this) : null;
    }

    /** Starts the transmit thread {@code t} (made by the engine mode around this). */
    void start(Thread t) {
        thread = t;
        t.start();
    }

    /** @return the transmit thread (null until started) */
    Thread thread() {
        return thread;
    }

    // ---- hand-offs ----------------------------------------------------------------------------------------

    /**
     * New work from a posting thread. In polling mode the poster sends it itself when no other thread is
     * transmitting (the caller-runs path, {@link ConsumerDrive#transmitInline}); otherwise, and always in blocking
     * mode, the transmit thread is woken.
     */
    void kick() {
        signal.set(true);
        if (resumable && deferFlush()) {
            return;
        }
        if (drive.transmitInline(this)) {
            return;
        }
        wakeOwner();
    }

    /**
     * The shared engine, a post on an engine thread (a consumer's notification running inline): the request goes out
     * once the notification has returned, with everything else it posted, in one gathering write (as Netty's event
     * loop writes and flushes). A notification that posts a Write and then a Send that solicits an event (an iWARP
     * consumer's way to say "the data is there") otherwise sends two segments, and the peer may wake for each.
     *
     * @return whether a flush is deferred on this thread (false: not an engine thread)
     */
    private boolean deferFlush() {
        if (flushDeferred) {
            return true; // an engine thread's flush is due: it sends this request too (it runs after this post)
        }
        if (!EngineThread.isEngineThread()) {
            return false;
        }
        flushDeferred = true;
        if (!EngineThread.defer(flush, 0)) {
            flushDeferred = false;
            return false;
        }
        return true;
    }

    /** The deferred flush ({@link #deferFlush}): sends what the notification posted, or wakes the transmit side. */
    private void flush(int unused) {
        flushDeferred = false;
        if (!drive.transmitDeferred(this)) {
            wakeOwner();
        }
    }

    /** Wakes the transmit thread (every engine-internal hand-off: never sends on the calling thread). */
    void wake() {
        signal.set(true);
        wakeOwner();
    }

    /**
     * A hand-off from the receive side (a Read Request the ORQ can take now, a Read Response to send): when a
     * polling consumer's step runs the receive side, the consumer sends it after its step
     * ({@link ConsumerDrive#transmitAfterStep}); otherwise the transmit thread is woken.
     */
    void handOff() {
        signal.set(true);
        if (!drive.transmitAfterStep(this)) {
            wakeOwner();
        }
    }

    /**
     * After a polling consumer's step that handed this side work: runs the transmit side on the consumer's thread
     * when it is free, without waiting for the socket (a CQ poll never blocks), as a notification's post does.
     */
    void kickFromPoll() {
        signal.set(true);
        if (!drive.transmitAfterPoll(this)) {
            wakeOwner();
        }
    }

    private void wakeOwner() {
        LoopDrive.wake(loop, thread);
    }

    /** The shared engine: its side of this connection runs the transmit side from now on. */
    void attach(LoopDrive l) {
        loop = l;
    }

    /**
     * Caller-runs transmission: when the transmit side is free, runs up to {@code maxTurns} of its turns on the
     * calling thread; the transmit thread takes over whatever is left. No provider lock is held here, but a poster
     * that may wait waits in the socket write while the TCP send buffer is full, and an interrupt arriving during
     * that write closes the connection (the channel is interruptible).
     *
     * @param mayWait whether the calling thread may wait for the socket
     * @param smallOnly the shared engine outside polling mode: the turns send small requests only
     *     ({@link TxLoopTurns#smallTurns}) and leave the rest to the engine loop
     * @return whether this thread transmitted (false: another thread holds the transmit side)
     */
    boolean runInline(int maxTurns, boolean mayWait, boolean smallOnly) {
        if (!owner.compareAndSet(false, true)) {
            return false;
        }
        boolean more = false;
        boolean consumer = !EngineThread.isEngineThread();
        try {
            signal.set(false);
            ownerWaits = mayWait;
            batch.inline(consumer);
            more = (smallOnly ? loopTurns.smallTurns(maxTurns) : turns(maxTurns)) == maxTurns || leftWork;
        } catch (IOException | RuntimeException e) {
            connection.resetAfterError();
        } finally {
            batch.inline(false);
            owner.set(false);
        }
        if (more || signal.get()) {
            wake();
        }
        return true;
    }

    // ---- the transmit thread ------------------------------------------------------------------------------

    @Override
    public void run() {
        deferred = EngineThread.enter();
        try {
            loop();
        } catch (IOException | RuntimeException e) {
            if (e instanceof RuntimeException) {
                LOG.log(Level.WARNING, "iWARP transmit engine failed; resetting the connection", e);
            }
            connection.resetAfterError();
            Failure f = state.failure();
            if (f != null) {
                finish(f, false);
            }
        } finally {
            deferred.runPending();
            connection.threadExit();
        }
    }

    private void loop() throws IOException {
        while (true) {
            Failure f = state.failure();
            if (f != null) {
                own();
                finish(f, true);
                return;
            }
            if (state.isClosed()) {
                return;
            }
            boolean worked = false;
            boolean owned = owner.compareAndSet(false, true);
            if (owned) {
                try {
                    // only the owner consumes the signal: a poster transmitting inline looks at it again after it
                    // lets go (runInline) and wakes this thread for work that arrived meanwhile
                    signal.set(false);
                    ownerWaits = true;
                    worked = turns(TxBatch.BATCH_REQUESTS) > 0;
                } finally {
                    owner.set(false);
                }
                deferred.runPending();
                Thread.interrupted(); // a callback's interrupt would make every wait return at once
            }
            if (outputShut && state.receiveEnded()) {
                return;
            }
            if (!owned || !worked && !signal.get()) {
                LockSupport.park(this);
            }
        }
    }

    /** Waits until a poster running a turn inline has finished it, then keeps the transmit side for good. */
    private void own() {
        while (!owner.compareAndSet(false, true)) {
            LockSupport.parkNanos(this, 10_000);
        }
    }

    /** Sends the recorded failure's Terminate (if the stream is at an FPDU boundary) and reports it. */
    private void finish(Failure f, boolean writable) {
        if (writable && batch.partlyWritten() && f.frame() != null && !outputShut) {
            // a poster left part of a batch written (polling mode): the rest goes, so that the Terminate starts at
            // an FPDU boundary
            try {
                batch.writeRest();
            } catch (IOException | RuntimeException e) {
                writable = false;
            }
        }
        if (writable) {
            batch.discard(); // whole FPDUs only: what was not written yet never goes
        }
        if (writable && f.frame() != null && !outputShut) {
            try {
                ByteBuffer frame = f.frame().duplicate();
                capture.outbound(frame, frame.position(), frame.remaining());
                batch.writeWhole(frame);
                counters.fpduOut();
                channel.shutdownOutput();
                outputShut = true;
            } catch (IOException | RuntimeException ignored) {
                // the peer is gone; the failure is reported anyway
            }
        }
        if (state.claimEndReport()) {
            qp.failed(f.status(), f.term(), f.sent(), f.reason());
        }
        if (f.closeNow()) {
            connection.closeChannel();
        }
    }

    // ---- turns (the caller holds owner) -------------------------------------------------------------------

    /**
     * Up to {@code max} turns, batched, then the batch is written.
     *
     * @return the turns that found work ({@code max}: there may be more)
     */
    private int turns(int max) throws IOException {
        if (resumable) {
            return loopTurns.turns(max);
        }
        int done = 0;
        leftWork = false;
        try {
            if (batch.pendingFlush()) {
                if (!ownerWaits) {
                    leftWork = true;
                    return 0;
                }
                batch.flush(); // what a poster that could not wait left unwritten goes first
                done++;
            }
            while (done < max && (ownerWaits ? turn() : smallTurn())) {
                done++;
            }
            if (!batch.flush(!ownerWaits)) {
                leftWork = true;
            }
        } catch (IOException | RuntimeException e) {
            batch.discard();
            throw e;
        }
        return done;
    }

    /**
     * Whether the stream may carry output now: established and not held for the initiator's first FPDU, output not
     * shut, no failure recorded.
     */
    boolean mayTransmit() {
        return state.phase() == Phase.ESTABLISHED && !outputShut && state.failure() == null;
    }

    /** One unit of transmit work (appended to the batch); false when there was nothing to do. */
    private boolean turn() throws IOException {
        if (!mayTransmit()) {
            return false;
        }
        if (rtrPending) {
            rtrPending = false;
            sendRtr();
            return true;
        }
        if (sendReadResponse() || sendNextRequest()) {
            return true;
        }
        if (state.disconnectRequested() && queues.irqEmpty()) {
            sendFin();
            return true;
        }
        return false;
    }

    /**
     * The turn of an owner that may not wait for the socket: one small initiator request, into a batch that holds
     * it without a write in between (so that only the batch's final write can find the socket full, and that write
     * is left to the transmit thread). Anything else is left to the transmit thread.
     */
    private boolean smallTurn() throws IOException {
        if (!mayTransmit()) {
            return false;
        }
        if (rtrPending || !queues.irqEmpty() || batch.carried() || state.disconnectRequested()
            || !batch.roomForSmall()) {
            leftWork = true;
            return false;
        }
        return sendNextRequest();
    }

    /**
     * Stages the ready-to-receive frame.
     *
     * @return false when there is no room for it and the socket cannot take the batch now (the shared engine)
     */
    boolean sendRtr() throws IOException {
        int at = batch.frameStart();
        if (at < 0) {
            return false;
        }
        batch.frameStaged(at, Rtr.encode(encoder, negotiated.rtr().orElseThrow(), batch.stage(), at));
        return true;
    }

    /**
     * The graceful close's FIN, once the batch is written: nothing more is sent.
     *
     * @return false when the socket cannot take the batch now (the shared engine: nothing is shut yet)
     */
    boolean sendFin() throws IOException {
        if (!batch.flush()) {
            return false;
        }
        outputShut = true;
        channel.shutdownOutput();
        capture.localFin();
        return true;
    }

    /** Starts the oldest queued inbound Read's response in the segmenter (the caller checked the IRQ is not empty). */
    void beginReadResponse() {
        ReadQueues.InboundRead r = queues.irqPeek();
        BufferCursor source = r.source;
        r.source = null;
        segmenter.begin(RdmapOpcode.RDMA_READ_RESPONSE, r.sinkStag, r.sinkTo, 0, source, r.length, true);
    }

    /** The oldest queued inbound Read, answered in full (its IRQ place is freed inside, see {@link ReadQueues}). */
    private boolean sendReadResponse() throws IOException {
        if (queues.irqEmpty()) {
            return false;
        }
        beginReadResponse();
        segmenter.resumeWhole();
        if (batch.responseQueued()) {
            batch.flush();
        }
        return true;
    }

    /** The next initiator request from the QP, unless the ORD is reached or it is fenced behind a read. */
    private boolean sendNextRequest() throws IOException {
        // before the ORQ head is read: a read completing from now on wakes this thread
        queues.txWaitsForRead(true);
        int outstanding = queues.orqOutstanding();
        if (queues.orqFull(outstanding)) {
            return false; // ORD reached: wait for a response
        }
        WireRequest next = batch.nextSlot();
        int result = batch.takeCarried() ? QpPort.READY : qp.nextRequest(next, outstanding);
        queues.txWaitsForRead(result == QpPort.FENCED);
        batch.building(result == QpPort.READY);
        if (result == QpPort.READY && !ownerWaits && segmenter.tooLargeForSmallTurn(next)) {
            batch.carry();
            leftWork = true;
            return false;
        }
        switch (result) {
            case QpPort.READY -> {
                switch (next.kind) {
                    case WireRequest.WRITE -> queued(segmenter.send(RdmapOpcode.RDMA_WRITE, next.remoteToken,
                        next.remoteAddress, 0, next.local, next.length, false), next);
                    case WireRequest.SEND -> queued(segmenter.send(sendOpcode(next),
                        next.invalidate ? next.invalidateToken : 0, 0, ++sendMsn, next.local, next.length, false), next);
                    case WireRequest.READ -> sendReadRequest(next);
                    default -> {
                        TxBatch.clear(next);
                        connection.fail(terminates.localCatastrophic());
                    }
                }
                batch.building(false);
                return true;
            }
            case QpPort.FAILED -> {
                connection.fail(terminates.localCatastrophic());
                return true;
            }
            default -> {
                return false; // NONE, or FENCED: a readDone kicks us again
            }
        }
    }

    /** The opcode of a Send request: solicited or not, invalidating or not. */
    static RdmapOpcode sendOpcode(WireRequest r) {
        return r.invalidate
            ? (r.solicited ? RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE : RdmapOpcode.SEND_WITH_INVALIDATE)
            : (r.solicited ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND);
    }

    /** A Write or Send went into the batch (it completes once written), or a failure stopped it. */
    void queued(boolean sent, WireRequest r) {
        if (sent) {
            batch.queued();
        } else {
            TxBatch.clear(r);
        }
    }

    void sendReadRequest(WireRequest r) throws IOException {
        // published before the write: the response may arrive before write() returns
        WireRequest slot = queues.orqPush(r);
        TxBatch.clear(r);
        int at = batch.frameStart();
        batch.frameStaged(at, encoder.readRequest(batch.stage(), at, ++readMsn, sinkStag, 0L, (int) slot.length,
            slot.remoteToken, slot.remoteAddress));
        // no sent(): the read completes when its response is placed (on the receive thread, which may be before this
        // batch's write returns)
    }
}
