package io.jndk.tools;

import java.time.Duration;

/** A platform thread of a perf run whose failure is rethrown by {@link #join} (with the thread's name). */
final class PerfThread {
    private final Thread thread;
    private volatile Throwable failure;

    private PerfThread(String name, Runnable body) {
        thread = Thread.ofPlatform().name(name).unstarted(() -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
        });
    }

    static PerfThread start(String name, Runnable body) {
        PerfThread t = new PerfThread(name, body);
        t.thread.start();
        return t;
    }

    /** Waits for the end (bounded by {@link Sync#TIMEOUT_MS} plus {@code extra}); rethrows the thread's failure. */
    void join(Duration extra) {
        try {
            if (!thread.join(extra.plusMillis(Sync.TIMEOUT_MS))) {
                throw new IllegalStateException(thread.getName() + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure != null) {
            throw new IllegalStateException(thread.getName() + ": " + failure.getMessage(), failure);
        }
    }

    void join() {
        join(Duration.ZERO);
    }

    boolean finished() {
        return !thread.isAlive();
    }
}
