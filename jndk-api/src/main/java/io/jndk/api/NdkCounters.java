package io.jndk.api;

import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of an adapter's {@link NdkCounter}s.
 *
 * @param values one value per counter, indexed by ordinal
 */
public record NdkCounters(long[] values) {
    /** The value of one counter. */
    public long get(NdkCounter c) {
        return values[c.ordinal()];
    }

    /** All counters as an ordered map. */
    public Map<NdkCounter, Long> asMap() {
        Map<NdkCounter, Long> m = new EnumMap<>(NdkCounter.class);
        for (NdkCounter c : NdkCounter.values()) {
            m.put(c, values[c.ordinal()]);
        }
        return m;
    }
}
