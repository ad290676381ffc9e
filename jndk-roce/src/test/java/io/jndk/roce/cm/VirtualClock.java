package io.jndk.roce.cm;

import java.util.function.LongSupplier;

/** A clock that moves only when a test says so. */
final class VirtualClock implements LongSupplier {

    private long nanos = 1_000_000_000L;

    @Override
    public long getAsLong() {
        return nanos;
    }

    /** @param to a later time in nanoseconds (earlier ones are ignored) */
    void advanceTo(long to) {
        nanos = Math.max(nanos, to);
    }

    /** @param millis how far to move */
    void advanceMillis(long millis) {
        nanos += millis * 1_000_000L;
    }
}
