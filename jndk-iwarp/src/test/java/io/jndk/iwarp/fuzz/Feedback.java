package io.jndk.iwarp.fuzz;

import com.code_intelligence.jazzer.api.Jazzer;

/**
 * Semantic coverage for the fuzzer. Jazzer 0.24.0 cannot instrument JDK 25 class files (its bundled ASM stops at
 * major version 68), so its coverage feedback would be empty; instead the targets report the states they reach
 * (decoder errors, opcodes, layouts, MPA verdicts, completion statuses) through {@link Jazzer#exploreState}, which
 * feeds the same coverage map. Each call site passes its own id. As no class was instrumented, the map has no
 * counters registered with the fuzzing engine; the static initializer registers enough of them, through the Jazzer
 * runtime when it is present (fuzzing mode), by reflection because that runtime is only on the boot class path.
 */
final class Feedback {

    /** Counters registered: above every {@code id * 257 ^ state} used. */
    private static final int COUNTERS = 1 << 15;

    static {
        try {
            Class<?> map = Class.forName("com.code_intelligence.jazzer.runtime.CoverageMap");
            map.getMethod("enlargeIfNeeded", int.class).invoke(null, COUNTERS);
        } catch (ReflectiveOperationException | LinkageError e) {
            // regression mode or another engine: no feedback needed
        }
    }

    private Feedback() {
    }

    /**
     * @param id the call site, distinct per call site
     * @param value the state reached; the low 8 bits count
     */
    static void state(int id, int value) {
        Jazzer.exploreState((byte) value, id * 257);
    }

    /** @return a small logarithmic bucket of a count, so that growth is rewarded */
    static int bucket(long n) {
        return n <= 0 ? 0 : 64 - Long.numberOfLeadingZeros(n);
    }
}
