package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.WireRequest;

/**
 * Inbound RDMA Read Responses: all of their handling (siw's {@code siw_proc_rresp} and the Read Response case of
 * {@code siw_rdmap_complete}). A response answers the oldest outstanding read, the ORQ's head: it must name this
 * side's sink STag, continue exactly where the last segment ended, and stay inside the read's length; its payload
 * lands in the read's sink. Where the last octet lands, the read completes ({@code readDone}), on this thread with no
 * hand-off, and only then is its ORQ place freed: a request fenced behind it ({@code READ_FENCE}) must not start
 * while the read's local invalidation (in {@code readDone}) is still to come. A transmit side that waits for that
 * place, or for the fence, is woken.
 *
 * <p>Owned by whoever runs the receive side.
 */
final class InboundReadResponse {
    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final QpPort qp;
    private final ReadQueues queues;
    private final TxEngine tx;
    private final RxPlacement placement;
    /** The STag this side's Read Requests name as their sink. */
    private final int sinkStag;
    // ---- owned by whoever runs the receive side ---------------------------------------------------------
    /** Octets of the head read's response received so far (its next tagged offset). */
    private long received;
    /** The read being completed, handed to the QP (it carries only the handle and the length). */
    private final WireRequest done = new WireRequest();

    InboundReadResponse(QpPort qp, ReadQueues queues, TxEngine tx, RxPlacement placement, int sinkStag) {
        this.qp = qp;
        this.queues = queues;
        this.tx = tx;
        this.placement = placement;
        this.sinkStag = sinkStag;
    }

    /** @return 0, or the Terminate code the segment is answered with */
    int onHeader(FpduHeaderView h, int length) {
        if (queues.orqEmpty()) {
            return Term.DDP_CATASTROPHIC;
        }
        WireRequest head = queues.orqHead();
        if (h.stag() != sinkStag) {
            return Term.DDP_TAGGED_INVALID_STAG;
        }
        if (h.taggedOffset() != received || received + length > head.length) {
            return Term.DDP_TAGGED_BASE_BOUNDS;
        }
        if (length > 0) {
            placement.at(head.local, received);
        }
        return 0;
    }

    /** @return 0, or the Terminate code the segment is answered with (the last one fell short of the read) */
    int onFrameEnd(FpduHeaderView h, int length) {
        received += length;
        if (!h.last()) {
            return 0;
        }
        WireRequest head = queues.orqHead();
        if (received != head.length) {
            return Term.DDP_TAGGED_BASE_BOUNDS;
        }
        received = 0;
        // the read completes here, before its ORQ place is freed (see the class comment); a read posted meanwhile
        // that found the ORQ full is sent by the transmit side, handed it below
        done.kind = WireRequest.READ;
        done.length = head.length;
        done.handle = head.handle;
        qp.readDone(done);
        done.handle = null;
        queues.orqRelease();
        if (queues.txWaitsForRead()) {
            tx.handOff();
        }
        return 0;
    }
}
