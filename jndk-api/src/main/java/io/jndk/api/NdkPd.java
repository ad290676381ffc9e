package io.jndk.api;

/** {@code NDK_PD}: a protection domain, parent of MRs, MWs, SRQs and QPs ({@code NDK_PD_DISPATCH}). */
public interface NdkPd extends NdkClosable {
    /** {@code NdkCreateMr}: a normal ({@code fastRegister} false) or fast-register MR. SUCCESS, PENDING, INSUFFICIENT_RESOURCES. */
    int createMr(boolean fastRegister, CreateCompletion createCompletion, Object requestContext, Ref<NdkMr> mr);

    /** {@code NdkCreateMw}: an unbound memory window. SUCCESS, PENDING, INSUFFICIENT_RESOURCES. */
    int createMw(CreateCompletion createCompletion, Object requestContext, Ref<NdkMw> mw);

    /** {@code NdkCreateSrq}. SUCCESS, PENDING, INVALID_PARAMETER, INSUFFICIENT_RESOURCES (NOT_SUPPORTED without SRQ support). */
    int createSrq(int srqDepth, int maxReceiveRequestSge, int notifyThreshold, SrqNotificationCallback srqNotification,
            Object srqNotificationContext, GroupAffinity affinity, CreateCompletion createCompletion, Object requestContext,
            Ref<NdkSrq> srq);

    /**
     * {@code NdkCreateQp}. SUCCESS, PENDING, INVALID_PARAMETER (any of the five sizes above its adapter limit),
     * INSUFFICIENT_RESOURCES.
     */
    int createQp(NdkCq receiveCq, NdkCq initiatorCq, Object qpContext, int receiveQueueDepth, int initiatorQueueDepth,
            int maxReceiveRequestSge, int maxInitiatorRequestSge, int inlineDataSize, CreateCompletion createCompletion,
            Object requestContext, Ref<NdkQp> qp);

    /** {@code NdkCreateQpWithSrq}. SUCCESS, PENDING, INVALID_PARAMETER, INSUFFICIENT_RESOURCES. */
    int createQpWithSrq(NdkCq receiveCq, NdkCq initiatorCq, NdkSrq srq, Object qpContext, int initiatorQueueDepth,
            int maxInitiatorRequestSge, int inlineDataSize, CreateCompletion createCompletion, Object requestContext,
            Ref<NdkQp> qp);

    /** {@code NdkGetPrivilegedMemoryRegionToken}: the token for SGEs carrying LAM logical addresses (local access only). */
    int getPrivilegedMemoryRegionToken();
}
