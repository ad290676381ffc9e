package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;

/**
 * An inbound RDMA Write segment (siw's {@code siw_proc_write}): every segment is checked on its own against the
 * STag, tagged offset and length it names ({@code writeTarget}: token, bounds, rights), and its payload is placed
 * there. Nothing completes on this side; a Write has no per-message state.
 *
 * <p>Owned by whoever runs the receive side.
 */
final class InboundWrite {
    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final QpPort qp;
    private final RxPlacement placement;
    private final BufferCursor[] out = new BufferCursor[1];

    InboundWrite(QpPort qp, RxPlacement placement) {
        this.qp = qp;
        this.placement = placement;
    }

    /** @return 0, or the Terminate code the segment is answered with */
    int onHeader(FpduHeaderView h, int length) {
        if (length == 0) {
            return 0;
        }
        int term = qp.writeTarget(h.stag(), h.taggedOffset(), length, out);
        if (term != 0) {
            return term;
        }
        placement.at(out[0], 0);
        return 0;
    }
}
