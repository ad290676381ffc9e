package io.jndk.provider;

import io.jndk.provider.spi.EngineThread;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs consumer callbacks of one adapter on one provider thread, in submission order, never under a
 * provider lock. One thread per adapter serializes CQ notifications per CQ as NDK requires, and keeps
 * callbacks from recursing into the posting thread's stack.
 *
 * <p>Queuing a callback allocates nothing: the queue is an array deque under the dispatcher's monitor (it grows to
 * the most callbacks ever waiting at once, then stays), and the thread, started with the first callback, waits on
 * that monitor. A CQ's notification, the hot case, hands over a runnable the CQ keeps (see {@link CqNotifier}).
 * Delayed callbacks (timers: connect timeouts, interrupt moderation) come from a timer thread started with the first
 * of them, which queues each one here when it is due, so that it too runs on the dispatcher's thread in order.
 */
final class Dispatcher implements EngineThread.HandOff {
    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private final String name;
    private final AtomicLong outstanding = new AtomicLong();

    // ---- under the monitor of this dispatcher -----------------------------------------------------
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>(16);
    private boolean stopped;
    private boolean idle;
    /** Started with the first callback; read without the monitor by {@link #onDispatcherThread}. */
    private volatile Thread thread;
    private ScheduledThreadPoolExecutor timers;

    Dispatcher(String name) {
        this.name = name;
    }

    /** True when called on this dispatcher's thread. */
    boolean onDispatcherThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Queues a callback; exceptions thrown by consumer code are logged and never escape a provider thread. On a
     * shared engine loop the hand-off waits until the loop holds no provider monitor (the QP's and the CQ's of a
     * completion): {@link EngineThread#deferHandOff}.
     */
    void run(Runnable callback) {
        outstanding.incrementAndGet();
        if (!EngineThread.deferHandOff(this, callback)) {
            enqueue(callback);
        }
    }

    @Override
    public void handOff(Runnable callback) {
        enqueue(callback);
    }

    private synchronized void enqueue(Runnable callback) {
        if (stopped) {
            outstanding.decrementAndGet(); // dropped, as an executor shut down drops it
            return;
        }
        queue.addLast(callback);
        if (thread == null) {
            thread = new Thread(this::loop, name);
            thread.setDaemon(true);
            thread.start();
        } else if (idle) {
            notify();
        }
    }

    /** Queues a callback after a delay; returns a handle to cancel it. */
    ScheduledFuture<?> schedule(Runnable callback, long delay, TimeUnit unit) {
        outstanding.incrementAndGet();
        ScheduledThreadPoolExecutor t;
        synchronized (this) {
            if (timers == null) {
                timers = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread th = new Thread(r, name + "-timers");
                    th.setDaemon(true);
                    return th;
                });
                timers.setRemoveOnCancelPolicy(true);
                if (stopped) {
                    timers.shutdownNow();
                }
            }
            t = timers;
        }
        try {
            return t.schedule(() -> enqueue(callback), delay, unit);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            outstanding.decrementAndGet(); // the dispatcher has shut down: the caller learns it as before
            throw e;
        }
    }

    /** Cancels a scheduled callback that has not started. */
    void cancel(ScheduledFuture<?> f) {
        if (f != null && f.cancel(false)) {
            outstanding.decrementAndGet();
        }
    }

    private void loop() {
        while (true) {
            Runnable r;
            synchronized (this) {
                while (queue.isEmpty() && !stopped) {
                    idle = true;
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // only shutdown interrupts; the loop looks at stopped
                    }
                    idle = false;
                }
                if (stopped) {
                    return;
                }
                r = queue.pollFirst();
            }
            invoke(r);
        }
    }

    private void invoke(Runnable callback) {
        try {
            callback.run();
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "consumer callback threw; the provider continues", t);
        } finally {
            outstanding.decrementAndGet();
        }
    }

    /** Waits (bounded) until no callback is queued or running, except the caller's own. */
    void awaitQuiet(long timeoutMillis) {
        EngineThread.handOffNow(); // what this thread kept, if it is an engine loop, is awaited too
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long self = onDispatcherThread() ? 1 : 0;
        while (outstanding.get() > self && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Stops the thread and the timers; callbacks still queued are dropped. */
    void shutdown() {
        ScheduledThreadPoolExecutor t;
        synchronized (this) {
            stopped = true;
            queue.clear();
            notifyAll();
            t = timers;
        }
        if (t != null) {
            t.shutdownNow();
        }
    }
}
