package io.jndk.iwarp.fault;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link FaultPlan} drawing each decision from a random generator seeded per connection and direction, so a
 * seed fixes the sequence of decisions of each stream (which chunk a decision lands on still follows TCP).
 * Each chunk gets at most one fault; the rates are per chunk.
 */
public final class SeededFaultPlan implements FaultPlan {
    /**
     * Per-chunk probabilities of each fault (their sum at most 1) and the longest delay.
     *
     * @param split chance of a split into 2 to 8 pieces
     * @param delay chance of a delay of up to {@code maxDelayMillis}
     * @param corrupt chance of one byte's bits flipped
     * @param drop chance of 1 to 64 bytes dropped
     * @param reset chance of an abortive close
     * @param maxDelayMillis the longest delay
     */
    public record Rates(double split, double delay, double corrupt, double drop, double reset, int maxDelayMillis) {
        /** Only faults that must not cause any error: splits and delays. */
        public static Rates benign(double split, double delay, int maxDelayMillis) {
            return new Rates(split, delay, 0, 0, 0, maxDelayMillis);
        }

        /**
         * @throws IllegalArgumentException if a rate is negative, their sum exceeds 1 or the delay bound is negative
         */
        public Rates {
            if (split < 0 || delay < 0 || corrupt < 0 || drop < 0 || reset < 0 || maxDelayMillis < 0
                || split + delay + corrupt + drop + reset > 1) {
                throw new IllegalArgumentException("rates must be non-negative with a sum of at most 1");
            }
        }
    }

    private final long seed;
    private final Rates rates;
    /** One generator per (connection, direction), each used by that stream's pump thread only. */
    private final Map<Long, SplittableRandom> streams = new ConcurrentHashMap<>();

    /**
     * @param seed the seed
     * @param rates the per-chunk fault rates
     */
    public SeededFaultPlan(long seed, Rates rates) {
        this.seed = seed;
        this.rates = rates;
    }

    @Override
    public FaultAction decide(int connection, FaultDirection direction, long offset, int length) {
        SplittableRandom r = random(connection, direction);
        double x = r.nextDouble();
        int at = r.nextInt(length);
        if ((x -= rates.split()) < 0) {
            return new FaultAction(FaultKind.SPLIT, at, 2 + r.nextInt(7));
        }
        if ((x -= rates.delay()) < 0) {
            return new FaultAction(FaultKind.DELAY, at, r.nextInt(rates.maxDelayMillis() + 1));
        }
        if ((x -= rates.corrupt()) < 0) {
            return new FaultAction(FaultKind.CORRUPT, at, 1 << r.nextInt(8));
        }
        if ((x -= rates.drop()) < 0) {
            return new FaultAction(FaultKind.DROP, at, 1 + r.nextInt(64));
        }
        if (x - rates.reset() < 0) {
            return new FaultAction(FaultKind.RESET, at, 0);
        }
        return FaultAction.PASS;
    }

    private SplittableRandom random(int connection, FaultDirection direction) {
        long stream = 2L * connection + direction.ordinal();
        return streams.computeIfAbsent(stream, k -> new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (k + 1))));
    }
}
