package io.jndk.bench;

import io.jndk.tools.kit.JitWatch;

/**
 * The end of a round-trip benchmark's warm-up, the same rule for jndk and its baselines: at least {@code rounds}
 * rounds, at least {@link #NANOS} of them, and the JIT quiet (its compiler threads used at most a clock tick of
 * CPU time in {@link #QUIET_NANOS}: {@link JitWatch}), or {@link #MAX_NANOS} in all.
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
    static final long QUIET_NANOS = JitWatch.QUIET_NANOS;
    /** The longest warm-up: measuring starts then even if the JIT is still busy. */
    static final long MAX_NANOS = 8_000_000_000L;
    /** How often the JIT's work is looked at. */
    private static final long LOOK_NANOS = 50_000_000L;

    private final long rounds;
    private final long start;
    private final JitWatch jit = new JitWatch();
    private long jitQuietSince;
    private long nextLook;
    private boolean over;

    /** Starts the warm-up now. */
    Warmup(long rounds) {
        this.rounds = rounds;
        this.start = System.nanoTime();
        this.jitQuietSince = start;
        this.nextLook = start;
    }

    /**
     * A stream's warm-up, the rule {@code jndk perf --warmup} follows after its warm-up time: runs {@code part} until
     * one run of it leaves the JIT quiet ({@link JitWatch#runUntilQuiet}), or for {@link #MAX_NANOS}.
     */
    static void untilJitQuiet(JitWatch.Part<Exception> part) throws Exception {
        JitWatch.runUntilQuiet(MAX_NANOS, part);
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
        if (!jit.quietSinceMark()) {
            jit.mark(); // the JIT worked: the quiet window starts again
            jitQuietSince = now;
            return false;
        }
        return now - jitQuietSince >= QUIET_NANOS;
    }
}
