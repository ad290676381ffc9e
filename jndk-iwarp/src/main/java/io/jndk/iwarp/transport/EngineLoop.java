package io.jndk.iwarp.transport;

import io.jndk.provider.spi.EngineThread;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One engine loop of the shared engine (Netty's event loop, siw's per-CPU transmit thread and softirq in one): a
 * platform thread serving many connections ({@link LoopDrive}) over one selector.
 *
 * <p><b>A turn.</b> The loop selects (the action form of {@code select}, which allocates nothing), serves every
 * ready key (a readable socket: at most {@link RxEngine#LOOP_READS} reads; a writable one: the transmit side), then
 * every connection scheduled meanwhile (new work posted, a failure, the close), each once, in the order they were
 * scheduled; one that has more work than a turn allows schedules itself again and is served in the next turn, after
 * the others (fair service: no connection holds the loop for longer than one bounded turn of work). Connections whose
 * polling consumers drive the receive side ({@link ConsumerDrive#standByGoesOn}) are ticked about once a millisecond.
 *
 * <p><b>Scheduling</b> ({@link #schedule}) is a lock-free push of the connection itself onto an intrusive stack (no
 * allocation), then a selector wake-up only when the loop is selecting. Every selector operation (registration,
 * interest) is the loop's own.
 *
 * <p><b>Lifetime.</b> A loop starts with its first connection and ends once it has served none for
 * {@link #IDLE_EXIT_MILLIS} (or at once after the adapter's shutdown); {@link EngineLoops} starts a new one when a
 * connection comes after that.
 */
final class EngineLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger(EngineLoop.class.getName());
    /** A loop with no connection ends after this long. */
    static final long IDLE_EXIT_MILLIS = 200;
    /** The tick of connections standing by for polling consumers. */
    private static final long TICK_MILLIS = 1;

    private final EngineLoops group;
    private final Selector selector;
    private final Thread thread;
    /** Connections served by this loop; -1 once it ended (no connection attaches after that). */
    private final AtomicInteger clients = new AtomicInteger();
    /** Scheduled connections, newest first (an intrusive stack through {@link LoopDrive#next}). */
    private final AtomicReference<LoopDrive> scheduled = new AtomicReference<>();
    /** The loop is in (or about to enter) a blocking select: a schedule must wake it. */
    private volatile boolean selecting;
    private volatile boolean ended;
    /** Connections standing by for polling consumers (the loop's own). */
    private final ArrayList<LoopDrive> standing = new ArrayList<>();
    /**
     * Connections that left, until the next selection deregisters their cancelled keys: only then does a closed
     * channel's socket close (the loop's own).
     */
    private final ArrayList<LoopDrive> departing = new ArrayList<>();
    private final Consumer<SelectionKey> onKey = this::onKey;
    /** {@code engine.spin.us}: how long the loop polls its selector after a turn with work before it waits. */
    private final long spinNanos;
    /** {@code engine.yield.us}: a turn longer than this yields the CPU before the next selection (0: never). */
    private final long yieldNanos;
    /** When this turn began: its first selected key's service, or the end of the selection (0: not yet). */
    private long turnFrom;
    /** This loop's thread's deferred work (set when the thread starts; used by the thread only). */
    private EngineThread engineThread;
    /** Turns after which the loop yielded its CPU (written by the loop thread only; read by tests). */
    private volatile long yields;

    EngineLoop(EngineLoops group, String name, EngineMode mode) throws IOException {
        this.group = group;
        this.spinNanos = mode.loopSpinNanos();
        this.yieldNanos = mode.loopYieldNanos();
        this.selector = Selector.open();
        this.thread = Thread.ofPlatform().daemon(true).name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** @return the loop's selector (for registrations, on the loop thread) */
    Selector selector() {
        return selector;
    }

    /** A connection joins this loop; false when the loop has ended (or is ending). */
    boolean attach() {
        for (;;) {
            int n = clients.get();
            if (n < 0) {
                return false;
            }
            if (clients.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A connection left (both its sides ended): the loop thread's call. */
    void detach() {
        clients.decrementAndGet();
    }

    /** Serves {@code d} in the loop's next turn (any thread; at most once until it is served). */
    void schedule(LoopDrive d) {
        if (!d.queued.compareAndSet(false, true)) {
            return;
        }
        LoopDrive head;
        do {
            head = scheduled.get();
            d.next = head;
        } while (!scheduled.compareAndSet(head, d));
        // the loop's own hand-offs (a request read in a selection's action schedules its answer) need no wake-up:
        // the loop looks at its schedule right after the selection, and a wake-up would cost a system call there and
        // another to clear it in the next selection
        if (selecting && !ended && Thread.currentThread() != thread) {
            selector.wakeup();
        }
    }

    /** Wakes the loop (the adapter's shutdown). */
    void wake() {
        if (!ended) {
            selector.wakeup();
        }
    }

    /** A connection left: it hears {@link LoopDrive#departed} after the next selection (the loop thread's call). */
    void departs(LoopDrive d) {
        departing.add(d);
    }

    /** A connection stops being read while polling consumers drive it; the loop ticks it. */
    void standBy(LoopDrive d) {
        if (!d.listed) {
            d.listed = true;
            standing.add(d);
        }
    }

    @Override
    public void run() {
        EngineThread deferred = EngineThread.enterDeferringHandOffs();
        engineThread = deferred;
        long idleSince = System.nanoTime();
        boolean worked = false;
        try {
            while (true) {
                if (clients.get() == 0 && scheduled.get() == null) {
                    long idle = System.nanoTime() - idleSince;
                    if ((group.closing() || idle >= TimeUnit.MILLISECONDS.toNanos(IDLE_EXIT_MILLIS))
                        && clients.compareAndSet(0, -1)) {
                        return;
                    }
                } else {
                    idleSince = System.nanoTime();
                }
                long timeout = clients.get() == 0 ? IDLE_EXIT_MILLIS : standing.isEmpty() ? 0 : TICK_MILLIS;
                int leaving = departing.size(); // deregistered by this selection (later ones, by the next)
                int selected = worked && spinNanos > 0 ? spin() : 0;
                if (selected == 0) {
                    selecting = true;
                    try {
                        if (scheduled.get() != null || !departing.isEmpty()) {
                            selected = selector.selectNow(onKey);
                        } else {
                            selected = selector.select(onKey, timeout);
                        }
                    } finally {
                        selecting = false;
                    }
                }
                if (yieldNanos > 0 && turnFrom == 0) {
                    turnFrom = System.nanoTime(); // no key was served: the turn begins now
                }
                deferred.runPending();
                releaseDeparted(leaving);
                deferred.runHandOffs(); // what the departed connections' flushes handed off
                worked = serveScheduled(deferred) || selected > 0;
                if (!standing.isEmpty()) {
                    tick(deferred);
                }
                if (yieldNanos > 0) {
                    yieldAfterLongTurn();
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.SEVERE, "iWARP engine loop failed; its connections are reset", e);
        } finally {
            ended = true;
            clients.set(-1);
            try {
                selector.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
            releaseDeparted(departing.size());
            deferred.runPending();
        }
    }

    /** The first {@code n} connections that left, before the last selection: their channels are closed now. */
    private void releaseDeparted(int n) {
        if (n == 0) {
            return; // the common case: no subList view is made on each turn
        }
        for (int i = 0; i < n; i++) {
            try {
                departing.get(i).departed();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "iWARP engine loop: a released connection's action failed", e);
            }
        }
        departing.subList(0, n).clear();
    }

    /**
     * {@code engine.yield.us}: a turn that ran longer than {@link #yieldNanos} (its selected keys' actions, which run
     * inside the selection, and then its scheduled connections) yields the CPU. A thread that waits for this CPU (a
     * consumer, another loop, a thread of another process) runs before the loop's next turn instead of after the
     * scheduler's time slice; with nobody waiting the yield returns at once. The kernel's own long loops do the same
     * between their work items ({@code cond_resched}).
     */
    private void yieldAfterLongTurn() {
        long ran = System.nanoTime() - turnFrom;
        turnFrom = 0;
        if (ran > yieldNanos) {
            yields++;
            Thread.yield();
        }
    }

    /** @return the turns after which this loop yielded its CPU ({@code engine.yield.us}) */
    long yields() {
        return yields;
    }

    private void onKey(SelectionKey k) {
        if (yieldNanos > 0 && turnFrom == 0) {
            turnFrom = System.nanoTime();
        }
        if (!k.isValid()) {
            return;
        }
        LoopDrive d = (LoopDrive) k.attachment();
        try {
            d.ready(k.readyOps());
        } catch (RuntimeException e) {
            d.crashed(e);
        }
        engineThread.runHandOffs(); // the connection's monitors are released: wake its dispatcher now
    }

    /**
     * {@code engine.spin.us} after a turn with work: polls the selector without waiting, for up to
     * {@link #spinNanos}, until a socket is ready or a connection is scheduled (a schedule wakes no one meanwhile:
     * the loop is not selecting). A peer's answer that comes within the spin costs no wake-up of this thread.
     *
     * @return the keys selected (0: nothing came, or a schedule did; the loop's usual selection follows)
     */
    private int spin() throws IOException {
        long until = System.nanoTime() + spinNanos;
        do {
            if (scheduled.get() != null || !departing.isEmpty()) {
                return 0;
            }
            int n = selector.selectNow(onKey);
            if (n > 0) {
                return n;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - until < 0);
        return 0;
    }

    /** Every connection scheduled since the last turn, oldest first, each once; whether there was one. */
    private boolean serveScheduled(EngineThread deferred) {
        LoopDrive list = scheduled.getAndSet(null);
        boolean any = list != null;
        LoopDrive fifo = null;
        while (list != null) { // the stack is newest first
            LoopDrive n = list.next;
            list.next = fifo;
            fifo = list;
            list = n;
        }
        while (fifo != null) {
            LoopDrive d = fifo;
            fifo = d.next;
            d.next = null;
            d.queued.set(false);
            try {
                d.service();
            } catch (RuntimeException e) {
                d.crashed(e);
            }
            deferred.runPending();
        }
        return any;
    }

    /** Connections standing by: each goes on, or is read again. */
    private void tick(EngineThread deferred) {
        long now = System.nanoTime();
        for (int i = standing.size() - 1; i >= 0; i--) {
            LoopDrive d = standing.get(i);
            boolean goesOn;
            try {
                goesOn = d.tickStandBy(now);
            } catch (RuntimeException e) {
                goesOn = false;
                d.crashed(e);
            }
            deferred.runHandOffs();
            if (!goesOn) {
                d.listed = false;
                int last = standing.size() - 1;
                standing.set(i, standing.get(last));
                standing.remove(last);
                deferred.runPending();
            }
        }
    }
}
