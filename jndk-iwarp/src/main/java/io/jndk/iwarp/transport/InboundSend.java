package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;

/**
 * Inbound Sends, the untagged queue 0 (siw's {@code siw_proc_send} with {@code rx_untagged}): the MSN and MO of
 * every segment are checked, the first segment takes the next posted receive ({@code beginReceive}), payload beyond
 * the receive's length is an overflow, and the last segment completes the receive ({@code endReceive}, with the
 * solicited event and the invalidation the opcode asks for). A Send still in progress when the stream breaks
 * completes its receive in error ({@link #fail}).
 *
 * <p>Owned by whoever runs the receive side.
 */
final class InboundSend {
    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final QpPort qp;
    private final RxPlacement placement;
    private final BufferCursor[] out = new BufferCursor[1];
    // ---- owned by whoever runs the receive side ---------------------------------------------------------
    private int expectedMsn = 1;
    /** The receive the current Send lands in, or {@code null} between Sends. */
    private BufferCursor receive;
    /** Octets of the current Send received so far (its next message offset). */
    private long received;

    InboundSend(QpPort qp, RxPlacement placement) {
        this.qp = qp;
        this.placement = placement;
    }

    /** @return 0, or the Terminate code the segment is answered with */
    int onHeader(FpduHeaderView h, int length) {
        if (h.msn() != expectedMsn) {
            return Term.DDP_UNTAGGED_INVALID_MSN;
        }
        long mo = h.messageOffset() & 0xFFFF_FFFFL;
        if (receive == null) {
            if (mo != 0) {
                return Term.DDP_UNTAGGED_INVALID_MO;
            }
            int term = qp.beginReceive(out);
            if (term != 0) {
                return term;
            }
            receive = out[0];
            received = 0;
        } else if (mo != received) {
            return Term.DDP_UNTAGGED_INVALID_MO;
        }
        if (received + length > receive.length()) {
            // the receive completes with STATUS_BUFFER_OVERFLOW once the failure is recorded (RxDispatch)
            return Term.DDP_UNTAGGED_TOO_LONG;
        }
        if (length > 0) {
            placement.at(receive, received);
        }
        return 0;
    }

    /** @return 0, or the Terminate code the segment is answered with (the token cannot be invalidated) */
    int onFrameEnd(FpduHeaderView h, RdmapOpcode opcode, int length) {
        received += length;
        if (!h.last()) {
            return 0;
        }
        BufferCursor done = receive;
        receive = null;
        expectedMsn++;
        if (done == null) {
            return 0;
        }
        boolean solicited = opcode == RdmapOpcode.SEND_WITH_SE || opcode == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
        return qp.endReceive(received, solicited, opcode.invalidates(), opcode.invalidates() ? h.invalidateStag() : 0);
    }

    /** The Send in progress, if any, completes its receive in error ({@code failReceive}); then none is. */
    void fail(int status, int term) {
        if (receive != null) {
            receive = null;
            qp.failReceive(status, term);
        }
    }
}
