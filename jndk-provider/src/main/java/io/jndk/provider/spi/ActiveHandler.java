package io.jndk.provider.spi;

import io.jndk.api.ConnectFailure;
import java.net.InetSocketAddress;

/**
 * Outcome of an active connection attempt (exactly one call). A failure carries its reason beside the status
 * ({@link ConnectFailure.Reason}: transport-neutral classes; the transport's specifics, such as the MPA field that
 * did not match, go in the detail line), which the consumer reads with {@code NdkConnector.connectFailure()}.
 */
public interface ActiveHandler {
    /** The peer accepted; the connection waits for {@link WireConnection#start} or {@link WireConnection#reject}. */
    void onReply(WireConnection connection, InetSocketAddress local, byte[] privateData, int peerInboundReadLimit,
            int peerOutboundReadLimit);

    /**
     * The peer rejected, with private data: the attempt completes {@code STATUS_CONNECTION_REFUSED} and the private
     * data is readable with {@code NdkGetConnectionData}.
     *
     * @param reason {@link ConnectFailure.Reason#REJECTED}, or what the rejection itself says beyond that (a peer that
     *               rejects because of a policy the transport can tell, e.g. {@code CRC_MISMATCH})
     * @param detail one line for people
     */
    void onRejected(byte[] privateData, ConnectFailure.Reason reason, String detail);

    /**
     * The attempt failed with an NTSTATUS (refused, unreachable, timeout, address in use, ...).
     *
     * @param reason why, beside the status
     * @param detail one line for people
     */
    void onFailed(int status, ConnectFailure.Reason reason, String detail);

    /** {@link #onRejected(byte[], ConnectFailure.Reason, String)} for a plain rejection. */
    default void onRejected(byte[] privateData) {
        onRejected(privateData, ConnectFailure.Reason.REJECTED, "the peer rejected the connection");
    }

    /** {@link #onFailed(int, ConnectFailure.Reason, String)} with the reason the status implies. */
    default void onFailed(int status) {
        ConnectFailure f = ConnectFailure.ofStatus(status, io.jndk.api.NtStatus.describe(status));
        onFailed(status, f.reason(), f.detail());
    }
}
