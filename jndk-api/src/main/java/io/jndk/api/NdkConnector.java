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

    /**
     * jndk extension, not part of NDKPI: reserves this side's QP number and starting PSN for a connection that will
     * be set up without the transport's connection manager ({@link #connectOutOfBand}), for consumers that exchange
     * them themselves (perftest without rdma_cm). Supported where the wire has such numbers (roce); inline.
     *
     * @param local out: what to send the peer
     * @return SUCCESS; NOT_SUPPORTED (the transport has no connection without its CM); INVALID_DEVICE_STATE (this
     *     connector is not idle, or reserved already); IO_TIMEOUT (the transport could not reserve within 2 s: its
     *     device is closing or stopped)
     */
    default int reserveOutOfBand(Ref<NdkOutOfBandEndpoint> local) {
        return NtStatus.STATUS_NOT_SUPPORTED;
    }

    /**
     * jndk extension, not part of NDKPI: connects {@code qp} to the peer described by {@code remote}, learnt out of
     * band, on the numbers {@link #reserveOutOfBand} reserved: no connection manager message is exchanged. It
     * completes as {@link #connect} does, at once, and is followed by {@link #completeConnect}; from then on the QP
     * works as any connected QP (this side sends with its own PSN and expects the peer's). {@link #disconnect} ends
     * it locally, after every outstanding request is acknowledged: nothing tells the peer, as after ibverbs'
     * destroy of a QP, so consumers agree on the end out of band too.
     *
     * @param destination the peer's address (its port is not used on the wire; give any non-zero one)
     * @return as {@link #connect}; INVALID_DEVICE_STATE when nothing was reserved
     */
    default int connectOutOfBand(NdkQp qp, InetSocketAddress source, InetSocketAddress destination,
            NdkOutOfBandEndpoint remote, int inboundReadLimit, int outboundReadLimit, RequestCompletion completion,
            Object requestContext) {
        return NtStatus.STATUS_NOT_SUPPORTED;
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
