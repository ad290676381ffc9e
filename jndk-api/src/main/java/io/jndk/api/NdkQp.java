package io.jndk.api;

/**
 * {@code NDK_QP}: a queue pair ({@code NDK_QP_DISPATCH}). Work-request methods return a status and never
 * throw: {@code STATUS_SUCCESS} means posted (one CQ entry follows unless silent success applies); any other
 * value means nothing was posted and no CQ entry will appear.
 */
public interface NdkQp extends NdkClosable {
    /** {@code NdkFlush}: cancels every pending request of both queues ({@code STATUS_CANCELLED}); the QP enters the error state. */
    void flush();

    /** {@code NdkSend}. SUCCESS, CONNECTION_INVALID. */
    int send(Object requestContext, NdkSge[] sgl, int nSge, int flags);

    /** {@code NdkReceive}. SUCCESS. */
    int receive(Object requestContext, NdkSge[] sgl, int nSge);

    /** {@code NdkBind}. SUCCESS, CONNECTION_INVALID, ACCESS_VIOLATION. */
    int bind(Object requestContext, NdkMr mr, NdkMw mw, long virtualAddress, long length, int flags);

    /** {@code NdkFastRegister}. SUCCESS, CONNECTION_INVALID, ACCESS_VIOLATION. */
    int fastRegister(Object requestContext, NdkMr mr, int adapterPageCount, long[] adapterPageArray, int fbo, long length,
            long baseVirtualAddress, int flags);

    /** {@code NdkInvalidate} of a fast-registered MR or a bound MW. SUCCESS, CONNECTION_INVALID. */
    int invalidate(Object requestContext, NdkObject mrOrMw, int flags);

    /** {@code NdkRead}. SUCCESS, CONNECTION_INVALID (REMOTE_RESOURCES arrives as the completion status). */
    int read(Object requestContext, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags);

    /** {@code NdkWrite}. SUCCESS, CONNECTION_INVALID. */
    int write(Object requestContext, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags);

    /** {@code NdkSendAndInvalidate}. SUCCESS, CONNECTION_INVALID. */
    int sendAndInvalidate(Object requestContext, NdkSge[] sgl, int nSge, int flags, int remoteToken);
}
