package io.jndk.api;

import java.net.InetSocketAddress;
import java.util.Optional;

/** {@code NDK_CONNECTOR}: drives connection establishment and teardown for one QP ({@code NDK_CONNECTOR_DISPATCH}). */
public interface NdkConnector extends NdkClosable {
    /** {@code NdkConnect}. SUCCESS, PENDING, INSUFFICIENT_RESOURCES, NETWORK/HOST_UNREACHABLE, CONNECTION_REFUSED, IO_TIMEOUT, SHARING_VIOLATION, INVALID_ADDRESS, TOO_MANY_ADDRESSES, ADDRESS_ALREADY_EXISTS. */
    int connect(NdkQp qp, InetSocketAddress source, InetSocketAddress destination, int inboundReadLimit,
            int outboundReadLimit, byte[] privateData, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkConnectWithSharedEndpoint}. */
    int connectWithSharedEndpoint(NdkQp qp, NdkSharedEndpoint sharedEndpoint, InetSocketAddress destination,
            int inboundReadLimit, int outboundReadLimit, byte[] privateData, RequestCompletion requestCompletion,
            Object requestContext);

    /** {@code NdkCompleteConnect}. SUCCESS, PENDING, CONNECTION_INVALID, CONNECTION_ABORTED, IO_TIMEOUT. */
    int completeConnect(DisconnectEventCallback disconnectEvent, Object disconnectEventContext,
            RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkAccept}. SUCCESS, PENDING, CONNECTION_ABORTED, IO_TIMEOUT. */
    int accept(NdkQp qp, int inboundReadLimit, int outboundReadLimit, byte[] privateData,
            DisconnectEventCallback disconnectEvent, Object disconnectEventContext, RequestCompletion requestCompletion,
            Object requestContext);

    /** {@code NdkReject} (inline only). SUCCESS, CONNECTION_ABORTED. */
    int reject(byte[] privateData);

    /**
     * {@code NdkGetConnectionData}.
     *
     * @param inboundReadLimit out (may be null): effective inbound read limit
     * @param outboundReadLimit out (may be null): effective outbound read limit
     * @param privateData out (may be null): buffer for the peer's private data
     * @param privateDataLength in: buffer size; out: the required private data size
     * @return SUCCESS or BUFFER_TOO_SMALL
     */
    int getConnectionData(IntRef inboundReadLimit, IntRef outboundReadLimit, byte[] privateData, IntRef privateDataLength);

    /**
     * jndk extension (no NDK function): why this connector's last connection attempt failed, beside the status its
     * {@code NdkConnect} (or {@code NdkConnectWithSharedEndpoint}) completed with. Set before that completion runs
     * (so the completion callback may read it), cleared by the next attempt; empty while none failed, or from a
     * provider that does not say.
     *
     * @return the failure of the last attempt, if it failed
     */
    default Optional<ConnectFailure> connectFailure() {
        return Optional.empty();
    }

    /** {@code NdkGetLocalAddress}; {@code addressLength} in: buffer size (16 IPv4, 28 IPv6), out: bytes needed. */
    int getLocalAddress(Ref<InetSocketAddress> address, IntRef addressLength);

    /** {@code NdkGetPeerAddress}; same conventions as {@link #getLocalAddress}. */
    int getPeerAddress(Ref<InetSocketAddress> address, IntRef addressLength);

    /** {@code NdkDisconnect}: graceful disconnect then implicit flush. SUCCESS, PENDING, IO_TIMEOUT. */
    int disconnect(RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkCompleteConnectEx} (2.1). */
    int completeConnectEx(DisconnectEventCallbackEx disconnectEvent, Object disconnectEventContext,
            RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkAcceptEx} (2.1). */
    int acceptEx(NdkQp qp, int inboundReadLimit, int outboundReadLimit, byte[] privateData,
            DisconnectEventCallbackEx disconnectEvent, Object disconnectEventContext, RequestCompletion requestCompletion,
            Object requestContext);
}
