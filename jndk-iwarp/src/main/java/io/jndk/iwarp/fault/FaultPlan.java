package io.jndk.iwarp.fault;

/**
 * Decides, chunk by chunk, what a {@link FaultProxy} does to a byte stream. A chunk is what one read of the
 * proxy's socket returned, so its boundaries follow TCP, not the FPDUs inside. Called from the stream's pump
 * thread: the two directions of a connection call concurrently, each direction in order.
 */
@FunctionalInterface
public interface FaultPlan {
    /**
     * @param connection the proxy's connection number (0 for the first accepted)
     * @param direction the stream's direction
     * @param offset how many bytes of this stream came before the chunk
     * @param length the chunk's length (at least 1)
     * @return what to do with the chunk
     */
    FaultAction decide(int connection, FaultDirection direction, long offset, int length);

    /** A plan that forwards everything unchanged. */
    static FaultPlan none() {
        return (connection, direction, offset, length) -> FaultAction.PASS;
    }

    /**
     * A plan that applies {@code kind} once, to the byte at stream offset {@code offset} of {@code direction} on
     * every connection, and forwards everything else.
     *
     * @param amount as in {@link FaultAction#amount()}
     */
    static FaultPlan at(FaultDirection direction, long offset, FaultKind kind, int amount) {
        return (connection, d, chunkOffset, length) -> d == direction && offset >= chunkOffset
            && offset < chunkOffset + length
            ? new FaultAction(kind, (int) (offset - chunkOffset), amount) : FaultAction.PASS;
    }
}
