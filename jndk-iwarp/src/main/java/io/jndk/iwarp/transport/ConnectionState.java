package io.jndk.iwarp.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lifecycle of one connection (siw's {@code siw_qp_state} with {@code siw_qp_modify}, and
 * {@code siw_init_terminate}): the establishment {@link Phase}, changed only by {@link #advance}, and the one-shot
 * facts of its end, each set once and never cleared. It holds state only; what happens on a change (closing the
 * channel, waking threads, telling the QP) is {@link IwarpConnection}'s.
 *
 * <p><b>Two dimensions, on purpose.</b> The phase says how far establishment got. The end is separate, because it
 * can come in any phase and what follows depends on the phase it came in: the provider may abort before the first
 * FPDU, the channel may close (a reset, a refused accept) while the passive side still awaits the initiator, and a
 * passive side that closes while awaiting still reports {@code STATUS_IO_TIMEOUT} or
 * {@code STATUS_CONNECTION_ABORTED} to its handler. So a failure ({@link #record}, first one wins) and the close
 * ({@link #close}) are latches beside the phase, not phases.
 *
 * <p><b>Illegal transitions.</b> {@link #advance} accepts only the edges of {@link Phase#mayAdvanceTo}. Any other
 * pair is a bug in the engine: it is refused (the phase stays, {@code false} is returned) and logged at
 * {@code SEVERE}, never thrown, because an engine thread must not die with an exception
 * ({@code ConnectionStateTest} pins the table). A legal edge whose {@code from} no longer holds (another thread
 * moved first) also returns {@code false}, silently: that is a lost race, the normal way two threads agree.
 *
 * <p>Thread-safe: every field is volatile or atomic; any thread may read, the writers are named per field.
 */
final class ConnectionState {
    private static final Logger LOG = Logger.getLogger(ConnectionState.class.getName());

    /** How far establishment got. */
    enum Phase {
        /** Built: no QP bound, no threads ({@code start}/{@code beginPassive} not called yet). */
        NEW,
        /**
         * Passive side whose initiator announced a ready-to-receive frame: not established until the initiator's
         * first FPDU arrives (which its handler hears as {@code onEstablished}).
         */
        AWAITING_PEER,
        /**
         * Passive side of an initiator that asked for no ready-to-receive frame (siw's default client mode): the
         * connection counts as established once the Reply is written, as siw does (IWARP.md 5.4 item 16), but
         * nothing is sent until the initiator's first frame arrived (RFC 5044 section 7.1.2, which a siw initiator
         * enforces) or {@code mpa.hold.ms} passed (a server that speaks first would otherwise never be heard).
         */
        OUTPUT_HELD,
        /** Data flows both ways. */
        ESTABLISHED,
        /** Passive side that never got established: timeout, or the stream broke first. Final. */
        ABANDONED;

        /** @return whether the connection counts as established (the QP may be told of failures and closes) */
        boolean established() {
            return this == OUTPUT_HELD || this == ESTABLISHED;
        }

        /** @return whether {@code next} may follow this phase */
        boolean mayAdvanceTo(Phase next) {
            return switch (this) {
                case NEW -> next == AWAITING_PEER || next == OUTPUT_HELD || next == ESTABLISHED;
                case AWAITING_PEER -> next == ESTABLISHED || next == ABANDONED;
                case OUTPUT_HELD -> next == ESTABLISHED;
                case ESTABLISHED, ABANDONED -> false;
            };
        }
    }

    /** Written by {@link #advance} only: the starting thread, the receive side, a failing passive side. */
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
    /** Counted down when establishment has an answer: established (either way) or abandoned. */
    private final CountDownLatch settled = new CountDownLatch(1);

    // ---- the end: one-shot facts ------------------------------------------------------------------------------
    /** The first failure; any thread records it, the transmit thread acts on it. */
    private final AtomicReference<Failure> failure = new AtomicReference<>();
    /** The channel is closed (whoever closes it first). */
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    /** The provider asked for a graceful close ({@code disconnect}). */
    private volatile boolean disconnectRequested;
    /** This side closes on its own ({@code reject}, {@code reset}, an abandoned passive side): nothing to report. */
    private volatile boolean localClose;
    /** The receive thread ended (written by it, last thing before it exits). */
    private volatile boolean rxEnded;
    /** The QP heard (or needs no word of) the end: {@code failed} or {@code peerClosed} is called at most once. */
    private final AtomicBoolean endReported = new AtomicBoolean();

    // ---- the engine threads ------------------------------------------------------------------------------------
    /** Engine threads still running; the last one to end closes the channel. */
    private final AtomicInteger liveThreads = new AtomicInteger();
    private final CountDownLatch threadsDone = new CountDownLatch(1);
    /** Completed with {@link #threadsDone}: what waits for the engine to have left the QP's memory. */
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    // ---- phase ------------------------------------------------------------------------------------------------

    /** @return the phase now */
    Phase phase() {
        return phase.get();
    }

    /** @return whether the connection was started (it left {@link Phase#NEW}) */
    boolean started() {
        return phase.get() != Phase.NEW;
    }

    /** @return whether the connection counts as established ({@link Phase#established()}) */
    boolean established() {
        return phase.get().established();
    }

    /**
     * The one guarded transition: {@code from} to {@code to} if the edge is legal and the phase is {@code from}.
     *
     * @return whether the phase changed; {@code false} for a lost race, or for an illegal edge (logged, see the
     *     class comment)
     */
    boolean advance(Phase from, Phase to) {
        if (!from.mayAdvanceTo(to)) {
            LOG.log(Level.SEVERE, "iWARP connection: illegal transition " + from + " -> " + to + " refused (now "
                + this + ")", new IllegalStateException(from + " -> " + to));
            return false;
        }
        if (!phase.compareAndSet(from, to)) {
            return false;
        }
        if (to != Phase.AWAITING_PEER) {
            settled.countDown();
        }
        return true;
    }

    /**
     * Passive side: waits until establishment has an answer ({@link #advance} to an established phase or to
     * {@link Phase#ABANDONED}).
     *
     * @return whether it did within {@code millis}
     */
    boolean awaitSettled(long millis) throws InterruptedException {
        return settled.await(millis, TimeUnit.MILLISECONDS);
    }

    // ---- failure ----------------------------------------------------------------------------------------------

    /**
     * Records how the connection failed; only the first one counts (siw's {@code siw_init_terminate}).
     *
     * @return whether {@code f} is the first (the caller then acts on it)
     */
    boolean record(Failure f) {
        return failure.compareAndSet(null, f);
    }

    /** @return the first failure recorded, or {@code null} */
    Failure failure() {
        return failure.get();
    }

    // ---- close ------------------------------------------------------------------------------------------------

    /** @return whether this call closed it (the first one); the caller closes the channel, then {@link #closeDone} */
    boolean close() {
        return closed.compareAndSet(false, true);
    }

    /** @return whether the channel is closed, or being closed */
    boolean isClosed() {
        return closed.get();
    }

    /** The channel is closed and the close's actions ran: {@link #awaitClosed} and the linger guard may go on. */
    void closeDone() {
        closedLatch.countDown();
    }

    /** @return whether {@link #closeDone} came within {@code millis} */
    boolean awaitCloseDone(long millis) throws InterruptedException {
        return closedLatch.await(millis, TimeUnit.MILLISECONDS);
    }

    // ---- one-shot flags ---------------------------------------------------------------------------------------

    /** The provider asked for a graceful close. */
    void requestDisconnect() {
        disconnectRequested = true;
    }

    /** @return whether a graceful close was asked for */
    boolean disconnectRequested() {
        return disconnectRequested;
    }

    /** This side closes on its own: a read or write failing from now on is no failure to report. */
    void closeLocally() {
        localClose = true;
    }

    /** @return whether this side closes on its own */
    boolean closingLocally() {
        return localClose;
    }

    /** The receive thread ended. */
    void rxEnded() {
        rxEnded = true;
    }

    /** @return whether the receive thread ended */
    boolean receiveEnded() {
        return rxEnded;
    }

    /** @return whether this call may report the end to the QP ({@code failed} or {@code peerClosed}): the first */
    boolean claimEndReport() {
        return endReported.compareAndSet(false, true);
    }

    /** The QP needs no report of the end: it asked for it ({@code abort}, {@code reject}, {@code reset}), or knows. */
    void endReportNotNeeded() {
        endReported.set(true);
    }

    // ---- engine threads ---------------------------------------------------------------------------------------

    /** {@code n} engine threads are about to start. */
    void threadsStarting(int n) {
        liveThreads.set(n);
    }

    /** @return whether the calling engine thread was the last one running (it closes up, then {@link #threadsDone}) */
    boolean threadEnded() {
        return liveThreads.decrementAndGet() == 0;
    }

    /** Every engine thread ended, or none will start (the channel closed before {@code begin}). */
    void threadsDone() {
        threadsDone.countDown();
        released.complete(null);
    }

    /**
     * Runs {@code action} once {@link #threadsDone} has happened (at once, on this thread, if it has; else on the
     * thread that ends last).
     */
    void whenThreadsDone(Runnable action) {
        released.thenRun(action);
    }

    /**
     * Waits until the channel is closed and the engine threads have ended.
     *
     * @return whether both happened within {@code millis}
     */
    boolean awaitClosed(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        if (!closedLatch.await(millis, TimeUnit.MILLISECONDS)) {
            return false;
        }
        return liveThreads.get() == 0 && !started()
            || threadsDone.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * For logs and tests: the phase, then whichever end facts hold, e.g.
     * {@code ESTABLISHED failed(sent term=0x1201 status=0xc0000120) closed}.
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(phase.get().name());
        Failure f = failure.get();
        if (f != null) {
            b.append(" failed(").append(f.sent() ? "sent" : "received").append(" term=0x")
                .append(Integer.toHexString(f.term())).append(" status=0x").append(Integer.toHexString(f.status()))
                .append(')');
        }
        if (disconnectRequested) {
            b.append(" disconnecting");
        }
        if (localClose) {
            b.append(" local-close");
        }
        if (rxEnded) {
            b.append(" rx-ended");
        }
        if (closed.get()) {
            b.append(" closed");
        }
        return b.toString();
    }
}
