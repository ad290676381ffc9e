package io.jndk.provider;

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
 */
final class Dispatcher {
    private static final Logger LOG = Logger.getLogger(Dispatcher.class.getName());
    private final ScheduledThreadPoolExecutor executor;
    private final AtomicLong outstanding = new AtomicLong();
    private volatile Thread thread;

    Dispatcher(String name) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            thread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    /** True when called on this dispatcher's thread. */
    boolean onDispatcherThread() {
        return Thread.currentThread() == thread;
    }

    /** Queues a callback; exceptions thrown by consumer code are logged and never escape a provider thread. */
    void run(Runnable callback) {
        outstanding.incrementAndGet();
        executor.execute(() -> invoke(callback));
    }

    /** Queues a callback after a delay; returns a handle to cancel it. */
    ScheduledFuture<?> schedule(Runnable callback, long delay, TimeUnit unit) {
        outstanding.incrementAndGet();
        return executor.schedule(() -> invoke(callback), delay, unit);
    }

    /** Cancels a scheduled callback that has not started. */
    void cancel(ScheduledFuture<?> f) {
        if (f != null && f.cancel(false)) {
            outstanding.decrementAndGet();
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
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long self = onDispatcherThread() ? 1 : 0;
        while (outstanding.get() > self && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    void shutdown() {
        executor.shutdownNow();
    }
}
