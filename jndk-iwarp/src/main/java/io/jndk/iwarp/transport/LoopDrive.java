package io.jndk.iwarp.transport;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection's place on an {@link EngineLoop} (the shared engine): what the loop runs for it. A readable socket
 * runs the receive side ({@link RxEngine#loopReadable}), a writable one or a schedule the transmit side
 * ({@link TxLoopTurns#loopService}); a transmit side that found the socket full waits for {@code OP_WRITE} (a full
 * socket parks the connection's transmit work, not a thread), one with more work than a turn schedules itself
 * again. When both sides have ended the key is cancelled and the loop forgets the connection.
 *
 * <p>Everything here but {@link #schedule} runs on the loop's thread.
 */
final class LoopDrive {
    private static final Logger LOG = Logger.getLogger(LoopDrive.class.getName());

    // ---- the loop's scheduling (EngineLoop) -----------------------------------------------------------------
    /** Scheduled and not yet served. */
    final AtomicBoolean queued = new AtomicBoolean();
    /** The next in the loop's scheduled stack. */
    LoopDrive next;
    /** In the loop's stand-by list (the loop thread's own): a stand-by that ends and begins again between two ticks
     * keeps its one entry. */
    boolean listed;

    // ---- wiring ---------------------------------------------------------------------------------------------
    private final IwarpConnection connection;
    private final EngineLoop loop;
    private final TxEngine tx;
    private final RxEngine rx;
    private final ConsumerDrive drive;

    // ---- the loop thread's own ------------------------------------------------------------------------------
    private SelectionKey key;
    private boolean started, rxDone, txDone, detached, standingBy;
    /** The socket is not watched while a consumer's step holds the receive side; the step's end schedules. */
    private boolean awaitingStep;
    private int interest;

    LoopDrive(IwarpConnection connection, EngineLoop loop, TxEngine tx, RxEngine rx) {
        this.connection = connection;
        this.loop = loop;
        this.tx = tx;
        this.rx = rx;
        this.drive = connection.drive;
    }

    /** Wakes a side: its engine loop ({@code place}, the shared engine) or its thread (the thread engine). */
    static void wake(LoopDrive place, Thread thread) {
        if (place != null) {
            place.schedule();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /** @return the engine loop serving this connection */
    EngineLoop engineLoop() {
        return loop;
    }

    /** Serves this connection in the loop's next turn (any thread). */
    void schedule() {
        loop.schedule(this);
    }

    // ---- the loop's calls ----------------------------------------------------------------------------------

    /** Scheduled: the first time registers the channel; then the transmit side, and the receive side if it must. */
    void service() {
        if (!started) {
            started = true;
            try {
                key = connection.channel.register(loop.selector(), 0, this);
            } catch (ClosedChannelException | RuntimeException e) {
                key = null; // closed already: both sides end below
            }
            if (rx.loopStart() == RxEngine.LOOP_ENDED) {
                rxDone = true;
            } else {
                want(SelectionKey.OP_READ, true);
            }
        }
        if (standingBy) {
            tickStandBy(System.nanoTime());
        } else if (connection.isClosed() || drive.handoffPending() || awaitingStep) {
            runRx();
        }
        runTx();
        if (connection.isClosed() && !rxDone) {
            runRx();
        }
        maybeDetach();
    }

    /** The selector found the socket ready ({@code ops}). */
    void ready(int ops) {
        if ((ops & SelectionKey.OP_WRITE) != 0) {
            want(SelectionKey.OP_WRITE, false);
            runTx();
        }
        if ((ops & SelectionKey.OP_READ) != 0) {
            runRx();
        }
        maybeDetach();
    }

    /**
     * A stand-by for polling consumers goes on ({@link ConsumerDrive#standByGoesOn}), or ends: the loop reads again,
     * once at least whatever the consumers do.
     *
     * @return whether this connection still stands by (or again: the read after the stand-by began another)
     */
    boolean tickStandBy(long now) {
        if (!standingBy) {
            return false;
        }
        if (drive.standByGoesOn(now)) {
            return true;
        }
        standingBy = false;
        if (!rxDone) {
            rx.owesRead();
            runRx(); // may stand by again at once (its entry in the loop's list stays)
        }
        maybeDetach();
        return standingBy;
    }

    /** A part threw out of the engine: the connection is reset, and the loop goes on with the others. */
    void crashed(RuntimeException e) {
        LOG.log(Level.WARNING, "iWARP engine failed for " + connection + "; resetting the connection", e);
        connection.resetAfterError();
        connection.closeChannel();
        schedule();
    }

    // ---- the sides -----------------------------------------------------------------------------------------

    private void runRx() {
        if (rxDone || standingBy) {
            return;
        }
        int outcome = rx.loopReadable();
        // the socket is watched only while the loop goes on reading it
        want(SelectionKey.OP_READ, outcome == RxEngine.LOOP_READ);
        awaitingStep = outcome == RxEngine.LOOP_AWAIT_STEP;
        switch (outcome) {
            case RxEngine.LOOP_STANDBY -> {
                standingBy = true;
                drive.beginStandBy(System.nanoTime());
                loop.standBy(this);
            }
            case RxEngine.LOOP_ENDED -> rxDone = true;
            default -> { }
        }
    }

    private void runTx() {
        if (txDone) {
            return;
        }
        switch (tx.loopTurns.loopService()) {
            case TxLoopTurns.TX_MORE -> schedule();
            case TxLoopTurns.TX_WANTS_WRITE -> want(SelectionKey.OP_WRITE, true);
            case TxLoopTurns.TX_ENDED -> {
                txDone = true;
                want(SelectionKey.OP_WRITE, false);
            }
            default -> { }
        }
    }

    private void want(int op, boolean on) {
        int next = on ? interest | op : interest & ~op;
        if (next == interest) {
            return;
        }
        interest = next;
        SelectionKey k = key;
        if (k != null && k.isValid()) {
            try {
                k.interestOps(next);
            } catch (CancelledKeyException ignored) {
                // closed meanwhile: the close schedules this connection, and both sides end
            }
        }
    }

    private void maybeDetach() {
        if (rxDone && txDone && !detached) {
            detached = true;
            if (key != null) {
                key.cancel();
            }
            loop.detach();
            loop.departs(this);
        }
    }

    /** The loop's selector has deregistered the channel (closing its socket): the engine has let go. */
    void departed() {
        connection.engineReleased();
    }
}
