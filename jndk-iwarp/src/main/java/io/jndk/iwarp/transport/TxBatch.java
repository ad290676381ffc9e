package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The transmit side's pending output, written in gathering writes of whole batches (Netty's
 * {@code ChannelOutboundBuffer}, in jndk's form): the FPDUs of every message of consecutive turns, up to
 * {@link #BATCH_REQUESTS} requests or {@link #BATCH_BYTES} octets, go out in one gathering write of
 * {@code [header][payload views][pad + CRC][header]...}. Headers, trailers and payloads up to
 * {@link #STAGED_PAYLOAD} octets are staged in one direct buffer (neighbouring pieces share one I/O vector entry);
 * larger payloads are written straight from registered memory. The encoder writes each FPDU's framing
 * ({@link FpduEncoder#header}, {@link FpduEncoder#trailer}).
 *
 * <p>The batch's requests complete ({@code sent}) after the write that carried their last octet; an unwritten batch
 * is forgotten on failure ({@link #discard}: the failure flushes its requests). The owner flushes before it lets go
 * of the transmit side, except that in polling mode an owner that may not wait leaves a write the socket cannot take
 * to the transmit thread ({@link #flush(boolean)}, {@link #pendingFlush()}).
 *
 * <p>Owned by whoever holds the transmit side ({@link TxEngine}); no field is shared with another thread.
 */
final class TxBatch {
    /** I/O vector entries of one gathering write (the JDK writes at most IOV_MAX, 1024 on Linux, at once). */
    static final int GATHER = 2 * MessageSegmenter.MAX_SLICES;
    /** Requests batched into one gathering write. */
    static final int BATCH_REQUESTS = 16;
    /** Octets after which a batch is written. */
    static final int BATCH_BYTES = 256 * 1024;
    /** Staging space of a batch: headers, trailers, small payloads. */
    static final int STAGE_BYTES = 64 * 1024;
    /** Payloads up to this size are copied next to their header and written as one buffer. */
    static final int STAGED_PAYLOAD = 4096;
    /** Room a whole frame the encoder writes on its own (a Read Request, the RTR) may take. */
    private static final int FRAME_ROOM = 128;

    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final SocketChannel channel;
    private final QpPort qp;
    private final FpduEncoder encoder;
    private final ConnectionCapture capture;
    private final WireCounters counters;
    private final ConsumerDrive drive;
    /**
     * The shared engine: no owner ever waits for the socket; a write it cannot make leaves the batch pending
     * ({@link #pendingFlush()}) and {@link #room}, {@link #frameStart} and {@link #nextSlot} say so instead of
     * waiting.
     */
    private final boolean nonBlocking;

    // ---- the octets: staged pieces and payload views, in I/O vector order --------------------------------------
    /** Headers, trailers and small payloads of the batch being built. */
    private ByteBuffer stage;
    /** Views of {@link #stage} for the I/O vector, each made the first time a batch needs that many. */
    private ByteBuffer[] stageViews;
    /** The lent staging space ({@link StagePool}), or null while none is held. */
    private StagePool.Stage lent;
    private final ByteBuffer[] gather = new ByteBuffer[GATHER];
    private int entries;
    private int stageViewsUsed;
    private long batchBytes;
    /** Octets of the batch written so far (a non-blocking write may take only part of it). */
    private long written;
    /** The batch was recorded in the capture (a resumed write does not record it again). */
    private boolean captured;
    /** Polling mode: the socket was full and the owner could not wait; the transmit thread writes the rest. */
    private boolean pendingFlush;

    // ---- the requests: completed (sent) once the batch is written -------------------------------------------
    /** Requests of the batch; {@code nextRequest} fills them in place. */
    private final WireRequest[] requests = new WireRequest[BATCH_REQUESTS];
    private int batched;
    /** Read Responses in the batch: their source cursors stay in use until it is written. */
    private int responsesBatched;
    /** A request taken from the QP is being queued at {@code requests[batched]} (a flush moves it to index 0). */
    private boolean building;
    /** A request taken by an owner that may not wait, too large for it, waits at {@code requests[batched]}. */
    private boolean carried;
    /** The owner is a consumer's thread (a poster, or a poller sending what its step handed over): FPDUS_OUT_INLINE. */
    private boolean inline;
    /** System calls that wrote to the socket (the owner's; tests read it once the requests written were sent). */
    long writeCalls;

    TxBatch(SocketChannel channel, QpPort qp, FpduEncoder encoder, ConnectionCapture capture, WireCounters counters,
            ConsumerDrive drive, boolean nonBlocking) {
        this.nonBlocking = nonBlocking;
        this.channel = channel;
        this.qp = qp;
        this.encoder = encoder;
        this.capture = capture;
        this.counters = counters;
        this.drive = drive;
        for (int i = 0; i < requests.length; i++) {
            requests[i] = new WireRequest();
        }
    }

    // ---- requests --------------------------------------------------------------------------------------------

    /**
     * @return the holder the next request is taken into (a full batch is written first), or {@code null} when the
     *     batch is full and the socket cannot take it now (the shared engine)
     */
    WireRequest nextSlot() throws IOException {
        if ((batched == requests.length || pendingFlush) && !flush(nonBlocking)) {
            return null;
        }
        return requests[batched];
    }

    /** The request in {@link #nextSlot} is being queued ({@code true}) or no longer is. */
    void building(boolean b) {
        building = b;
    }

    /** The request in {@link #nextSlot} is queued: it completes once the batch is written. */
    void queued() {
        batched++;
    }

    /** The request in {@link #nextSlot} waits for the transmit thread (an owner that may not wait took it). */
    void carry() {
        building = false;
        carried = true;
    }

    /** The owner is a consumer's thread from now on ({@code true}), or an engine thread. */
    void inline(boolean consumer) {
        inline = consumer;
    }

    /** One FPDU joined the batch: counted, and as a consumer's when a consumer's thread owns the batch. */
    private void countFpduOut() {
        counters.fpduOut();
        if (inline) {
            counters.fpduOutInline();
        }
    }

    /** @return whether a carried request waits in {@link #nextSlot} */
    boolean carried() {
        return carried;
    }

    /** @return whether a request was carried (it is in {@link #nextSlot}, to be sent now); it no longer is */
    boolean takeCarried() {
        boolean c = carried;
        carried = false;
        return c;
    }

    /**
     * A Read Response joined the batch.
     *
     * @return whether the batch now holds {@link QpPort#READ_RESPONSE_BATCH} of them and must be written: their IRQ
     *     places are free again but not yet their source cursors, and the QP keeps only that many more
     */
    boolean responseQueued() {
        return ++responsesBatched == QpPort.READ_RESPONSE_BATCH;
    }

    /** Forgets a holder's memory and handle (after its request completed, or was given up). */
    static void clear(WireRequest r) {
        r.local = null;
        r.handle = null;
    }

    // ---- octets ----------------------------------------------------------------------------------------------

    /**
     * Appends one FPDU: header, payload ({@code count} views from {@code views[first]}, {@code payload} octets), pad,
     * CRC. A payload up to {@link #STAGED_PAYLOAD} octets is copied behind the header (the views are consumed), a
     * larger one is gathered from its views.
     */
    void appendFpdu(RdmapOpcode op, int key, long to, int msn, int mo, boolean last, ByteBuffer[] views, int first,
                    int count, int payload) throws IOException {
        if (!roomForFpdu(op, count, payload)) {
            throw new IllegalStateException("an FPDU appended without room (roomForFpdu said no)");
        }
        boolean stagedPayload = payload <= STAGED_PAYLOAD;
        int at = stage.position();
        int end = at + encoder.header(stage, at, op, last, key, to, msn, mo, payload);
        if (stagedPayload) {
            stage.position(end);
            for (int i = first; i < first + count; i++) {
                stage.put(views[i]);
            }
            end = stage.position();
            int trailerEnd = end + encoder.trailer(stage, at, end, null, 0, 0);
            stage.position(trailerEnd);
            staged(at, trailerEnd);
        } else {
            int trailerEnd = end + encoder.trailer(stage, at, end, views, first, count);
            staged(at, end);
            for (int i = first; i < first + count; i++) {
                ByteBuffer b = views[i];
                gather[entries++] = b;
                batchBytes += b.remaining();
            }
            stage.position(trailerEnd);
            staged(end, trailerEnd);
        }
        countFpduOut();
    }

    /**
     * Makes room for one FPDU of {@code payload} octets in {@code count} views, as {@link #appendFpdu} needs it.
     *
     * @return false when the batch is full and the socket cannot take it now (the shared engine: nothing is appended)
     */
    boolean roomForFpdu(RdmapOpcode op, int count, int payload) throws IOException {
        boolean stagedPayload = payload <= STAGED_PAYLOAD;
        return room(stagedPayload ? 0 : count, op.fpduHeaderLength() + (stagedPayload ? payload : 0) + 8);
    }

    /**
     * Where a whole frame the encoder writes (at most {@value #FRAME_ROOM} octets) goes; makes room for it.
     *
     * @return the offset in {@link #stage()}, or -1 when the batch is full and the socket cannot take it now (the
     *     shared engine)
     */
    int frameStart() throws IOException {
        if (!room(0, FRAME_ROOM)) {
            return -1;
        }
        return stage.position();
    }

    /** @return the staging buffer, for the encoder to write a whole frame at {@link #frameStart} */
    ByteBuffer stage() {
        return stage;
    }

    /** The encoder wrote a whole FPDU of {@code n} octets at {@code at} ({@link #frameStart}): it joins the batch. */
    void frameStaged(int at, int n) {
        stage.position(at + n);
        staged(at, at + n);
        countFpduOut();
    }

    /**
     * Polling mode: whether one more small request (up to {@link TxEngine#SMALL_INLINE} octets, at most
     * {@link MessageSegmenter#PART_FPDUS} FPDUs) fits the batch with no write before it.
     */
    boolean roomForSmall() {
        holdStage();
        return batched < requests.length - 1 && batchBytes + TxEngine.SMALL_INLINE + 4096 <= BATCH_BYTES
            && stage.remaining() >= TxEngine.SMALL_INLINE + 64 * MessageSegmenter.PART_FPDUS
            && entries + MessageSegmenter.MAX_SLICES + 2 * MessageSegmenter.PART_FPDUS + 2 <= gather.length
            && stageViewsUsed + 2 * MessageSegmenter.PART_FPDUS + 2 <= stageViews.length;
    }

    /**
     * Makes room for an FPDU: {@code views} payload views and {@code stageBytes} staged octets, writing the batch
     * first when it is full (or still pending).
     *
     * @return false when it had to be written and the socket could not take it all (the shared engine)
     */
    private boolean room(int views, int stageBytes) throws IOException {
        holdStage();
        if (pendingFlush || entries + views + 2 > gather.length || stageViewsUsed + 2 > stageViews.length
            || stage.remaining() < stageBytes + 8 || batchBytes >= BATCH_BYTES) {
            return flush(nonBlocking);
        }
        return true;
    }

    private void holdStage() {
        if (lent == null) {
            lent = StagePool.lend();
            stage = lent.buffer;
            stageViews = lent.views;
        }
    }

    /**
     * The shared engine, after the owner's turns: when nothing is batched or pending, the staging space goes back to
     * the pool (a connection at rest holds none).
     */
    void releaseIfIdle() {
        if (lent != null && entries == 0 && !pendingFlush && batched == 0 && !building && !carried) {
            StagePool.Stage s = lent;
            lent = null;
            stage = null;
            stageViews = null;
            StagePool.giveBack(s);
        }
    }

    /** Adds {@code stage[from, to)} to the I/O vector, extending the last entry when it ends at {@code from}. */
    private void staged(int from, int to) {
        if (to <= from) {
            return;
        }
        batchBytes += to - from;
        if (entries > 0 && stageViewsUsed > 0) {
            ByteBuffer lastView = stageViews[stageViewsUsed - 1];
            if (gather[entries - 1] == lastView && lastView.limit() == from) {
                lastView.limit(to);
                return;
            }
        }
        ByteBuffer b = stageViews[stageViewsUsed];
        if (b == null) {
            b = stageViews[stageViewsUsed] = stage.duplicate();
        }
        stageViewsUsed++;
        b.limit(to).position(from);
        gather[entries++] = b;
    }

    // ---- writing ---------------------------------------------------------------------------------------------

    /**
     * Writes the batch (one gathering write, repeated until every octet is out), then completes its requests.
     *
     * @return false when the socket could not take it all now (the shared engine only: the rest is pending)
     */
    boolean flush() throws IOException {
        return flush(false);
    }

    /**
     * Writes the batch, then completes its requests.
     *
     * @param mayLeave polling mode, an owner that may not wait: when the socket is full, leave the rest of the batch
     *     to the transmit thread ({@link #pendingFlush()}) instead of waiting; only a batch's final write may
     * @return false when it left the rest unwritten
     */
    boolean flush(boolean mayLeave) throws IOException {
        if (entries > 0) {
            if (!captured) {
                capture.outbound(gather, entries);
            }
            captured = true;
            if (!writeBatch(mayLeave)) {
                pendingFlush = true;
                return false;
            }
        }
        pendingFlush = false;
        resetBatch();
        int n = batched;
        batched = 0;
        for (int i = 0; i < n; i++) {
            WireRequest r = requests[i];
            qp.sent(r);
            clear(r);
        }
        if ((building || carried) && n > 0) { // the request being queued moves to the head of the next batch
            WireRequest r = requests[0];
            requests[0] = requests[n];
            requests[n] = r;
        }
        return true;
    }

    /** @return whether an owner that could not wait left this batch partly or wholly unwritten */
    boolean pendingFlush() {
        return pendingFlush;
    }

    /** @return whether part of the batch is written already (a poster that could not wait left the rest) */
    boolean partlyWritten() {
        return written > 0;
    }

    /**
     * Writes the rest of a partly written batch, waiting for the socket (so that what follows starts whole).
     *
     * @return false when the socket could not take it all now (the shared engine: call again once writable)
     */
    boolean writeRest() throws IOException {
        return writeBatch(false);
    }

    /**
     * Writes what is left of the batch (every FPDU whole). A blocking channel always takes some; a non-blocking one
     * may take nothing, and then the owner waits until the socket is writable, unless {@code mayLeave}.
     *
     * @return false when it left the rest unwritten
     */
    private boolean writeBatch(boolean mayLeave) throws IOException {
        long remaining = batchBytes - written;
        while (remaining > 0) {
            long n = entries == 1 ? channel.write(gather[0]) : channel.write(gather, 0, entries);
            writeCalls++;
            written += n;
            remaining -= n;
            if (n == 0) {
                if (mayLeave || nonBlocking) {
                    return false;
                }
                drive.awaitWritable();
            }
        }
        return true;
    }

    /**
     * Writes {@code frame} whole (a Terminate), waiting for the socket as {@link #writeBatch} does.
     *
     * @return false when the socket could not take it all now (the shared engine: call again once writable)
     */
    boolean writeWhole(ByteBuffer frame) throws IOException {
        while (frame.hasRemaining()) {
            writeCalls++;
            if (channel.write(frame) == 0) {
                if (nonBlocking) {
                    return false;
                }
                drive.awaitWritable();
            }
        }
        return true;
    }

    /** Forgets the batch unwritten: its requests never complete as sent (the failure flushes them). */
    void discard() {
        pendingFlush = false;
        carried = false;
        resetBatch();
        for (WireRequest r : requests) {
            clear(r);
        }
        batched = 0;
        building = false;
    }

    private void resetBatch() {
        for (int i = 0; i < entries; i++) {
            gather[i] = null;
        }
        entries = 0;
        stageViewsUsed = 0;
        responsesBatched = 0;
        batchBytes = 0;
        written = 0;
        captured = false;
        if (stage != null) {
            stage.clear();
        }
    }
}
