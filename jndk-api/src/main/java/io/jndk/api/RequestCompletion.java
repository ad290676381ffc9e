package io.jndk.api;

/** {@code NDK_FN_REQUEST_COMPLETION}: called exactly once when a request returned {@link NtStatus#STATUS_PENDING}. */
@FunctionalInterface
public interface RequestCompletion {
    /**
     * @param requestContext the context given to the request
     * @param status final status
     */
    void onCompleted(Object requestContext, int status);
}
