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
     * {@link #resume} outcomes: the message is queued whole, it waits for the socket, a failure stopped it, the turn's
     * octets ({@link #budget}) are spent.
     */
    static final int DONE = 0, BLOCKED = 1, FAILED = 2, PAUSED = 3;

    // ---- the message in progress (owned by whoever holds the transmit side) ---------------------------------
    private boolean active;
    private RdmapOpcode op;
    private int key, msn;
    private long to, total;
    private BufferCursor src;
    private boolean releasesIrqSlot;
    /** Where the current part starts in the message. */
    private long offset;
    /** The current part: its length, the octets of it queued, the next view, the views it took. */
    private long part, done;
    private int v, count;
    /** The current part is sliced (its views are in {@link #views}). */
    private boolean inPart;
    /** Payload octets the owner's turn may still queue ({@link #PAUSED} once spent); unbounded unless a turn sets it. */
    private long budget = Long.MAX_VALUE;

    /**
     * Queues one message as FPDUs: a tagged one ({@code op} tagged: {@code key} is the STag, {@code to} the tagged
     * offset) or an untagged one ({@code key}: the STag to invalidate or 0, {@code msn}). On an owner that waits
     * for the socket the message is queued whole here; the shared engine may see {@link #BLOCKED}.
     *
     * @param releasesIrqSlot a Read Response: its IRQ place is freed just before its last segment is queued
     * @return false if a failure stopped it (nothing of it is written then)
     */
    boolean send(RdmapOpcode op, int key, long to, int msn, BufferCursor src, long total, boolean releasesIrqSlot)
        throws IOException {
        begin(op, key, to, msn, src, total, releasesIrqSlot);
        return resumeWhole();
    }

    /**
     * {@link #resume} on an owner that waits for the socket, which never sees {@link #BLOCKED}.
     *
     * @return false if a failure stopped the message
     */
    boolean resumeWhole() throws IOException {
        budget = Long.MAX_VALUE;
        int r = resume();
        if (r == BLOCKED) {
            throw new IllegalStateException("a waiting owner's batch could not be written");
        }
        return r == DONE;
    }

    /** Starts a message ({@link #send}'s parameters); {@link #resume} queues it. */
    void begin(RdmapOpcode op, int key, long to, int msn, BufferCursor src, long total, boolean releasesIrqSlot) {
        this.active = true;
        this.op = op;
        this.key = key;
        this.to = to;
        this.msn = msn;
        this.src = src;
        this.total = total;
        this.releasesIrqSlot = releasesIrqSlot;
        this.offset = 0;
        this.inPart = false;
    }

    /**
     * Bounds the payload octets the calling turn queues: once they are spent, {@link #resume} stops at an FPDU
     * boundary with {@link #PAUSED}, so that one long message (a 1 MiB Read Response) does not hold an engine loop
     * while other connections wait (the shared engine's fair service).
     */
    void budget(long octets) {
        budget = octets;
    }

    /** @return whether a message is in progress (the shared engine: it waits for the socket) */
    boolean active() {
        return active;
    }

    /**
     * Queues what is left of the message begun, FPDU by FPDU.
     *
     * @return {@link #DONE}, {@link #BLOCKED} (the batch is full and the socket cannot take it now: call again once
     *     it is writable), {@link #PAUSED} (the {@link #budget} is spent: call again in a later turn) or
     *     {@link #FAILED} (a failure stopped it; nothing more of it is written)
     */
    int resume() throws IOException {
        int max = segmentLength - op.fpduHeaderLength() - FpduFlyweight.CRC_LENGTH;
        do {
            if (!inPart) {
                if (state.failure() != null) {
                    return abandon();
                }
                // a slicing call may hand out again the views of the last one on this cursor: those must be
                // written before they are repositioned
                if (offset > 0 && !batch.flush()) {
                    return BLOCKED;
                }
                part = Math.min(total - offset, (long) max * PART_FPDUS);
                count = 0;
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
                        return abandon();
                    }
                }
                inPart = true;
                done = 0;
                v = 0;
            }
            // the part's FPDUs, each taking the views that cover its payload
            do {
                int chunk = (int) Math.min(max, part - done);
                int first = v;
                int end = v;
                long covered = 0;
                while (covered < chunk) {
                    covered += views[end++].remaining();
                }
                if (budget <= 0) {
                    return PAUSED; // the part goes on at this FPDU in the connection's next turn
                }
                if (!batch.roomForFpdu(op, end - first, chunk)) {
                    return BLOCKED;
                }
                v = end;
                boolean last = offset + done + chunk == total;
                if (last && releasesIrqSlot) {
                    queues.irqRelease();
                }
                batch.appendFpdu(op, key, to + offset + done, msn, (int) (offset + done), last, views, first,
                    v - first, chunk);
                done += chunk;
                budget -= chunk;
            } while (done < part);
            Arrays.fill(views, 0, count, null);
            inPart = false;
            offset += part;
        } while (offset < total);
        active = false;
        src = null;
        return DONE;
    }

    /** A message in progress is given up (a failure, a discarded batch). */
    void abandonMessage() {
        if (active) {
            abandon();
        }
    }

    /** The message is given up (a failure): nothing more of it is queued. */
    private int abandon() {
        if (inPart) {
            Arrays.fill(views, 0, Math.max(0, count), null);
        }
        inPart = false;
        active = false;
        src = null;
        return FAILED;
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
