package io.jndk.api;

/**
 * {@code NDK_RESULT_EX}: a completion with its operation type, provider error code and type-specific
 * output, taken by {@link NdkCq#getCqResultsEx}.
 */
public class NdkResultEx extends NdkResult {
    /** {@link NdkOperationType} of the completed request. */
    public int type;
    /** Provider diagnostic (0 on success; jndk: iWARP Terminate layer/type/code or a transport reason). */
    public int providerErrorCode;
    /** For {@link NdkOperationType#RECEIVE_AND_INVALIDATE}: the invalidated token in the low 32 bits. */
    public long typeSpecificCompletionOutput;

    /** An empty result slot. */
    public NdkResultEx() {}

    @Override
    public String toString() {
        return "NdkResultEx[" + NdkOperationType.name(type) + ", " + NtStatus.name(status) + ", bytes="
                + Integer.toUnsignedLong(bytesTransferred) + ", qp=" + qpContext + ", req=" + requestContext
                + ", perr=0x" + Integer.toHexString(providerErrorCode) + ", out=0x"
                + Long.toHexString(typeSpecificCompletionOutput) + "]";
    }
}
