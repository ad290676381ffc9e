package io.jndk.iwarp.transport;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NtStatus;
import java.nio.ByteBuffer;

/**
 * How a connection failed: what the QP hears ({@code QpPort.failed(status, term, sent, reason)}), the Terminate
 * frame the transmit side sends first (if any), and whether the channel closes at once. The first one recorded wins
 * ({@link ConnectionState#record}); the transmit thread acts on it. Built on failure paths only (it allocates).
 *
 * @param status the NTSTATUS of the oldest unfinished request
 * @param term the Terminate sent or received (packed {@code io.jndk.provider.spi.Term}), 0 for a TCP-level failure
 * @param sent whether {@code term} is ours
 * @param reason a {@link DisconnectReason}
 * @param frame the Terminate FPDU to send at an FPDU boundary, or {@code null}
 * @param closeNow close the channel once reported, without waiting for the peer
 */
record Failure(int status, int term, boolean sent, int reason, ByteBuffer frame, boolean closeNow) {

    /** The TCP connection broke (a read or write failed, or the stream ended inside an FPDU). */
    static Failure connectionReset() {
        return new Failure(NtStatus.STATUS_CONNECTION_RESET, 0, false, DisconnectReason.CONNECTION_RESET, null, true);
    }

    /** We send {@code term} (0: none) in {@code frame} and then close in order (the peer's FIN, or the linger). */
    static Failure terminateSent(int term, ByteBuffer frame) {
        return new Failure(NtStatus.STATUS_CANCELLED, term, true, DisconnectReason.TERMINATE_SENT, frame, false);
    }

    /** The peer sent {@code term} (0: a malformed Terminate, which is never answered): close at once. */
    static Failure terminateReceived(int term) {
        return new Failure(NtStatus.STATUS_REMOTE_RESOURCES, term, false, DisconnectReason.TERMINATE_RECEIVED, null,
            true);
    }
}
