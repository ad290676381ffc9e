package io.jndk.api;

/** {@code NDK_FN_CLOSE_COMPLETION}: called once when a close returned {@link NtStatus#STATUS_PENDING}; the object's last callback. */
@FunctionalInterface
public interface CloseCompletion {
    /** @param requestContext the context given to the close */
    void onClosed(Object requestContext);
}
