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
 */
public final class EngineThread {
    private static final Logger LOG = Logger.getLogger(EngineThread.class.getName());
    private static final ThreadLocal<EngineThread> CURRENT = new ThreadLocal<>();

    /** Something deferred with an int argument. */
    public interface Task {
        /** Runs the deferred work. */
        void run(int argument);
    }

    private Task[] tasks = new Task[8];
    private int[] arguments = new int[8];
    private int count;

    private EngineThread() {
    }

    /** Marks the calling thread as an engine thread. */
    public static EngineThread enter() {
        EngineThread e = new EngineThread();
        CURRENT.set(e);
        return e;
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

    /** Runs what was deferred, in order (including what it defers in turn); consumer exceptions are logged. */
    public void runPending() {
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
    }
}
