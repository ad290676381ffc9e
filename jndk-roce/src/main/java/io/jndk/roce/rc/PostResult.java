package io.jndk.roce.rc;

/**
 * What posting a work request returned. Only {@link #OK} means a completion will follow; the others reject the
 * request at once and it never completes.
 */
public enum PostResult {
    /** Queued: it completes exactly once, in order. */
    OK,
    /** The send or receive queue is full. */
    QUEUE_FULL,
    /** The QP is in {@link RcState#ERROR}: initiator posts are refused (NDKPI: {@code STATUS_CONNECTION_INVALID}). */
    QP_ERROR,
    /** The message would take more packet sequence numbers than may be outstanding at once. */
    MESSAGE_TOO_LONG
}
