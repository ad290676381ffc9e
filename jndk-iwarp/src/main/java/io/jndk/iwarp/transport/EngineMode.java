package io.jndk.iwarp.transport;

import io.jndk.provider.spi.OptionValues;
import java.util.Locale;
import java.util.Map;

/**
 * How the stream engine of a connection runs: the kind of its transmit and receive threads, and whether it
 * polls (posters transmit inline when the transmit side is free; the receive thread spins for input before it
 * blocks in a read).
 *
 * @param platformThreads platform threads instead of virtual threads for transmit and receive
 * @param poll polling mode
 * @param spinNanos polling mode: how long the receive thread spins for input before it waits
 */
record EngineMode(boolean platformThreads, boolean poll, long spinNanos) {
    /**
     * Default receive spin of the polling mode, in microseconds: none, because on a machine with few cores the
     * spinning receive threads take the cores the consumers and the transmit side need (docs/DECISIONS.md).
     */
    static final long DEFAULT_SPIN_MICROS = 0;

    /**
     * Reads the adapter options {@code threads} ({@code virtual} or {@code platform}), {@code poll}
     * ({@code true}/{@code false}) and {@code poll.spin.us}. Platform threads are the default (docs/DECISIONS.md,
     * "Threading model").
     *
     * @throws IllegalArgumentException on an unknown thread kind
     */
    static EngineMode of(Map<String, String> options) {
        boolean poll = Boolean.parseBoolean(options.getOrDefault("poll", "false").trim());
        String threads = options.getOrDefault("threads", "platform").trim().toLowerCase(Locale.ROOT);
        if (!threads.equals("virtual") && !threads.equals("platform")) {
            throw new IllegalArgumentException("threads must be virtual or platform: " + threads);
        }
        long spin = poll ? OptionValues.number(options, "poll.spin.us", DEFAULT_SPIN_MICROS, 0, 60_000_000L) * 1_000 : 0;
        return new EngineMode(threads.equals("platform"), poll, spin);
    }

    /** An unstarted engine thread. */
    Thread thread(String name, Runnable body) {
        return platformThreads ? Thread.ofPlatform().daemon(true).name(name).unstarted(body)
            : Thread.ofVirtual().name(name).unstarted(body);
    }
}
