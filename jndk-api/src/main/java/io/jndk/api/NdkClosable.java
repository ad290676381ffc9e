package io.jndk.api;

/** An NDK object closed through {@code NdkCloseObject} (slot 0 of every dispatch table but the adapter's). */
public interface NdkClosable extends NdkObject {
    /**
     * {@code NdkCloseObject}. Never fails: returns {@code STATUS_SUCCESS} (closed now, no callback) or
     * {@code STATUS_PENDING} ({@code completion} is called once, as the object's last callback). A close of
     * an antecedent with live successors pends until the last successor is closed.
     *
     * @param completion called only when the result is {@code STATUS_PENDING}
     * @param requestContext passed back to {@code completion}
     * @return {@code STATUS_SUCCESS} or {@code STATUS_PENDING}
     */
    int close(CloseCompletion completion, Object requestContext);
}
