package io.jndk.iwarp.fault;

/** What a {@link FaultPlan} does to one chunk of a forwarded byte stream. */
public enum FaultKind {
    /** Forward the chunk unchanged. */
    PASS(false),
    /** Forward the chunk in several writes (TCP_NODELAY), so the peer reads it in pieces. */
    SPLIT(false),
    /** Hold the chunk back for a bounded time, then forward it; later bytes wait behind it. */
    DELAY(false),
    /** Flip bits of one byte (an MPA CRC detects it). */
    CORRUPT(true),
    /** Leave bytes out of the stream. */
    DROP(true),
    /** Forward a prefix of the chunk, then close both sides abortively (RST, SO_LINGER 0). */
    RESET(true);

    /** Whether the fault damages the stream (the peers may see errors); split and delay never do. */
    public final boolean destructive;

    FaultKind(boolean destructive) {
        this.destructive = destructive;
    }
}
