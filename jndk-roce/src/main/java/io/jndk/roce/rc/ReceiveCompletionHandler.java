package io.jndk.roce.rc;

/** Receives the responder's receive completions: one call per posted receive, in posting order. */
@FunctionalInterface
public interface ReceiveCompletionHandler {

    /**
     * @param wrId the caller's receive identifier
     * @param status how it ended
     * @param byteLength the octets received on success, 0 otherwise
     * @param invalidated true when the message was a SEND with Invalidate whose R_Key was invalidated
     * @param invalidatedRkey that R_Key (0 when {@code invalidated} is false)
     */
    void completed(long wrId, RcStatus status, int byteLength, boolean invalidated, int invalidatedRkey);
}
