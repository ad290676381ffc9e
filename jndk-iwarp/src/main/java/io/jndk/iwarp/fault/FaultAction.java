package io.jndk.iwarp.fault;

/**
 * One decision of a {@link FaultPlan} for one chunk.
 *
 * @param kind what to do
 * @param at chunk index the fault applies at: the byte to corrupt, the first byte to drop, the length of the
 *     prefix forwarded before a reset (clamped to the chunk)
 * @param amount pieces of a split (at least 2), milliseconds of a delay, XOR mask of a corruption (low 8 bits,
 *     not 0), bytes to drop (at least 1); unused for pass and reset
 */
public record FaultAction(FaultKind kind, int at, int amount) {
    /** Forward unchanged. */
    public static final FaultAction PASS = new FaultAction(FaultKind.PASS, 0, 0);

    /**
     * @throws IllegalArgumentException if {@code at} is negative or {@code amount} is out of range for the kind
     */
    public FaultAction {
        if (kind == null || at < 0) {
            throw new IllegalArgumentException("kind and a non-negative position are required");
        }
        boolean ok = switch (kind) {
            case PASS, RESET -> true;
            case SPLIT -> amount >= 2;
            case DELAY -> amount >= 0;
            case CORRUPT -> (amount & 0xFF) != 0;
            case DROP -> amount >= 1;
        };
        if (!ok) {
            throw new IllegalArgumentException("amount " + amount + " is out of range for " + kind);
        }
    }
}
