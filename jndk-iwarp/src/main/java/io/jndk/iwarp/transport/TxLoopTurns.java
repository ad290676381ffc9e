package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The shared engine's transmit side of one connection: {@link TxEngine}'s turns made resumable, and the engine
 * loop's service of them. No owner ever waits for the socket: where the batch is full and the socket takes no more,
 * a turn stops ({@link #blocked}), keeping its place (a message half queued in the {@link MessageSegmenter}, a
 * pending batch, a Terminate half written), and the loop waits for {@code OP_WRITE} ({@link LoopDrive}). A Read
 * Request is taken from the QP only once there is room for its frame, so that it never waits once taken.
 *
 * <p>Owned by whoever holds the transmit side ({@link TxEngine#owner}); {@link #loopService} is the loop's.
 */
final class TxLoopTurns {
    private static final Logger LOG = Logger.getLogger(TxLoopTurns.class.getName());
    /** {@link #loopService} outcomes. */
    static final int TX_IDLE = 0, TX_MORE = 1, TX_WANTS_WRITE = 2, TX_ENDED = 3;
    private static final int PENDING_NONE = 0, PENDING_REQUEST = 1, PENDING_RESPONSE = 2;
    /**
     * Payload octets one service queues at most before the loop serves the other connections (two FPDUs of a loopback
     * segment): a 1 MiB Read Response goes out in several turns, and small messages on other connections of the loop
     * wait at most a turn of this size behind it.
     */
    static final int TURN_OCTETS = 128 * 1024;

    private final TxEngine tx;
    private final MessageSegmenter segmenter;

    // ---- owned by whoever holds the transmit side; the end by the engine loop ------------------------------
    /** The last turns stopped at a socket that could take no more. */
    private boolean blocked;
    /** A message stopped because the turn's octets are spent ({@link MessageSegmenter#PAUSED}); then it yielded. */
    private boolean paused, yielded;
    /** What the message in the segmenter is, once it is queued whole: a request ({@link #pendingRequest}), a response. */
    private int pendingKind;
    private WireRequest pendingRequest;
    /**
     * The owner is a poster outside polling mode ({@link #smallTurns}): it queues small requests only, and leaves the
     * rest to the engine loop.
     */
    private boolean smallOnly;
    /** A failure is being finished (the transmit side is kept for good). */
    private boolean failing;
    /** The failure's Terminate, as far as written; the Terminate is written (or could not be). */
    private ByteBuffer termFrame;
    private boolean finishWritten;
    /** A write or the engine failed: the failure is reported without writing. */
    private boolean ioBroken;
    /** The transmit side ended. */
    private boolean txEnded;

    TxLoopTurns(TxEngine tx) {
        this.tx = tx;
        this.segmenter = tx.segmenter;
    }

    /**
     * The engine loop's transmit service ({@link LoopDrive}): acts on a failure, or runs up to
     * {@link TxBatch#BATCH_REQUESTS} resumable turns. Never waits for the socket.
     *
     * @return {@link #TX_IDLE}, {@link #TX_MORE} (there may be more: serve again after the others),
     *     {@link #TX_WANTS_WRITE} (the socket is full: serve again once it is writable) or {@link #TX_ENDED}
     */
    int loopService() {
        if (txEnded) {
            return TX_ENDED;
        }
        Failure f = tx.state.failure();
        if (f != null) {
            if (!failing) {
                if (!tx.owner.compareAndSet(false, true)) {
                    return TX_MORE; // a poster is finishing a turn: the failure waits for it
                }
                failing = true; // the transmit side is kept for good
            }
            return finishStep(f) ? endTx() : TX_WANTS_WRITE;
        }
        if (tx.state.isClosed() || tx.outputShut && tx.state.receiveEnded()) {
            return endTx();
        }
        if (!tx.owner.compareAndSet(false, true)) {
            return TX_IDLE; // a poster transmits; it wakes this side again when it leaves work (runInline)
        }
        int done;
        try {
            tx.signal.set(false);
            done = turns(TxBatch.BATCH_REQUESTS);
        } catch (IOException | RuntimeException e) {
            if (e instanceof RuntimeException) {
                LOG.log(Level.WARNING, "iWARP transmit engine failed; resetting the connection", e);
            }
            ioBroken = true;
            tx.connection.resetAfterError();
            return TX_MORE; // the failure is acted on at the next service
        } finally {
            tx.owner.set(false);
        }
        if (blocked) {
            return TX_WANTS_WRITE;
        }
        if (tx.outputShut && tx.state.receiveEnded()) {
            return endTx();
        }
        return yielded || done >= TxBatch.BATCH_REQUESTS || tx.signal.get() ? TX_MORE : TX_IDLE;
    }

    private int endTx() {
        txEnded = true;
        tx.connection.threadExit();
        return TX_ENDED;
    }

    /**
     * {@link TxEngine}'s finish, resumable: the rest of a partly written batch, then the Terminate, as far
     * as the socket takes them now.
     *
     * @return false when the socket is full (call again once writable); true once the failure is reported
     */
    private boolean finishStep(Failure f) {
        if (!finishWritten) {
            try {
                if (!ioBroken && f.frame() != null && !tx.outputShut) {
                    if (termFrame == null) {
                        if (tx.batch.partlyWritten() && !tx.batch.writeRest()) {
                            return false;
                        }
                        tx.batch.discard(); // whole FPDUs only: what was not written yet never goes
                        segmenter.abandonMessage();
                        termFrame = f.frame().duplicate();
                        tx.capture.outbound(termFrame, termFrame.position(), termFrame.remaining());
                    }
                    if (!tx.batch.writeWhole(termFrame)) {
                        return false;
                    }
                    tx.counters.fpduOut();
                    tx.channel.shutdownOutput();
                    tx.outputShut = true;
                } else if (!ioBroken) {
                    tx.batch.discard();
                    segmenter.abandonMessage();
                }
            } catch (IOException | RuntimeException ignored) {
                // the peer is gone; the failure is reported anyway
            }
            finishWritten = true;
        }
        if (tx.state.claimEndReport()) {
            tx.qp.failed(f.status(), f.term(), f.sent(), f.reason());
        }
        if (f.closeNow()) {
            tx.connection.closeChannel();
        }
        return true;
    }

    /**
     * A poster's turns outside polling mode, when the transmit side is idle: up to {@code max} small requests (a
     * Write or Send of at most {@link TxEngine#SMALL_INLINE} octets, a Read Request) go out on the posting thread,
     * as siw sends in the posting call, so that a small message neither waits for the engine loop nor costs it a
     * wake-up. Everything else (a larger message, which stops before its first FPDU; Read Responses; the RTR; the
     * FIN; what a full socket or another owner left) is left to the engine loop ({@link TxEngine#leftWork}).
     */
    int smallTurns(int max) throws IOException {
        // a batch or a message left half-written is the engine loop's; an RTR or a Read Response waiting is found by
        // the turn itself (resumableTurn), which looks again before every request it takes
        if (tx.batch.pendingFlush() || segmenter.active()) {
            tx.leftWork = true;
            return 0;
        }
        smallOnly = true;
        try {
            return turns(max);
        } finally {
            smallOnly = false;
        }
    }

    /** Up to {@code max} resumable turns: each stops where the socket is full, and the next call goes on from there. */
    int turns(int max) throws IOException {
        int done = 0;
        tx.leftWork = false;
        blocked = false;
        yielded = false;
        segmenter.budget(TURN_OCTETS);
        try {
            if (tx.batch.pendingFlush()) {
                if (!tx.batch.flush()) {
                    return block(done);
                }
                done++;
            }
            if (segmenter.active()) {
                if (!finishMessage()) {
                    return block(done);
                }
                done++;
            }
            while (done < max && !blocked && resumableTurn()) {
                done++;
            }
            if (blocked || !tx.batch.flush()) {
                return block(done);
            }
            tx.batch.releaseIfIdle();
        } catch (IOException | RuntimeException e) {
            tx.batch.discard();
            segmenter.abandonMessage();
            throw e;
        }
        return done;
    }

    /** The turns stop: at a full socket, or (paused) with the turn's octets spent and what they queued written. */
    private int block(int done) throws IOException {
        tx.leftWork = true;
        if (paused) {
            paused = false;
            blocked = !tx.batch.flush();
            yielded = !blocked;
            return done;
        }
        blocked = true;
        return done;
    }

    /** One unit of transmit work that stops where the socket is full ({@link #blocked}); false: nothing to do. */
    private boolean resumableTurn() throws IOException {
        if (!tx.mayTransmit()) {
            return false;
        }
        if (smallOnly && (tx.rtrPending || !tx.queues.irqEmpty())) {
            tx.leftWork = true; // the engine loop's: a response or the RTR goes before further requests
            return false;
        }
        if (tx.rtrPending) {
            if (!tx.sendRtr()) {
                blocked = true;
                return false;
            }
            tx.rtrPending = false;
            return true;
        }
        if (!tx.queues.irqEmpty()) {
            tx.beginReadResponse();
            pendingKind = PENDING_RESPONSE;
            if (!finishMessage()) {
                blocked = true;
            }
            return true;
        }
        if (nextRequestResumable() || blocked) {
            return !blocked;
        }
        if (tx.state.disconnectRequested() && tx.queues.irqEmpty()) {
            if (smallOnly) {
                tx.leftWork = true; // the FIN is the engine loop's
                return false;
            }
            if (!tx.sendFin()) {
                blocked = true;
                return false;
            }
            return true;
        }
        return false;
    }

    /**
     * Goes on with the message in the segmenter; once it is queued whole, completes its bookkeeping.
     *
     * @return false when it waits for the socket
     */
    private boolean finishMessage() throws IOException {
        int r = segmenter.resume();
        if (r == MessageSegmenter.BLOCKED) {
            return false;
        }
        if (r == MessageSegmenter.PAUSED) {
            paused = true;
            return false;
        }
        int kind = pendingKind;
        WireRequest req = pendingRequest;
        pendingKind = PENDING_NONE;
        pendingRequest = null;
        if (kind == PENDING_REQUEST) {
            tx.queued(r == MessageSegmenter.DONE, req);
            tx.batch.building(false);
        } else if (kind == PENDING_RESPONSE && tx.batch.responseQueued() && !tx.batch.flush()) {
            blocked = true; // no further response starts while READ_RESPONSE_BATCH source cursors are unwritten
        }
        return true;
    }

    /**
     * The next initiator request, as {@link #sendNextRequest}, except that room for a frame and a request holder is
     * made first (a Read Request taken from the QP never waits), and a Write or Send is queued resumably.
     */
    private boolean nextRequestResumable() throws IOException {
        tx.queues.txWaitsForRead(true);
        int outstanding = tx.queues.orqOutstanding();
        if (tx.queues.orqFull(outstanding)) {
            return false; // ORD reached: wait for a response
        }
        if (tx.batch.frameStart() < 0) {
            blocked = true;
            return false;
        }
        WireRequest next = tx.batch.nextSlot();
        if (next == null) {
            blocked = true;
            return false;
        }
        int result = tx.qp.nextRequest(next, outstanding);
        tx.queues.txWaitsForRead(result == QpPort.FENCED);
        tx.batch.building(result == QpPort.READY);
        switch (result) {
            case QpPort.READY -> {
                switch (next.kind) {
                    case WireRequest.WRITE -> segmenter.begin(RdmapOpcode.RDMA_WRITE, next.remoteToken,
                        next.remoteAddress, 0, next.local, next.length, false);
                    case WireRequest.SEND -> segmenter.begin(TxEngine.sendOpcode(next),
                        next.invalidate ? next.invalidateToken : 0, 0, ++tx.sendMsn, next.local, next.length, false);
                    case WireRequest.READ -> {
                        tx.sendReadRequest(next);
                        tx.batch.building(false);
                        return true;
                    }
                    default -> {
                        TxBatch.clear(next);
                        tx.batch.building(false);
                        tx.connection.fail(tx.terminates.localCatastrophic());
                        return true;
                    }
                }
                pendingKind = PENDING_REQUEST;
                pendingRequest = next;
                if (smallOnly && next.length > TxEngine.SMALL_INLINE) {
                    segmenter.budget(0); // the message stops before its first FPDU: the engine loop sends it
                }
                if (!finishMessage()) {
                    blocked = true;
                }
                return true;
            }
            case QpPort.FAILED -> {
                tx.connection.fail(tx.terminates.localCatastrophic());
                return true;
            }
            default -> {
                return false; // NONE, or FENCED: a readDone kicks us again
            }
        }
    }
}
