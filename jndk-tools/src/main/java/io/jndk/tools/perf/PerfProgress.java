package io.jndk.tools.perf;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The progress bar of {@code jndk perf} on stderr: only when stdout is a terminal, and only once the run has taken
 * two seconds (a shorter run never shows it). Rows printed through {@link #println} clear the bar first.
 */
final class PerfProgress implements AutoCloseable {
    private static final long SHOW_AFTER_NS = 2_000_000_000L;
    private static final int WIDTH = 30;

    private final PrintStream err;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private final AtomicLong done = new AtomicLong();
    private final Thread painter;
    private volatile long rowWork = 1;
    private volatile long rowDurationNs;
    private volatile long rowStart = System.nanoTime();
    private volatile int row, rows = 1;
    private volatile String label = "";
    private boolean shown, closed;

    private PerfProgress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
        this.painter = enabled ? Thread.ofPlatform().daemon().name("perf-progress").start(this::paintLoop) : null;
    }

    /** A bar on {@code err} when the console is a terminal. */
    static PerfProgress forTerminal(PrintStream err) {
        java.io.Console c = System.console();
        return new PerfProgress(err, c != null && c.isTerminal());
    }

    /** No bar at all. */
    static PerfProgress off() {
        return new PerfProgress(System.err, false);
    }

    /** Starts row {@code index} of {@code total}: {@code work} operations expected, or {@code durationNs} of running. */
    void row(int index, int total, String what, long work, long durationNs) {
        done.set(0);
        rowWork = Math.max(1, work);
        rowDurationNs = durationNs;
        rowStart = System.nanoTime();
        label = what;
        rows = Math.max(1, total);
        row = index;
    }

    /** Operations done in the current row (called from the measuring threads, in batches). */
    void add(long k) {
        if (enabled) {
            done.addAndGet(k);
        }
    }

    /** Prints a line to {@code out}, clearing the bar first. */
    synchronized void println(Runnable print) {
        clear();
        print.run();
    }

    private void paintLoop() {
        while (true) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            if (System.nanoTime() - start > SHOW_AFTER_NS) {
                paint();
            }
        }
    }

    private synchronized void paint() {
        if (closed) {
            return;
        }
        double inRow = rowDurationNs > 0 ? (double) (System.nanoTime() - rowStart) / rowDurationNs
                : (double) done.get() / rowWork;
        double f = Math.clamp((row + Math.clamp(inRow, 0, 1)) / rows, 0, 1);
        int full = (int) Math.round(f * WIDTH);
        double elapsed = (System.nanoTime() - start) / 1e9;
        String eta = f > 0.02 ? String.format(Locale.ROOT, "%4.0f s left", elapsed / f - elapsed) : "";
        err.printf(Locale.ROOT, "\r[%s%s] %3.0f%%  row %d/%d  %-16s %s\u001b[K", "#".repeat(full), ".".repeat(WIDTH - full),
                f * 100, Math.min(row + 1, rows), rows, label, eta);
        err.flush();
        shown = true;
    }

    private void clear() {
        if (shown) {
            err.print("\r\u001b[K");
            err.flush();
            shown = false;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (painter != null) {
            painter.interrupt();
        }
        clear();
    }
}
