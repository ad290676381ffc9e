package io.jndk.roce.fuzz;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * States reached by a fuzz target, reported to Jazzer as coverage. Jazzer 0.24.0 cannot instrument JDK 25 class
 * files, so without this it would see no coverage and keep no new input; each (site, state) pair here is one edge
 * counter of its coverage map. The map exists only in fuzzing mode, on the boot class path, hence the reflection;
 * in regression mode this does nothing.
 */
final class Feedback {

    private static final int SITES = 64;
    private static final MethodHandle RECORD = find();

    private Feedback() {
    }

    private static MethodHandle find() {
        try {
            Class<?> coverage = Class.forName("com.code_intelligence.jazzer.runtime.CoverageMap");
            coverage.getMethod("enlargeIfNeeded", int.class).invoke(null, SITES * 256);
            return MethodHandles.publicLookup().findStatic(coverage, "recordCoverage", MethodType.methodType(void.class, int.class));
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    /**
     * @param site a distinct number per call site, 0..63
     * @param state the state reached there; its low 8 bits count
     */
    static void reached(int site, int state) {
        if (RECORD == null) {
            return;
        }
        try {
            RECORD.invokeExact((site % SITES) * 256 + (state & 0xFF));
        } catch (Throwable e) {
            throw new IllegalStateException("Jazzer's coverage map", e);
        }
    }
}
