package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.WireRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Cuts one outbound message into FPDUs of at most the segment length (siw's {@code siw_qp_prepare_tx} and
 * {@code siw_tx_hdt} slicing) and appends them to the {@link TxBatch}. The payload is taken from its
 * {@link BufferCursor} as views, {@link #PART_FPDUS} FPDUs at a time, so that the views of one slicing call can share
 * a batch; each FPDU takes the views that cover its payload.
 *
 * <p>Owned by whoever holds the transmit side ({@link TxEngine}).
 */
final class MessageSegmenter {
    /** Payload views of one slicing call (up to {@link #PART_FPDUS} FPDUs) before a part is shortened. */
    static final int MAX_SLICES = 128;
    /** FPDUs whose payload views one slicing call takes. */
    static final int PART_FPDUS = 16;

    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final ConnectionState state;
    private final IwarpConnection connection;
    private final TxBatch batch;
    private final ReadQueues queues;
    private final Terminates terminates;
    private final int segmentLength;
    // ---- owned by whoever holds the transmit side --------------------------------------------------------
    /** The views of the current slicing call (empty between calls). */
    private final ByteBuffer[] views = new ByteBuffer[MAX_SLICES];

    MessageSegmenter(IwarpConnection connection, TxBatch batch, ReadQueues queues, Terminates terminates) {
        this.connection = connection;
        this.state = connection.state;
        this.batch = batch;
        this.queues = queues;
        this.terminates = terminates;
        this.segmentLength = connection.segmentLength();
    }

    /**
     * Queues one message as FPDUs: a tagged one ({@code op} tagged: {@code key} is the STag, {@code to} the tagged
     * offset) or an untagged one ({@code key}: the STag to invalidate or 0, {@code msn}).
     *
     * @param releasesIrqSlot a Read Response: its IRQ place is freed just before its last segment is queued
     * @return false if a failure stopped it (nothing of it is written then)
     */
    boolean send(RdmapOpcode op, int key, long to, int msn, BufferCursor src, long total, boolean releasesIrqSlot)
        throws IOException {
        int max = segmentLength - op.fpduHeaderLength() - FpduFlyweight.CRC_LENGTH;
        long offset = 0;
        do {
            if (state.failure() != null) {
                return false;
            }
            long part = Math.min(total - offset, (long) max * PART_FPDUS);
            int count = 0;
            if (offset > 0) {
                // a slicing call may hand out again the views of the last one on this cursor: those must be
                // written before they are repositioned
                batch.flush();
            }
            if (part > 0) {
                count = src == null ? -1 : src.slices(offset, part, max, views, 0);
                if (count < 0 && src != null) {
                    // too many memory pieces for one slicing call: one FPDU, halved until its pieces fit
                    part = Math.min(part, max);
                    count = src.slices(offset, part, max, views, 0);
                    while (count < 0 && part > 4) {
                        part = Math.max(4, (part / 2) & ~3);
                        count = src.slices(offset, part, max, views, 0);
                    }
                }
                if (count < 0) {
                    Arrays.fill(views, null);
                    connection.fail(terminates.localCatastrophic());
                    return false;
                }
            }
            // the part's FPDUs, each taking the views that cover its payload
            long done = 0;
            int v = 0;
            do {
                int chunk = (int) Math.min(max, part - done);
                int first = v;
                long covered = 0;
                while (covered < chunk) {
                    covered += views[v++].remaining();
                }
                boolean last = offset + done + chunk == total;
                if (last && releasesIrqSlot) {
                    queues.irqRelease();
                }
                batch.appendFpdu(op, key, to + offset + done, msn, (int) (offset + done), last, views, first,
                    v - first, chunk);
                done += chunk;
            } while (done < part);
            Arrays.fill(views, 0, count, null);
            offset += part;
        } while (offset < total);
        return true;
    }

    /**
     * Polling mode: whether a taken request is too large for an owner that may not wait: more than
     * {@link TxEngine#SMALL_INLINE} octets or {@link #PART_FPDUS} FPDUs, or more memory pieces than one slicing call
     * takes ({@link #send} would then go FPDU by FPDU, writing in between).
     */
    boolean tooLargeForSmallTurn(WireRequest r) {
        if (r.kind == WireRequest.READ) {
            return false; // one Read Request frame, whatever the length
        }
        long perFpdu = segmentLength - RdmapOpcode.SEND.fpduHeaderLength() - FpduFlyweight.CRC_LENGTH;
        if (r.length > TxEngine.SMALL_INLINE || (r.length + perFpdu - 1) / perFpdu > PART_FPDUS) {
            return true;
        }
        if (r.length == 0 || r.local == null) {
            return false;
        }
        int count = r.local.slices(0, r.length, perFpdu, views, 0);
        Arrays.fill(views, null);
        return count < 0;
    }
}
