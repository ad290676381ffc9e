package io.jndk.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The end of a round-trip benchmark's warm-up, the same rule for jndk and its baselines: at least {@code rounds}
 * rounds, at least {@link #NANOS} of them, and the JIT quiet (its compiler threads used at most a clock tick of
 * CPU time in {@link #QUIET_NANOS}), or {@link #MAX_NANOS} in all.
 *
 * <p>A count alone ended jndk's warm-up after about 30 ms on this machine (4,000 rounds of 8 us), while the JIT was
 * still compiling the round's code on one of the two cores: a third of the 20,000-round RoCE ping-pongs measured
 * 18-21 us at p50 instead of 7-9. A second was not enough either for the notification-driven ping-pong, whose round
 * runs far more code than the NIO baseline's: the C2 compiler was still busy for about two more seconds, and five
 * runs of 20,000 rounds one after the other in one JVM measured 90, 58, 51, 46 and 37 us at p50
 * (docs/PERFORMANCE.md).
 */
final class Warmup {
    /** The least time warmed up. */
    static final long NANOS = 1_000_000_000L;
    /** How long the JIT's compiler threads must have been (almost) idle. */
    static final long QUIET_NANOS = 300_000_000L;
    /**
     * The JIT work a quiet window may hold: one clock tick (10 ms) of compiler CPU time, or 1 ms of compilation time
     * (a small compilation now and then does not keep the warm-up going).
     */
    private static final long QUIET_SLACK = 1;
    /** The longest warm-up: measuring starts then even if the JIT is still busy. */
    static final long MAX_NANOS = 8_000_000_000L;
    /** How often the JIT's work is looked at. */
    private static final long LOOK_NANOS = 50_000_000L;

    private final long rounds;
    private final long start;
    private final CompilationMXBean jit;
    private long lastJitWork = -1;
    private long jitQuietSince;
    private long nextLook;
    private boolean over;

    /** Starts the warm-up now. */
    Warmup(long rounds) {
        this.rounds = rounds;
        this.start = System.nanoTime();
        CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        this.jit = c != null && c.isCompilationTimeMonitoringSupported() ? c : null;
        this.nextLook = start;
    }

    /** Whether round {@code round} (counted from 1), starting at {@code now}, is measured: the warm-up is over. */
    boolean measures(long round, long now) {
        if (!over && round > rounds && now - start >= NANOS && (jitQuiet(now) || now - start >= MAX_NANOS)) {
            over = true;
        }
        return over;
    }

    private boolean jitQuiet(long now) {
        if (now - nextLook < 0) {
            return false;
        }
        nextLook = now + LOOK_NANOS;
        long t = compilerWork();
        if (t < 0) {
            return true; // neither measure is available here: the time and count rules alone
        }
        if (lastJitWork < 0 || t - lastJitWork > QUIET_SLACK) {
            lastJitWork = t; // the JIT worked: the quiet window starts again
            jitQuietSince = now;
            return false;
        }
        return now - jitQuietSince >= QUIET_NANOS;
    }

    /**
     * The JIT's work so far: the CPU time of the compiler threads (clock ticks of {@code /proc/self/task}, Linux),
     * else the JVM's total compilation time, else -1. The compiler threads' CPU time moves while a compilation runs;
     * the total compilation time moves only as one ends, and a C2 compilation of jndk's notification path can run
     * for longer than {@link #QUIET_NANOS}.
     */
    private long compilerWork() {
        long ticks = compilerTicks();
        if (ticks >= 0) {
            return ticks;
        }
        return jit == null ? -1 : jit.getTotalCompilationTime();
    }

    private static long compilerTicks() {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return -1;
        }
        long ticks = 0;
        for (java.io.File task : tasks) {
            try {
                String comm = java.nio.file.Files.readString(task.toPath().resolve("comm"));
                if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
                    continue;
                }
                String stat = java.nio.file.Files.readString(task.toPath().resolve("stat"));
                // after the command in parentheses: state is field 3, utime and stime fields 14 and 15
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (java.io.IOException | RuntimeException e) {
                // the thread ended meanwhile, or this is not Linux: skip it
            }
        }
        return ticks;
    }
}
