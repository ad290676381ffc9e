package io.jndk.api;

/** {@code NDK_CQ}: a completion queue ({@code NDK_CQ_DISPATCH}). */
public interface NdkCq extends NdkClosable {
    /** {@code NdkResizeCq}. SUCCESS, PENDING, INVALID_PARAMETER, INSUFFICIENT_RESOURCES; BUFFER_OVERFLOW below occupancy. */
    int resizeCq(int cqDepth, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkArmCq}: arms a one-shot notification of type {@link NdkCqNotifyType}. */
    void armCq(int type);

    /** {@code NdkGetCqResults}: removes up to {@code n} completions, oldest first; returns how many. */
    int getCqResults(NdkResult[] results, int n);

    /** {@code NdkControlCqInterruptModeration}. SUCCESS, INSUFFICIENT_RESOURCES, NOT_SUPPORTED, INVALID_PARAMETER_MIX. */
    int controlCqInterruptModeration(int moderationInterval, int moderationCount);

    /** {@code NdkGetCqResultsEx}: as {@link #getCqResults} with type, provider error code and type-specific output. */
    int getCqResultsEx(NdkResultEx[] results, int n);
}
