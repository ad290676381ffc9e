package io.jndk.roce.rc;

/** Receives the requester's completions: one call per posted work request, in posting order. */
@FunctionalInterface
public interface SendCompletionHandler {

    /**
     * @param wrId the caller's work request identifier
     * @param operation what the request was
     * @param status how it ended
     * @param byteLength the message length on success, 0 otherwise
     */
    void completed(long wrId, RcOperation operation, RcStatus status, int byteLength);
}
