package io.jndk.api;

/** {@code NDK_CQ}: a completion queue ({@code NDK_CQ_DISPATCH}). */
public interface NdkCq extends NdkClosable {
    /** {@code NdkResizeCq}. SUCCESS, PENDING, INVALID_PARAMETER, INSUFFICIENT_RESOURCES; BUFFER_OVERFLOW below occupancy. */
    int resizeCq(int cqDepth, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkArmCq}: arms a one-shot notification of type {@link NdkCqNotifyType}. */
    void armCq(int type);

    /**
     * {@code NdkGetCqResults}: removes up to {@code n} completions, oldest first; returns how many. {@code n} is a
     * {@code ULONG} (unsigned); the array bounds it, and a {@code null} element ends it (the completions from there on
     * stay queued), so a caller's mistake loses no completion.
     */
    int getCqResults(NdkResult[] results, int n);

    /** {@code NdkControlCqInterruptModeration}. SUCCESS, INSUFFICIENT_RESOURCES, NOT_SUPPORTED, INVALID_PARAMETER_MIX. */
    int controlCqInterruptModeration(int moderationInterval, int moderationCount);

    /** {@code NdkGetCqResultsEx}: as {@link #getCqResults} with type, provider error code and type-specific output. */
    int getCqResultsEx(NdkResultEx[] results, int n);
}
