package io.jndk.bench;

/**
 * The end of a round-trip benchmark's warm-up, the same rule for jndk and its baselines: at least {@code rounds}
 * rounds and at least {@link #NANOS} of them. A count alone ended jndk's warm-up after about 30 ms on this machine
 * (4,000 rounds of 8 us), while the JIT was still compiling the round's code on one of the two cores: a third of the
 * 20,000-round RoCE ping-pongs measured 18-21 us at p50 instead of 7-9 (docs/PERFORMANCE.md).
 */
final class Warmup {
    /** The least time warmed up. */
    static final long NANOS = 1_000_000_000L;

    private final long rounds;
    private final long until;
    private boolean over;

    /** Starts the warm-up now. */
    Warmup(long rounds) {
        this.rounds = rounds;
        this.until = System.nanoTime() + NANOS;
    }

    /** Whether round {@code round} (counted from 1), starting at {@code now}, is measured: the warm-up is over. */
    boolean measures(long round, long now) {
        if (!over && round > rounds && now - until >= 0) {
            over = true;
        }
        return over;
    }
}
