package io.jndk.tools.kit;

import java.time.Duration;

/** A platform thread of a tool run whose failure is rethrown by {@link #join} (with the thread's name). */
public final class ToolThread {
    private final Thread thread;
    private volatile Throwable failure;

    private ToolThread(String name, Runnable body) {
        thread = Thread.ofPlatform().name(name).unstarted(() -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
        });
    }

    /** Starts {@code body} on a platform thread named {@code name}. */
    public static ToolThread start(String name, Runnable body) {
        ToolThread t = new ToolThread(name, body);
        t.thread.start();
        return t;
    }

    /** Waits for the end (bounded by {@link Sync#TIMEOUT_MS} plus {@code extra}); rethrows the thread's failure. */
    public void join(Duration extra) {
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

    /** {@link #join(Duration)} with no extra time. */
    public void join() {
        join(Duration.ZERO);
    }

    /** Whether the thread has ended. */
    public boolean finished() {
        return !thread.isAlive();
    }
}
