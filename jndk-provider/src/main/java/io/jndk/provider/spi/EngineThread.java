package io.jndk.provider.spi;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Work a transport engine thread runs for the provider once it holds no provider lock: consumer notifications
 * delivered on the engine thread that produced the completion (adapter option {@code notify=inline}) instead of
 * through the adapter's dispatcher thread, saving a thread hand-off on the notification path.
 *
 * <p>An engine thread calls {@link #enter()} when it starts and {@link #runPending()} at points where it holds no
 * lock (after a read is processed, after a transmit batch). The provider {@link #defer defers} work only on such
 * threads; on any other thread (a consumer posting, the dispatcher) it uses the dispatcher as before, so a
 * callback never runs inside a consumer's own call. Allocation-free once the queue has grown.
 *
 * <p>An engine thread that never blocks in its work (a shared engine loop) may also take over the provider's
 * hand-offs to its dispatcher thread ({@link #enterDeferringHandOffs()}): a completion found under a QP's and a CQ's
 * monitors then wakes the dispatcher after both are released, at the next {@link #runHandOffs()} (which
 * {@link #runPending()} calls first), instead of inside them. Waking a thread is a system call, on a virtual machine
 * often an inter-processor interrupt, and a consumer that posts or polls meanwhile would wait for those monitors
 * while it ran. Hand-offs run no consumer code, so the thread may run them between any two pieces of its work.
 */
public final class EngineThread {
    private static final Logger LOG = Logger.getLogger(EngineThread.class.getName());
    private static final ThreadLocal<EngineThread> CURRENT = new ThreadLocal<>();

    /** Something deferred with an int argument. */
    public interface Task {
        /** Runs the deferred work. */
        void run(int argument);
    }

    /** Where a deferred hand-off goes: the provider's dispatcher. */
    public interface HandOff {
        /** Queues {@code callback} for the dispatcher's thread (it was counted when it was deferred). */
        void handOff(Runnable callback);
    }

    private Task[] tasks = new Task[8];
    private int[] arguments = new int[8];
    private int count;
    private final boolean defersHandOffs;
    private HandOff[] handOffTargets = new HandOff[8];
    private Runnable[] handOffs = new Runnable[8];
    private int handOffCount;

    private EngineThread(boolean defersHandOffs) {
        this.defersHandOffs = defersHandOffs;
    }

    /** Marks the calling thread as an engine thread. */
    public static EngineThread enter() {
        EngineThread e = new EngineThread(false);
        CURRENT.set(e);
        return e;
    }

    /**
     * Marks the calling thread as an engine thread that never blocks in its work and also takes the dispatcher
     * hand-offs it makes ({@link #deferHandOff}); it must call {@link #runHandOffs()} or {@link #runPending()} before
     * it waits for anything.
     */
    public static EngineThread enterDeferringHandOffs() {
        EngineThread e = new EngineThread(true);
        CURRENT.set(e);
        return e;
    }

    /**
     * Keeps a dispatcher hand-off on the calling thread until its next {@link #runHandOffs()}, if it is an engine
     * thread that takes them.
     *
     * @return false on any other thread (nothing kept: the caller hands off now)
     */
    public static boolean deferHandOff(HandOff target, Runnable callback) {
        EngineThread e = CURRENT.get();
        if (e == null || !e.defersHandOffs) {
            return false;
        }
        if (e.handOffCount == e.handOffs.length) {
            e.handOffTargets = java.util.Arrays.copyOf(e.handOffTargets, e.handOffCount * 2);
            e.handOffs = java.util.Arrays.copyOf(e.handOffs, e.handOffCount * 2);
        }
        e.handOffTargets[e.handOffCount] = target;
        e.handOffs[e.handOffCount] = callback;
        e.handOffCount++;
        return true;
    }

    /** Makes the hand-offs the calling thread kept, if it is an engine thread (a caller about to wait for them). */
    public static void handOffNow() {
        EngineThread e = CURRENT.get();
        if (e != null) {
            e.runHandOffs();
        }
    }

    /** Makes the hand-offs this thread kept, in order. */
    public void runHandOffs() {
        for (int i = 0; i < handOffCount; i++) {
            HandOff target = handOffTargets[i];
            Runnable callback = handOffs[i];
            handOffTargets[i] = null;
            handOffs[i] = null;
            target.handOff(callback);
        }
        handOffCount = 0;
    }

    /** Whether the calling thread is an engine thread. */
    public static boolean isEngineThread() {
        return CURRENT.get() != null;
    }

    /**
     * Queues {@code task} on the calling thread if it is an engine thread.
     *
     * @return false on any other thread (nothing queued)
     */
    public static boolean defer(Task task, int argument) {
        EngineThread e = CURRENT.get();
        if (e == null) {
            return false;
        }
        e.add(task, argument);
        return true;
    }

    private void add(Task task, int argument) {
        if (count == tasks.length) {
            tasks = java.util.Arrays.copyOf(tasks, count * 2);
            arguments = java.util.Arrays.copyOf(arguments, count * 2);
        }
        tasks[count] = task;
        arguments[count] = argument;
        count++;
    }

    /**
     * Makes the hand-offs kept, then runs what was deferred, in order (including what it defers in turn); consumer
     * exceptions are logged.
     */
    public void runPending() {
        runHandOffs();
        for (int i = 0; i < count; i++) {
            Task t = tasks[i];
            tasks[i] = null;
            try {
                t.run(arguments[i]);
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "consumer callback threw; the provider continues", x);
            }
        }
        count = 0;
        runHandOffs(); // what the tasks handed off in turn
    }
}
