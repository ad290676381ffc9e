package io.jndk.api;

/**
 * {@code NDK_RESULT}: one completion taken from a CQ by {@link NdkCq#getCqResults}.
 *
 * <p>Mutable so that consumers can poll into preallocated arrays without allocating.
 */
public class NdkResult {
    /** Completion status ({@link NtStatus}). */
    public int status;
    /** Bytes placed for a receive (and, in jndk, read); 0 otherwise. */
    public int bytesTransferred;
    /** The {@code QPContext} given when the QP was created. */
    public Object qpContext;
    /** The {@code RequestContext} given when the request was posted. */
    public Object requestContext;

    /** An empty result slot. */
    public NdkResult() {}

    @Override
    public String toString() {
        return "NdkResult[" + NtStatus.name(status) + ", bytes=" + Integer.toUnsignedLong(bytesTransferred)
                + ", qp=" + qpContext + ", req=" + requestContext + "]";
    }
}
