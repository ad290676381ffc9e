package io.jndk.iwarp.fuzz;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Semantic coverage for the fuzzer. Jazzer 0.24.0 cannot instrument JDK 25 class files (its bundled ASM stops at
 * major version 68), so it would see no coverage at all and keep no input of the seed corpus. Instead the targets
 * report the states they reach (decoder errors, opcodes, layouts, MPA verdicts, completion statuses): each
 * (call site, state) pair is one edge counter of Jazzer's coverage map. The map is reached by reflection because the
 * Jazzer runtime is only on the boot class path, and only in fuzzing mode; otherwise this does nothing.
 */
final class Feedback {

    /** Edge counters used: 256 states for each of up to 128 call sites. */
    private static final int COUNTERS = 1 << 15;
    private static final MethodHandle RECORD = recorder();

    private Feedback() {
    }

    private static MethodHandle recorder() {
        try {
            Class<?> map = Class.forName("com.code_intelligence.jazzer.runtime.CoverageMap");
            map.getMethod("enlargeIfNeeded", int.class).invoke(null, COUNTERS);
            return MethodHandles.publicLookup().findStatic(map, "recordCoverage", MethodType.methodType(void.class, int.class));
        } catch (ReflectiveOperationException | LinkageError e) {
            return null; // regression mode: no engine to guide
        }
    }

    /**
     * @param site the call site, 0..127, distinct per call site
     * @param value the state reached; the low 8 bits count
     */
    static void state(int site, int value) {
        if (RECORD != null) {
            try {
                RECORD.invokeExact(((site & 0x7F) << 8) | (value & 0xFF));
            } catch (Throwable e) {
                throw new IllegalStateException("coverage map of the fuzzing engine", e);
            }
        }
    }

    /** @return a small logarithmic bucket of a count, so that growth is rewarded */
    static int bucket(long n) {
        return n <= 0 ? 0 : 64 - Long.numberOfLeadingZeros(n);
    }
}
