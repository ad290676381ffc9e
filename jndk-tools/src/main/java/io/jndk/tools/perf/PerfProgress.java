package io.jndk.tools.perf;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The progress bar of {@code jndk perf} on stderr: only when stdout is a terminal, and only once the run has taken
 * two seconds (a shorter run never shows it). Repainted five times a second while a row runs, so that a long row
 * moves too: the share of the whole run done, the row, the time since the start, the time left (estimated from
 * the share done) and the current rate (operations and Gbit/s over the last second or so). Rows printed through
 * {@link #println} clear the bar first.
 */
final class PerfProgress implements AutoCloseable {
    private static final long SHOW_AFTER_NS = 2_000_000_000L;
    /** The rate is taken over at least this long (between two samples of the operation count). */
    private static final long RATE_WINDOW_NS = 1_000_000_000L;
    private static final int WIDTH = 24;

    private final PrintStream err;
    private final boolean enabled;
    private final LongSupplier clock;
    private final long start;
    private final AtomicLong done = new AtomicLong();
    private final Thread painter;
    private volatile long rowWork = 1;
    private volatile long rowDurationNs;
    private volatile long rowStart;
    private volatile long rowBytes;
    private volatile int row, rows = 1;
    private volatile String label = "";
    private long sampleAt, sampleDone;
    private double rate = Double.NaN;
    private boolean shown, closed;

    private PerfProgress(PrintStream err, boolean enabled, LongSupplier clock, boolean paintThread) {
        this.err = err;
        this.enabled = enabled;
        this.clock = clock;
        this.start = clock.getAsLong();
        this.rowStart = start;
        this.painter = enabled && paintThread ? Thread.ofPlatform().daemon().name("perf-progress").start(this::paintLoop)
                : null;
    }

    /** A bar on {@code err} when the console is a terminal. */
    static PerfProgress forTerminal(PrintStream err) {
        java.io.Console c = System.console();
        return new PerfProgress(err, c != null && c.isTerminal(), System::nanoTime, true);
    }

    /** No bar at all. */
    static PerfProgress off() {
        return new PerfProgress(System.err, false, System::nanoTime, false);
    }

    /** A bar painted only by {@link #paint()} calls, on {@code clock}'s time (tests). */
    static PerfProgress manual(PrintStream err, LongSupplier clock) {
        return new PerfProgress(err, true, clock, false);
    }

    /**
     * Starts row {@code index} of {@code total}: {@code work} operations expected, or {@code durationNs} of running,
     * each of {@code bytes} (for the Gbit/s figure).
     */
    synchronized void row(int index, int total, String what, long work, long durationNs, long bytes) {
        done.set(0);
        rowWork = Math.max(1, work);
        rowDurationNs = durationNs;
        rowStart = clock.getAsLong();
        rowBytes = bytes;
        label = what;
        rows = Math.max(1, total);
        row = index;
        sampleAt = rowStart;
        sampleDone = 0;
        rate = Double.NaN;
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
                Thread.sleep(200); // the repaint period, not a synchronisation
            } catch (InterruptedException e) {
                return;
            }
            if (clock.getAsLong() - start > SHOW_AFTER_NS) {
                paint();
            }
        }
    }

    /** Paints the bar now. */
    synchronized void paint() {
        if (closed || !enabled) {
            return;
        }
        err.print("\r" + line() + "\u001b[K");
        err.flush();
        shown = true;
    }

    /**
     * The bar's text: "[#####.....]  42%  row 3/12 write 65536 B  12 s, 17 s left  15230 op/s 7.98 Gbit/s". The time
     * left is the time so far scaled by the share not yet done (shown once 2% is done); the rate is the operations
     * of the current row over the last second or so (shown once a second of the row has passed).
     */
    synchronized String line() {
        long now = clock.getAsLong();
        long d = done.get();
        double inRow = rowDurationNs > 0 ? (double) (now - rowStart) / rowDurationNs : (double) d / rowWork;
        double f = Math.clamp((row + Math.clamp(inRow, 0, 1)) / rows, 0, 1);
        int full = (int) Math.round(f * WIDTH);
        double elapsed = (now - start) / 1e9;
        if (now - sampleAt >= RATE_WINDOW_NS) {
            rate = (d - sampleDone) / ((now - sampleAt) / 1e9);
            sampleAt = now;
            sampleDone = d;
        }
        StringBuilder b = new StringBuilder();
        b.append('[').append("#".repeat(full)).append(".".repeat(WIDTH - full)).append(']');
        b.append(String.format(Locale.ROOT, " %3.0f%%  row %d/%d %s  %s", f * 100, Math.min(row + 1, rows), rows, label,
                duration(elapsed)));
        if (f > 0.02) {
            b.append(", ").append(duration(elapsed / f - elapsed)).append(" left");
        }
        if (!Double.isNaN(rate)) {
            b.append(String.format(Locale.ROOT, "  %.0f op/s %.2f Gbit/s", rate, rate * rowBytes * 8 / 1e9));
        }
        return b.toString();
    }

    private static String duration(double s) {
        long t = Math.round(s);
        return t < 120 ? t + " s" : t < 7200 ? t / 60 + " min " + t % 60 + " s" : t / 3600 + " h " + t / 60 % 60 + " min";
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
