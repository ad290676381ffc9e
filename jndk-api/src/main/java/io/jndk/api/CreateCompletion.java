package io.jndk.api;

/**
 * {@code NDK_FN_CREATE_COMPLETION}: called exactly once when a create returned {@link NtStatus#STATUS_PENDING}.
 */
@FunctionalInterface
public interface CreateCompletion {
    /**
     * @param requestContext the context given to the create call
     * @param status final status
     * @param object the new object on success, null on failure
     */
    void onCreated(Object requestContext, int status, NdkObject object);
}
