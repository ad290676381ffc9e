package io.jndk.iwarp.transport;

import io.jndk.provider.spi.OptionValues;
import java.util.Locale;
import java.util.Map;

/**
 * How the stream engine of a connection runs.
 *
 * <p>The <b>shared engine</b> ({@code engine=shared}, the default): a few engine loops per adapter
 * ({@code engine.loops}, default one per core), each serving many connections over one selector ({@link EngineLoop},
 * {@link LoopDrive}); a poster sends a small request itself when it is the consumer's only initiator work and the
 * transmit side is idle. The <b>thread engine</b> ({@code engine=threads}, kept for comparison, docs/DECISIONS.md
 * "The shared engine"): a transmit and a receive platform thread per connection. Either
 * may run in polling mode ({@code poll}: posters transmit inline when the transmit side is free; polling consumers
 * run the receive side).
 *
 * @param shared the shared engine (engine loops) instead of two threads per connection
 * @param loops the shared engine: engine loops of the adapter
 * @param poll polling mode
 * @param spinNanos polling mode, the thread engine: how long the receive thread spins for input before it waits
 * @param loopSpinNanos the shared engine ({@code engine.spin.us}): how long a loop polls its selector after a turn
 *     with work before it waits (default 0: it waits at once)
 * @param loopYieldNanos the shared engine ({@code engine.yield.us}): a loop whose turn ran longer than this yields
 *     its CPU before its next selection (0: never)
 */
record EngineMode(boolean shared, int loops, boolean poll, long spinNanos, long loopSpinNanos, long loopYieldNanos) {
    /**
     * Default receive spin of the polling mode, in microseconds: none, because on a machine with few cores the
     * spinning receive threads take the cores the consumers and the transmit side need (docs/DECISIONS.md).
     */
    static final long DEFAULT_SPIN_MICROS = 0;
    /** Most {@code engine.spin.us} (a millisecond). */
    static final long MAX_LOOP_SPIN_MICROS = 1_000;
    /**
     * Default {@code engine.yield.us}: a turn longer than this (a bulk transfer's budget, a burst of connections)
     * gives a thread that waits for the loop's CPU its turn (docs/DECISIONS.md, "A loop yields after a long turn").
     */
    static final long DEFAULT_LOOP_YIELD_MICROS = 50;
    /** Most {@code poll.spin.us} (a minute). */
    static final long MAX_SPIN_MICROS = 60_000_000L;
    /** Most {@code engine.yield.us} (a second). */
    static final long MAX_LOOP_YIELD_MICROS = 1_000_000;
    /** Most engine loops an adapter may run. */
    static final int MAX_LOOPS = 256;

    /**
     * Reads the adapter options {@code engine} ({@code shared} or {@code threads}), {@code engine.loops},
     * {@code engine.spin.us} (0 to {@value #MAX_LOOP_SPIN_MICROS}), {@code engine.yield.us} (0 to
     * {@value #MAX_LOOP_YIELD_MICROS}, default {@value #DEFAULT_LOOP_YIELD_MICROS}),
     * {@code poll} ({@code true}/{@code false}) and {@code poll.spin.us} (docs/DECISIONS.md, "Threading model"), and
     * {@code threads}, which takes {@code platform} only: virtual threads were measured and removed
     * (docs/DECISIONS.md, "The shared engine").
     *
     * @throws IllegalArgumentException on an unknown engine or thread kind, or a number out of range (also
     *     {@code poll.spin.us}, 0 to {@value #MAX_SPIN_MICROS}, whether or not {@code poll} is on)
     */
    static EngineMode of(Map<String, String> options) {
        boolean poll = Boolean.parseBoolean(options.getOrDefault("poll", "false").trim());
        String engine = options.getOrDefault("engine", "shared").trim().toLowerCase(Locale.ROOT);
        if (!engine.equals("shared") && !engine.equals("threads")) {
            throw new IllegalArgumentException("engine must be shared or threads: " + engine);
        }
        String threads = options.getOrDefault("threads", "platform").trim().toLowerCase(Locale.ROOT);
        if (!threads.equals("platform")) {
            throw new IllegalArgumentException("threads must be platform (threads=virtual was removed: the shared "
                + "engine, the default, serves many connections on a few threads): " + threads);
        }
        int loops = (int) OptionValues.number(options, "engine.loops", Runtime.getRuntime().availableProcessors(), 1,
            MAX_LOOPS);
        // checked whether or not the polling mode is on: a bad value is refused, not ignored until poll=true
        long spinMicros = OptionValues.number(options, "poll.spin.us", DEFAULT_SPIN_MICROS, 0, MAX_SPIN_MICROS);
        long spin = poll ? spinMicros * 1_000 : 0;
        long loopSpin = OptionValues.number(options, "engine.spin.us", 0, 0, MAX_LOOP_SPIN_MICROS) * 1_000;
        long loopYield = OptionValues.number(options, "engine.yield.us", DEFAULT_LOOP_YIELD_MICROS, 0,
            MAX_LOOP_YIELD_MICROS) * 1_000;
        return new EngineMode(engine.equals("shared"), loops, poll, spin, loopSpin, loopYield);
    }

    /** An unstarted engine thread (the thread engine). */
    Thread thread(String name, Runnable body) {
        return Thread.ofPlatform().daemon(true).name(name).unstarted(body);
    }
}
