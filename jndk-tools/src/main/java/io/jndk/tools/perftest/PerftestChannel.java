package io.jndk.tools.perftest;

import java.util.concurrent.TimeoutException;

/**
 * Where perftest's parameter exchange travels: Sends on a control connection of the transport (rdma_cm mode,
 * {@link PerftestControl}) or a TCP socket beside it ({@link PerftestTcpControl}, perftest without {@code -R}). Every
 * exchange is the client sending one message and the server answering with one of the same kind.
 */
interface PerftestChannel extends AutoCloseable {
    /** One exchange: the client sends then receives, the server receives then sends. Returns the peer's message. */
    byte[] exchange(byte[] mine, long timeoutMs, String what) throws TimeoutException;

    /** A message of {@code length} bytes if one has arrived, else {@code null}; never waits. */
    byte[] tryReceive(int length);

    /** Puts a message taken with {@link #tryReceive} back: the next exchange's receive returns it. */
    void pushBack(byte[] m);

    /** Whether the peer closed the channel. */
    boolean peerGone();

    /** Closes what the channel holds of its own (the TCP socket; a control connection closes with the run). */
    @Override
    default void close() {
    }
}
