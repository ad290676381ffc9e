package io.jndk.tools.perftest;

import picocli.CommandLine.Option;

/** The options only some perftest tools have, as picocli mixins: {@code -o} (Read), {@code -I} (Write, Send), {@code -r} (Send). */
final class PerftestOptions {
    private PerftestOptions() {}

    /** The largest inline size (the adapter's maxInlineDataSize). */
    static final int MAX_INLINE = 256;

    /** {@code -o}: the Read tools' outstanding reads. */
    static final class Outs {
        @Option(names = {"-o", "--outs"}, defaultValue = "128",
                description = "Outstanding reads asked for (IRD/ORD), 1 to 128 (default ${DEFAULT-VALUE}).")
        int outs;

        String check() {
            return outs < 1 || outs > 128 ? "-o " + outs + " outside 1..128 (the outstanding reads jndk grants)" : null;
        }
    }

    /** {@code -I}: Writes and Sends up to this size are posted inline. */
    static final class Inline {
        @Option(names = {"-I", "--inline_size"}, paramLabel = "SIZE", defaultValue = "0",
                description = "Post messages up to SIZE bytes inline (NDK_OP_FLAG_INLINE), 0 to " + MAX_INLINE
                        + " (default ${DEFAULT-VALUE}).")
        int inline;

        String check() {
            return inline < 0 || inline > MAX_INLINE ? "-I " + inline + ": the largest inline size is " + MAX_INLINE
                    + " bytes (maxInlineDataSize)" : null;
        }
    }

    /** {@code -r}: the Send tools' receive depth. */
    static final class RxDepth {
        @Option(names = {"-r", "--rx-depth"}, defaultValue = "512",
                description = "Receives posted per QP (also the sender's credit window), 1 to 15000 (default ${DEFAULT-VALUE}).")
        int rxDepth;
    }
}
