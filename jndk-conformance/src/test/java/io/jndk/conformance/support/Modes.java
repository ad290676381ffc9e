package io.jndk.conformance.support;

import io.jndk.api.Ndk;
import java.util.ArrayList;
import java.util.List;

/**
 * The permutations every conformance class runs in: each installed transport, inline and pending. The system property
 * {@code jndk.modes} (e.g. {@code -Djndk.modes=roce}) narrows them to the transports it names.
 */
public final class Modes {
    private Modes() {}

    /** Method source for {@code @ParameterizedClass}. */
    public static List<Mode> all() {
        List<Mode> modes = new ArrayList<>();
        String only = System.getProperty("jndk.modes", "");
        for (String t : List.of("loopback", "iwarp", "roce")) {
            if (!only.isBlank() && !List.of(only.split(",")).contains(t)) {
                continue;
            }
            if (Ndk.transports().contains(t)) {
                modes.add(new Mode(t, false));
                modes.add(new Mode(t, true));
            }
        }
        return modes;
    }
}
