package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;

/**
 * Inbound RDMA Read Requests, the untagged queue 1 (siw's {@code siw_proc_rreq} and {@code siw_init_rresp}): the MSN
 * is checked, the IRD is enforced, the source is checked ({@code readSource}: token, bounds, rights) and the read is
 * queued in the IRQ; the transmit side answers it ({@link TxEngine}, Read Responses before new requests).
 *
 * <p>Owned by whoever runs the receive side.
 */
final class InboundReadRequest {
    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final QpPort qp;
    private final ReadQueues queues;
    private final TxEngine tx;
    // ---- owned by whoever runs the receive side ---------------------------------------------------------
    private final BufferCursor[] out = new BufferCursor[1];
    private int expectedMsn = 1;

    InboundReadRequest(QpPort qp, ReadQueues queues, TxEngine tx) {
        this.qp = qp;
        this.queues = queues;
        this.tx = tx;
    }

    /** Fills the IRQ's tail slot from the request. @return 0, or the Terminate code the request is answered with */
    int onHeader(FpduHeaderView h) {
        if (h.msn() != expectedMsn) {
            return Term.DDP_UNTAGGED_INVALID_MSN;
        }
        if (queues.irqFull()) {
            return Term.RDMAP_CATASTROPHIC_STREAM;
        }
        ReadRequestFlyweight rr = h.readRequest();
        long size = rr.readSize() & 0xFFFF_FFFFL;
        BufferCursor source = null;
        if (size > 0) {
            int term = qp.readSource(rr.sourceStag(), rr.sourceTaggedOffset(), size, out);
            if (term != 0) {
                return term;
            }
            source = out[0];
        }
        ReadQueues.InboundRead slot = queues.irqReserve();
        slot.sinkStag = rr.sinkStag();
        slot.sinkTo = rr.sinkTaggedOffset();
        slot.length = size;
        slot.source = source;
        return 0;
    }

    /** The request's frame ended whole: it is queued, and the transmit side handed it to answer. */
    void onFrameEnd() {
        expectedMsn++;
        queues.irqPush();
        tx.handOff();
    }
}
