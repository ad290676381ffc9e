package io.jndk.api;

/** {@code NDK_SRQ}: a shared receive queue ({@code NDK_SRQ_DISPATCH}). */
public interface NdkSrq extends NdkClosable {
    /** {@code NdkModifySrq}: {@code srqDepth} 0 keeps the depth; {@code notifyThreshold} 0 keeps threshold and arming. */
    int modifySrq(int srqDepth, int notifyThreshold, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkSrqReceive}. SUCCESS. */
    int srqReceive(Object requestContext, NdkSge[] sgl, int nSge);
}
