package io.jndk.tools.kit;

import java.io.File;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;

/**
 * Whether the JIT has gone quiet: the end of a benchmark's warm-up, the same rule for jndk and for the baselines it
 * is set against. A warm-up that ends on time alone measured jndk while the C2 compiler still ran on one of the two
 * cores of a small machine: a 64 KiB Write stream warmed up for 3 s still had its compiler threads busy for 1.5 s of
 * the next 3.5 s, and a request of another kind at the warm-up's end (perf's settling Read) deoptimised the hot path,
 * which then ran its profiling tier until C2 compiled it again (docs/PERFORMANCE.md).
 *
 * <p>The JIT's work is the CPU time of its compiler threads (clock ticks of {@code /proc/self/task}, Linux), else the
 * JVM's total compilation time; the first moves while a compilation runs, the second only as one ends. A window is
 * quiet when that work grew by at most one clock tick (10 ms), or 1 ms of compilation time.
 */
public final class JitWatch {
    /** How long a window must be quiet: also the length of a warm-up part that is to leave the JIT quiet. */
    public static final long QUIET_NANOS = 300_000_000L;
    /** The JIT work a quiet window may hold. */
    private static final long SLACK = 1;

    private final CompilationMXBean jit;
    private long mark;

    /** Starts watching now (a {@link #mark} now). */
    public JitWatch() {
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        this.jit = c != null && c.isCompilationTimeMonitoringSupported() ? c : null;
        mark();
    }

    /** One part of a warm-up ({@link #runUntilQuiet}). */
    public interface Part<E extends Exception> {
        void run() throws E;
    }

    /**
     * A stream's warm-up after its first stretch: runs {@code part} again and again until one run of it leaves the JIT
     * quiet, or until {@code maxNanos} have passed (the part that is running then ends first).
     */
    public static <E extends Exception> void runUntilQuiet(long maxNanos, Part<E> part) throws E {
        long until = System.nanoTime() + maxNanos;
        JitWatch watch = new JitWatch();
        do {
            watch.mark();
            part.run();
        } while (!watch.quietSinceMark() && System.nanoTime() - until < 0);
    }

    /** Notes the JIT's work so far: {@link #quietSinceMark} looks at what it does from here. */
    public void mark() {
        mark = work();
    }

    /** @return whether the JIT did (almost) no work since the last {@link #mark}; true when neither measure is available */
    public boolean quietSinceMark() {
        long now = work();
        return now < 0 || mark < 0 || now - mark <= SLACK;
    }

    /** The JIT's work so far, in the unit of whichever measure is available: clock ticks, else ms; -1 if neither. */
    private long work() {
        long ticks = compilerTicks();
        if (ticks >= 0) {
            return ticks;
        }
        return jit == null ? -1 : jit.getTotalCompilationTime();
    }

    private static long compilerTicks() {
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) {
            return -1;
        }
        long ticks = 0;
        for (File task : tasks) {
            try {
                String comm = Files.readString(task.toPath().resolve("comm"));
                if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
                    continue;
                }
                String stat = Files.readString(task.toPath().resolve("stat"));
                // after the command in parentheses: state is field 3, utime and stime fields 14 and 15
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (IOException | RuntimeException e) {
                // the thread ended meanwhile, or this is not Linux: skip it
            }
        }
        return ticks;
    }
}
