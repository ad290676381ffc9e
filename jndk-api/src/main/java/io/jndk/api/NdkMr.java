package io.jndk.api;

/** {@code NDK_MR}: a memory region, normal or fast-register (fixed at creation) ({@code NDK_MR_DISPATCH}). */
public interface NdkMr extends NdkClosable {
    /** {@code NdkRegisterMr} with {@link NdkMrFlags}. SUCCESS, PENDING, INVALID_PARAMETER, INSUFFICIENT_RESOURCES. */
    int registerMr(Mdl mdl, long length, int flags, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkDeregisterMr}. SUCCESS, PENDING. */
    int deregisterMr(RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkInitializeFastRegisterMr}. SUCCESS, PENDING, IMPLEMENTATION_LIMIT. */
    int initializeFastRegisterMr(int adapterPageCount, boolean remoteAccess, RequestCompletion requestCompletion,
            Object requestContext);

    /** {@code NdkGetRemoteTokenFromMr}. */
    int getRemoteToken();

    /** {@code NdkGetLocalTokenFromMr}. */
    int getLocalToken();
}
