package io.jndk.roce.rc;

import java.util.Arrays;

/**
 * A snapshot of one engine's {@link RcCounter}s.
 *
 * @param values one value per counter, indexed by ordinal (copied in and out)
 */
public record RcCounters(long[] values) {

    /** Copies the values and checks their count. */
    public RcCounters {
        if (values.length != RcCounter.COUNT) {
            throw new IllegalArgumentException(values.length + " counter values, expected " + RcCounter.COUNT);
        }
        values = values.clone();
    }

    /** @return a copy of the values */
    @Override
    public long[] values() {
        return values.clone();
    }

    /**
     * @param counter a counter
     * @return its value
     */
    public long get(RcCounter counter) {
        return values[counter.ordinal()];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RcCounters other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    /** @return the non-zero counters, "label=value" separated by commas */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RcCounters[");
        String sep = "";
        for (int i = 0; i < values.length; i++) {
            if (values[i] != 0) {
                b.append(sep).append(RcCounter.of(i).label()).append('=').append(values[i]);
                sep = ", ";
            }
        }
        return b.append(']').toString();
    }
}
