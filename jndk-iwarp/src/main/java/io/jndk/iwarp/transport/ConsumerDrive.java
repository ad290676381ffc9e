package io.jndk.iwarp.transport;

import io.jndk.provider.spi.EngineThread;
import io.jndk.provider.spi.WireConnection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * All of the polling mode ({@code poll=true}) of one connection: who drives the engine besides its own threads, and
 * how the engine threads wait. In any other mode the connection holds an instance whose hooks do nothing (every
 * one returns at once), so {@link RxEngine} and {@link TxEngine} read as the blocking engine with named hooks.
 *
 * <p><b>The channel.</b> Polling mode runs the channel non-blocking, so that a consumer's receive step and a poster
 * that must not wait (an engine thread running a notification inline) never block in the socket; the engine threads
 * wait for readiness on a selector each instead ({@link #awaitWritable}). In the other modes the channel blocks.
 *
 * <p><b>Receive: consumers drive.</b> A consumer polling a CQ of this connection's QP runs the receive side on its
 * own thread ({@link #progress}): the reads the socket can serve now, placed and completed as the receive thread
 * would, so that it sees a Write land or a Send complete without waiting for the receive thread to wake. Whoever
 * holds {@link #rxOwner} runs the receive side: the receive thread (from the start, and for good once it ends), or a
 * consumer's {@code progress} while the receive thread stands by ({@link #standBy}). The receive thread stands by
 * while consumers poll at a high rate and none of the connection's CQs is armed ({@link #consumersDrive}); it may
 * spin for input before it waits in its selector ({@link #awaitReadable}).
 *
 * <p><b>Transmit: caller-runs.</b> A poster that finds the transmit side free sends its work itself
 * ({@link #transmitInline}), up to {@link #INLINE_TURNS} turns; the transmit thread takes over what is left. An
 * engine thread posting from an inline notification may not wait for the socket ({@link TxEngine}'s small turns).
 * A consumer whose step handed the transmit side work sends it the same way, without waiting for the socket: a
 * Read's requester polling its CQ sends the next Read Request as the last response completes, with no engine thread
 * woken (docs/PERFORMANCE.md, "the Read stream in polling mode").
 */
final class ConsumerDrive {
    private static final Logger LOG = Logger.getLogger(ConsumerDrive.class.getName());
    /** Turns a poster runs inline before it leaves the rest to the transmit thread. */
    static final int INLINE_TURNS = 16;
    /**
     * The receive thread stands by for a consumer that is polling a CQ of this connection right now (its last poll
     * at most this long ago, and no CQ armed within {@link #SLICE_NANOS})...
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
     * The longest the receive thread stands by while consumers drive; it then reads once itself (a backstop: a
     * consumer's step that meets the end of the stream or an error already hands it over at once).
     */
    static final long STANDBY_NANOS = 50_000_000;
    /** Reads one {@link #progress} call takes at most while input is there. */
    private static final int PROGRESS_READS = 4;
    /** A selection action that does nothing: waiting is all a selector is for here (and it adds no keys). */
    private static final Consumer<SelectionKey> IGNORE_KEY = k -> { };

    // ---- set at construction; the selectors before the engine threads start ------------------------------
    private final boolean polling;
    /** The shared engine runs this connection: the channel is non-blocking, and an engine loop waits for it. */
    private final boolean shared;
    /** Polling mode: how long the receive thread spins for input before it waits. */
    private final long spinNanos;
    private final ConnectionState state;
    /** Opened by {@link #open} before the engine threads start; closed after both ended. */
    private volatile Selector rxSelector, txSelector;

    // ---- who runs the receive side, and how often consumers ask (consumers and the receive thread) -----------
    /** Held by whichever thread runs the receive side (see the class comment). */
    private final AtomicBoolean rxOwner = new AtomicBoolean(true);
    /** When a consumer last asked for receive progress ({@link System#nanoTime}); 0: never, or since armed. */
    private volatile long consumerPolled;
    /** Consumer polls so far (racy increments: an estimate of the rate is all it is for). */
    private volatile int consumerPolls;
    /** When a CQ of this connection was last armed ({@link System#nanoTime}). */
    private volatile long consumerArmed = System.nanoTime() - SLICE_NANOS;
    /** {@link #consumerPolls} when a consumer last woke the receive thread out of its selector. */
    private volatile int pollsAtWake;
    /** The receive thread is waiting for input in its selector. */
    private volatile boolean rxSelecting;
    /** A consumer's step met the end of the stream or an error: the receive thread takes over at once. */
    private volatile boolean rxHandoff;
    /** The shared engine found a consumer's step holding the receive side ({@link #tryTakeRx}): the step's end wakes it. */
    private volatile boolean loopAwaitsStep;
    /** The consumer whose {@link #progress} call runs the receive side now (owned with {@link #rxOwner}), or null. */
    private Thread stepper;
    /** The transmit side the receive side (run by {@link #stepper}) handed work: the consumer sends it after its step. */
    private TxEngine transmitAfterStep;

    ConsumerDrive(EngineMode engine, ConnectionState state) {
        this.polling = engine.poll();
        this.shared = engine.shared();
        this.spinNanos = engine.spinNanos();
        this.state = state;
    }

    /** @return whether this connection runs in polling mode */
    boolean polling() {
        return polling;
    }

    /** @return whether the channel is non-blocking: polling mode, or the shared engine */
    boolean nonBlocking() {
        return polling || shared;
    }

    // ---- the channel and its selectors ----------------------------------------------------------------------

    /**
     * Polling mode: makes the channel non-blocking and opens the selectors (before the engine threads start).
     *
     * @return false when that failed (logged; the connection must close)
     */
    boolean open(SocketChannel channel) {
        if (shared && !state.isClosed()) {
            try {
                channel.configureBlocking(false); // the engine loop waits for readiness (LoopDrive)
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "iWARP shared engine: cannot make the channel non-blocking", e);
                return false;
            }
            return true;
        }
        if (!polling || state.isClosed()) {
            return true;
        }
        try {
            channel.configureBlocking(false);
            rxSelector = Selector.open();
            channel.register(rxSelector, SelectionKey.OP_READ);
            txSelector = Selector.open();
            channel.register(txSelector, SelectionKey.OP_WRITE);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "iWARP polling mode: cannot make the channel non-blocking", e);
            close();
            return false;
        }
    }

    /** After both engine threads ended (or when they never start): the selectors go. */
    void close() {
        for (Selector sel : new Selector[] {rxSelector, txSelector}) {
            if (sel != null) {
                try {
                    sel.close();
                } catch (IOException ignored) {
                    // nothing left to do
                }
            }
        }
    }

    /** Wakes the receive thread out of its selector (a failure, a disconnect, the close). */
    void wakeReceiver() {
        Selector r = rxSelector;
        if (r != null) {
            r.wakeup();
        }
    }

    /** Wakes the transmit side out of its selector (the close). */
    void wakeTransmitter() {
        Selector w = txSelector;
        if (w != null) {
            w.wakeup();
        }
    }

    // ---- receive ---------------------------------------------------------------------------------------------

    /**
     * Consumer-driven receive, a consumer's poll ({@code WireConnection.progress}): when input is waiting and no
     * other thread runs the receive side, it is read and placed here, as the receive thread would (direct placement,
     * completions, Terminates). Never blocks: it reads only what the socket already holds, at most
     * {@link #PROGRESS_READS} times. What the step hands the transmit side (a Read Request the ORQ takes now, a Read
     * Response) the consumer sends itself afterwards when the transmit side is free, never waiting for the socket
     * ({@link #transmitAfterStep}). The end of the stream and errors are left to the receive thread (woken), which
     * reports them as it always does. A call from any engine thread (a notification callback running inline, on
     * this connection's threads or another's) does nothing.
     *
     * @param rx the receive side, or {@code null} before it exists
     * @return {@code PROGRESS_CLOSED} once the connection is closed, else the number of reads done (0: nothing
     *     waiting, another thread runs the receive side, or not polling mode)
     */
    int progress(RxEngine rx) {
        if (state.isClosed() || state.receiveEnded()) {
            return WireConnection.PROGRESS_CLOSED;
        }
        if (!polling || EngineThread.isEngineThread()) {
            return 0;
        }
        consumerPolled = System.nanoTime();
        int polls = ++consumerPolls;
        if (rxSelecting && polls - pollsAtWake >= SLICE_POLLS) {
            // the receive thread waits for input in its selector and would take the next message itself: wake it,
            // so that it sees a consumer polling often and stands by (once; it does not wait there meanwhile)
            pollsAtWake = polls;
            rxSelector.wakeup();
        }
        if (rx == null || !takeForStep()) {
            return 0;
        }
        int reads = 0;
        try {
            reads = consumerStep(rx);
        } finally {
            if (endStep()) {
                rx.unpark();
            }
        }
        TxEngine tx = transmitAfterStep;
        if (tx != null) {
            transmitAfterStep = null;
            tx.kickFromPoll();
        }
        return reads;
    }

    /** A consumer's step takes the receive side if nobody runs it. */
    boolean takeForStep() {
        return rxOwner.compareAndSet(false, true);
    }

    /**
     * A consumer's step gives the receive side back.
     *
     * @return whether the engine must be woken: the step met the end of the stream or an error, or the shared
     *     engine found the receive side taken meanwhile ({@link #tryTakeRx}) and stopped watching the socket
     */
    boolean endStep() {
        rxOwner.set(false);
        if (rxHandoff || loopAwaitsStep) {
            loopAwaitsStep = false;
            return true;
        }
        return false;
    }

    /** Holding {@link #rxOwner}: the reads the socket can serve now; the end of the stream or an error hands over. */
    private int consumerStep(RxEngine rx) {
        int reads = 0;
        stepper = Thread.currentThread();
        try {
            while (reads < PROGRESS_READS && !state.isClosed() && !rxHandoff) {
                int r = rx.step(false);
                if (r == RxEngine.STEP_IDLE) {
                    break;
                }
                reads++;
                if (r == RxEngine.STEP_END) {
                    rxHandoff = true;
                } else if (rx.drained()) {
                    break; // the socket held no more: the next poll reads what comes
                }
            }
        } catch (IOException | RuntimeException e) {
            rxHandoff = true;
            rx.broke(e);
        } finally {
            stepper = null;
        }
        return reads;
    }

    /** @return whether the receive side runs in a consumer's {@link #progress} call now (for the counters) */
    boolean consumerStepping() {
        return stepper != null;
    }

    /**
     * The receive side hands the transmit side work (a Read Request the ORQ can take now, a Read Response to send).
     * When a consumer's step runs the receive side on this thread, the consumer sends that work itself once its step
     * is over, as a poster would (caller-runs, never waiting for the socket): no engine thread is woken for it.
     *
     * @return whether the hand-off waits for the end of the consumer's step (false: wake the transmit side)
     */
    boolean transmitAfterStep(TxEngine tx) {
        if (stepper != Thread.currentThread()) {
            return false;
        }
        transmitAfterStep = tx;
        return true;
    }

    /**
     * A CQ of this connection was armed: its consumer waits for notifications now, so the receive thread reads
     * again, until polls come again.
     *
     * @return whether consumers were driving (the receive thread must be woken out of its stand-by)
     */
    boolean armed() {
        consumerArmed = System.nanoTime();
        if (consumerPolled != 0) {
            consumerPolled = 0;
            return true;
        }
        return false;
    }

    /**
     * The receive thread's hook before each read: whether a consumer polls now (its last poll within
     * {@link #CONSUMER_ACTIVE_NANOS}) and armed none of the connection's CQs lately (within {@link #SLICE_NANOS}): a
     * consumer that arms waits for notifications, and its polls (once or twice per notification) must not keep the
     * receive thread away. Always false outside polling mode.
     */
    boolean consumersDrive() {
        long polled = consumerPolled;
        long now = System.nanoTime();
        return polling && polled != 0 && now - polled < CONSUMER_ACTIVE_NANOS
            && now - consumerArmed >= SLICE_NANOS && !rxHandoff && state.failure() == null
            && !state.disconnectRequested();
    }

    /**
     * The receive thread lets polling consumers run the receive side: parks (not in a read, so arriving input wakes
     * nobody) while they keep polling at a high rate, for at most {@link #STANDBY_NANOS}, until a CQ is armed, or
     * until a failure, a disconnect, the close or a consumer's hand-off; then takes the receive side back.
     */
    void standBy() {
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

    // ---- the shared engine: the receive side taken per read, the stand-by in ticks -------------------------------

    /**
     * The shared engine: the receive side is taken for one turn of reads; false while a consumer steps, and then the
     * end of that step schedules the loop again ({@link #loopAwaitsStep}), so that the loop need not watch the socket
     * meanwhile. Watching it was a busy loop: the socket stays readable until the step has read, and on two cores the
     * loop thread woken by that readiness could take the core of the very consumer it waited for, for milliseconds.
     */
    boolean tryTakeRx() {
        if (rxOwner.compareAndSet(false, true)) {
            return true;
        }
        loopAwaitsStep = true;
        // again after saying so: a step that ended in between saw no flag (volatile order: one of the two sees the
        // other), and the receive side is free now
        if (rxOwner.compareAndSet(false, true)) {
            loopAwaitsStep = false;
            return true;
        }
        return false;
    }

    /** The shared engine: the receive side is free again (consumers may step). */
    void releaseRx() {
        rxHandoff = false;
        rxOwner.set(false);
    }

    /** @return whether a consumer's step met the end of the stream or an error: the engine takes over */
    boolean handoffPending() {
        return rxHandoff;
    }

    private long standbySince, sliceStart;
    private int sliceBefore;

    /** The shared engine: the loop stops reading for polling consumers ({@link #standBy}'s start). */
    void beginStandBy(long now) {
        standbySince = now;
        sliceStart = now;
        sliceBefore = consumerPolls;
    }

    /**
     * The shared engine's {@link #standBy}, one tick at a time (the loop ticks about once a millisecond).
     *
     * @return whether the stand-by goes on; false: the loop reads again
     */
    boolean standByGoesOn(long now) {
        if (state.isClosed() || rxHandoff || state.failure() != null || state.disconnectRequested()
            || consumerPolled == 0 || now - standbySince >= STANDBY_NANOS) {
            return false;
        }
        if (now - sliceStart < SLICE_NANOS) {
            return true;
        }
        int polls = consumerPolls;
        if (polls - sliceBefore < SLICE_POLLS) {
            return false;
        }
        sliceStart = now;
        sliceBefore = polls;
        return true;
    }

    /**
     * The receive thread's hook when a non-blocking read found nothing (polling mode): spins for input for the
     * engine's spin time, if any, then waits until the socket is readable (or the selector is woken: the close, a
     * failure).
     *
     * @param input the socket's input stream, for {@code available()} (or {@code null}: no spin)
     */
    void awaitReadable(InputStream input) throws IOException {
        long spin = spinNanos;
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
                rxSelector.select(IGNORE_KEY, 0);
            } finally {
                rxSelecting = false;
            }
        }
    }

    // ---- transmit -------------------------------------------------------------------------------------------

    /**
     * A poster's {@code kick}: in polling mode, runs the transmit side on the posting thread when it is free; on the
     * shared engine outside polling mode, sends small requests on the posting thread when the transmit side is idle
     * ({@link TxLoopTurns#smallTurns}).
     *
     * @return whether this thread transmitted (false: the thread engine's blocking mode, or the transmit thread or
     *     engine loop is to be woken)
     */
    boolean transmitInline(TxEngine tx) {
        // an engine thread (a notification running inline, on this connection's receive thread or on another
        // connection's thread) must never wait for this socket: it takes only small requests and leaves a write the
        // socket cannot take at once to the transmit thread
        return transmitInline(tx, !EngineThread.isEngineThread() || Thread.currentThread() == tx.thread());
    }

    /**
     * The shared engine, the flush an engine thread deferred after a notification that posted
     * ({@link TxEngine#kick}): runs the transmit side on this thread when it is free, never waiting for the socket,
     * whatever number of requests the notification posted (they are batched now).
     *
     * @return whether this thread transmitted (false: the engine loop is to be woken)
     */
    boolean transmitDeferred(TxEngine tx) {
        return !inlineRefused() && tx.runInline(INLINE_TURNS, false, !polling);
    }

    /**
     * Polling mode, after a consumer's step that handed the transmit side work ({@link #transmitAfterStep}): runs
     * the transmit side on the consumer's thread when it is free, never waiting for the socket (a CQ poll does not
     * block).
     *
     * @return whether this thread transmitted (false: the transmit thread is to be woken)
     */
    boolean transmitAfterPoll(TxEngine tx) {
        return transmitInline(tx, false);
    }

    /**
     * Whether the calling thread must leave the transmit side to its engine: outside both the polling mode and the
     * shared engine, after a failure or the close, or when the thread is interrupted (it would close the channel in
     * its write, an interruptible channel, or not wait in a selector).
     */
    private boolean inlineRefused() {
        return !polling && !shared || state.failure() != null || state.isClosed()
            || Thread.currentThread().isInterrupted();
    }

    private boolean transmitInline(TxEngine tx, boolean mayWait) {
        if (inlineRefused()) {
            return false;
        }
        if (polling) {
            return tx.runInline(INLINE_TURNS, mayWait, false);
        }
        // outside polling mode (the shared engine: its turns never wait) a poster sends a small request, and only
        // when it is the consumer's only initiator work on the QP (QpPort.postedAlone): a consumer with more in flight
        // streams, and the engine loop batches its requests into fewer writes beside a poster that goes on posting
        // (docs/DECISIONS.md)
        return tx.qp.postedAlone() && tx.runInline(INLINE_TURNS, false, true);
    }

    /** The socket is full (a non-blocking write took nothing): waits until it is writable, or the close. */
    void awaitWritable() throws IOException {
        if (state.isClosed()) {
            throw new ClosedChannelException();
        }
        txSelector.select(IGNORE_KEY, 0);
    }
}
