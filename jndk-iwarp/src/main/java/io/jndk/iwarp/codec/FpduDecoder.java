package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Resumable FPDU stream parser for the bytes that follow the MPA Request/Reply (IWARP.md 1.10,
 * in the manner of siw's {@code enum siw_rx_state}).
 *
 * <pre>
 *   HEADER  --(length, DDP and RDMAP header complete and valid)-->  onHeader
 *   PAYLOAD --(each arriving piece)-->                              onPayload
 *   TRAILER --(pad + CRC complete)-->                               onFrameEnd(verdict)
 *   any     --(invalid input)-->                                    FAILED: feed returns the error
 * </pre>
 *
 * <p>Feed it arbitrary chunks of the TCP byte stream: the result is the same for any split. The
 * header (at most {@link #MAX_HEADER_LENGTH} octets) and the trailer (at most 7 octets) are
 * collected in fixed internal buffers; payload is never buffered but handed to the listener as
 * index ranges of the caller's buffer, so memory use is bounded and nothing is allocated per frame.
 * The CRC-32C is computed incrementally over exactly the octets seen.
 *
 * <p>Checks done here (everything that needs no connection state): DDP version, RDMAP version,
 * opcode range, T bit versus opcode, queue number of untagged opcodes, ULPDU length versus the
 * opcode's header, Read Request without payload, Terminate length, CRC. MSN, MO, STag and
 * bounds are the caller's. An error is returned as an {@link FpduError} value (with the Terminate to
 * send), never thrown, and latches: later calls return it again without consuming input.
 *
 * <p>Not thread-safe; one instance per connection direction.
 */
public final class FpduDecoder {

    /** Largest header collected: MPA length, untagged DDP header and the largest Terminate body. */
    public static final int MAX_HEADER_LENGTH = FpduFlyweight.LENGTH_FIELD_LENGTH + DdpUntaggedHeaderFlyweight.LENGTH
        + TerminateFlyweight.MAX_LENGTH;

    private static final int PREFIX_LENGTH = FpduFlyweight.LENGTH_FIELD_LENGTH + DdpHeaderFlyweight.COMMON_LENGTH;
    private static final int MAX_TRAILER_LENGTH = 3 + FpduFlyweight.CRC_LENGTH;

    private enum State { HEADER, PAYLOAD, TRAILER, FAILED }

    private final FpduListener listener;
    private final byte[] headerBytes = new byte[MAX_HEADER_LENGTH];
    private final ByteBuffer header = ByteBuffer.wrap(headerBytes);
    private final byte[] trailerBytes = new byte[MAX_TRAILER_LENGTH];
    private final ByteBuffer trailer = ByteBuffer.wrap(trailerBytes);
    private final FpduHeaderView view = new FpduHeaderView(header);
    private final CRC32C crc = new CRC32C();

    private boolean crcEnabled;
    private State state = State.HEADER;
    private FpduError error = FpduError.NONE;
    private boolean stopRequested;
    private boolean prefixChecked;
    private int headerFill;
    private int headerNeed = PREFIX_LENGTH;
    private int ulpduLength;
    /** The CRC the failing frame carried and the one computed over it (after a {@link FpduError#CRC_MISMATCH}). */
    private int mismatchReceived, mismatchComputed;
    private RdmapOpcode opcode;
    private int payloadRemaining;
    private int trailerFill;
    private int trailerNeed;
    private int padLength;
    private long framesDecoded;
    private long bytesConsumed;

    /**
     * @param listener receives headers, payload pieces and frame ends
     * @param crcEnabled whether CRC was negotiated (C set in the MPA Request or Reply)
     */
    public FpduDecoder(FpduListener listener, boolean crcEnabled) {
        this.listener = listener;
        this.crcEnabled = crcEnabled;
    }

    /**
     * Changes the CRC mode; only meaningful between frames (e.g. right after MPA negotiation).
     *
     * @param enabled whether CRC was negotiated
     */
    public void crcEnabled(boolean enabled) {
        this.crcEnabled = enabled;
    }

    /** @return whether CRCs are checked */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** Asks the decoder to stop after the current callback; {@link #feed} then returns {@link FpduError#STOPPED}. */
    public void stop() {
        stopRequested = true;
    }

    /** Returns to the start of a fresh FPDU stream, clearing any error. */
    public void reset() {
        state = State.HEADER;
        error = FpduError.NONE;
        stopRequested = false;
        startFrame();
        framesDecoded = 0;
        bytesConsumed = 0;
    }

    /** @return the latched error, {@link FpduError#NONE} while decoding is healthy */
    public FpduError error() {
        return error;
    }

    /** @return number of FPDUs completely decoded */
    public long framesDecoded() {
        return framesDecoded;
    }

    /** @return number of stream octets consumed */
    public long bytesConsumed() {
        return bytesConsumed;
    }

    /** @return whether the decoder is between FPDUs (no partial frame pending) */
    public boolean atFrameBoundary() {
        return state == State.HEADER && headerFill == 0;
    }

    /**
     * The header of the current (possibly offending) FPDU as far as it was collected; after an error
     * this is what a Terminate copies.
     *
     * @return the view; {@link FpduHeaderView#headerLength()} may be stale after an early error,
     *     use {@link #collectedHeaderLength()}
     */
    public FpduHeaderView header() {
        return view;
    }

    /** @return header octets collected for the current FPDU, including the 2-octet MPA length */
    public int collectedHeaderLength() {
        return headerFill;
    }

    /**
     * Copies the DDP header of the current FPDU (without the MPA length), as a Terminate attaches it.
     *
     * @param dst destination buffer
     * @param index absolute index in {@code dst}
     * @return octets copied: 14 (tagged), 18 (untagged) or 0 if not enough of it was received
     */
    public int copyDdpHeader(ByteBuffer dst, int index) {
        if (headerFill < PREFIX_LENGTH) {
            return 0;
        }
        boolean tagged = (headerBytes[FpduFlyweight.ULPDU_OFFSET] & DdpHeaderFlyweight.FLAG_TAGGED) != 0;
        int length = tagged ? DdpTaggedHeaderFlyweight.LENGTH : DdpUntaggedHeaderFlyweight.LENGTH;
        if (headerFill < FpduFlyweight.ULPDU_OFFSET + length) {
            return 0;
        }
        dst.put(index, headerBytes, FpduFlyweight.ULPDU_OFFSET, length);
        return length;
    }

    /**
     * Consumes {@code src} from its position to its limit (all of it unless an error occurs or the
     * listener stops the decoder, in which case the position is left after the last octet used).
     *
     * @param src the next chunk of the byte stream
     * @return {@link FpduError#NONE}, or the (latched) error
     */
    public FpduError feed(ByteBuffer src) {
        if (state == State.FAILED) {
            return error;
        }
        while (true) {
            switch (state) {
                case HEADER -> {
                    int n = Math.min(headerNeed - headerFill, src.remaining());
                    headerFill += consume(src, headerBytes, headerFill, n);
                    if (headerFill < headerNeed) {
                        return FpduError.NONE;
                    }
                    if (!prefixChecked) {
                        FpduError prefixError = checkPrefix();
                        if (prefixError != FpduError.NONE) {
                            return fail(prefixError);
                        }
                        prefixChecked = true;
                        continue;
                    }
                    FpduError headerError = checkHeader();
                    if (headerError != FpduError.NONE) {
                        return fail(headerError);
                    }
                    if (crcEnabled) {
                        crc.reset();
                        crc.update(headerBytes, 0, headerNeed);
                    }
                    view.set(opcode, headerNeed);
                    payloadRemaining = FpduFlyweight.LENGTH_FIELD_LENGTH + ulpduLength - headerNeed;
                    state = payloadRemaining > 0 ? State.PAYLOAD : State.TRAILER;
                    listener.onHeader(view);
                    if (stopRequested) {
                        return fail(FpduError.STOPPED);
                    }
                }
                case PAYLOAD -> {
                    int n = Math.min(payloadRemaining, src.remaining());
                    if (n == 0) {
                        return FpduError.NONE;
                    }
                    int index = src.position();
                    if (crcEnabled) {
                        Crc32c.update(crc, src, index, n);
                    }
                    payloadRemaining -= n;
                    bytesConsumed += n;
                    if (payloadRemaining == 0) {
                        state = State.TRAILER;
                    }
                    listener.onPayload(src, index, n);
                    src.position(index + n);
                    if (stopRequested) {
                        return fail(FpduError.STOPPED);
                    }
                }
                case TRAILER -> {
                    int n = Math.min(trailerNeed - trailerFill, src.remaining());
                    trailerFill += consume(src, trailerBytes, trailerFill, n);
                    if (trailerFill < trailerNeed) {
                        return FpduError.NONE;
                    }
                    int pad = 0;
                    for (int i = 0; i < padLength; i++) {
                        pad = (pad << 8) | (trailerBytes[i] & 0xFF);
                    }
                    view.receivedPad(pad);
                    CrcVerdict verdict = CrcVerdict.NOT_CHECKED;
                    if (crcEnabled) {
                        crc.update(trailerBytes, 0, padLength);
                        int expected = (int) crc.getValue();
                        int received = NetworkOrder.leI32(trailer, padLength);
                        verdict = expected == received ? CrcVerdict.VALID : CrcVerdict.MISMATCH;
                        if (verdict == CrcVerdict.MISMATCH) {
                            mismatchReceived = received;
                            mismatchComputed = expected;
                        }
                    }
                    framesDecoded++;
                    startFrame();
                    listener.onFrameEnd(view, verdict);
                    if (verdict == CrcVerdict.MISMATCH) {
                        return fail(FpduError.CRC_MISMATCH);
                    }
                    if (stopRequested) {
                        return fail(FpduError.STOPPED);
                    }
                }
                case FAILED -> {
                    return error;
                }
            }
        }
    }

    /**
     * Payload octets of the current FPDU still to come: non-zero only between {@link FpduListener#onHeader} and the
     * last payload octet. A caller may then read them straight into their destination and report them with
     * {@link #payloadPlaced} instead of feeding them (direct data placement).
     *
     * @return octets of payload outstanding in the current FPDU
     */
    public int payloadRemaining() {
        return state == State.PAYLOAD ? payloadRemaining : 0;
    }

    /**
     * After a {@link FpduError#CRC_MISMATCH}: what a person needs to tell a damaged frame from a miscounted one (the
     * two CRCs, the frame's place in the stream, its ULPDU length).
     */
    public String crcMismatchDetail() {
        return String.format(Locale.ROOT,
            "MPA CRC mismatch: received 0x%08x, computed 0x%08x, frame %d (ULPDU length %d) ending at stream octet %d",
            mismatchReceived, mismatchComputed, framesDecoded, ulpduLength, bytesConsumed);
    }

    /**
     * Accounts for payload octets the caller read directly into their destination: the CRC is updated over them
     * and {@link FpduListener#onPayload} is not called for them.
     *
     * @param placed buffers whose octets from position to limit are, in order, the next payload octets
     * @param offset first buffer
     * @param count number of buffers
     * @param length total octets in them; at most {@link #payloadRemaining()}
     */
    public void payloadPlaced(ByteBuffer[] placed, int offset, int count, int length) {
        if (state != State.PAYLOAD || length < 0 || length > payloadRemaining) {
            throw new IllegalStateException("no such payload outstanding");
        }
        if (crcEnabled) {
            for (int i = offset; i < offset + count; i++) {
                ByteBuffer b = placed[i];
                Crc32c.update(crc, b, b.position(), b.remaining());
            }
        }
        payloadRemaining -= length;
        bytesConsumed += length;
        if (payloadRemaining == 0) {
            state = State.TRAILER;
        }
    }

    private int consume(ByteBuffer src, byte[] dst, int offset, int n) {
        if (n > 0) {
            src.get(dst, offset, n);
            bytesConsumed += n;
        }
        return n;
    }

    private void startFrame() {
        state = State.HEADER;
        prefixChecked = false;
        headerFill = 0;
        headerNeed = PREFIX_LENGTH;
        trailerFill = 0;
    }

    private FpduError fail(FpduError reason) {
        error = reason;
        state = State.FAILED;
        return reason;
    }

    private FpduError checkPrefix() {
        ulpduLength = NetworkOrder.u16(header, 0);
        int ddpControl = NetworkOrder.u8(header, FpduFlyweight.ULPDU_OFFSET + DdpHeaderFlyweight.CONTROL_OFFSET);
        int rdmapControl = NetworkOrder.u8(header, FpduFlyweight.ULPDU_OFFSET + DdpHeaderFlyweight.RDMAP_CONTROL_OFFSET);
        boolean tagged = (ddpControl & DdpHeaderFlyweight.FLAG_TAGGED) != 0;
        if ((ddpControl & DdpHeaderFlyweight.VERSION_MASK) != DdpHeaderFlyweight.VERSION) {
            return tagged ? FpduError.DDP_VERSION_TAGGED : FpduError.DDP_VERSION_UNTAGGED;
        }
        if (RdmapControl.version(rdmapControl) != RdmapControl.VERSION) {
            return FpduError.RDMAP_VERSION;
        }
        opcode = RdmapOpcode.fromCode(RdmapControl.opcode(rdmapControl));
        if (opcode == null) {
            return FpduError.UNKNOWN_OPCODE;
        }
        if (opcode.tagged() != tagged) {
            return FpduError.BUFFER_MODEL_MISMATCH;
        }
        if (opcode == RdmapOpcode.TERMINATE) {
            if (ulpduLength < opcode.headerLength()
                || ulpduLength > DdpUntaggedHeaderFlyweight.LENGTH + TerminateFlyweight.MAX_LENGTH) {
                return FpduError.MALFORMED_TERMINATE;
            }
            headerNeed = FpduFlyweight.LENGTH_FIELD_LENGTH + ulpduLength;
        } else {
            if (ulpduLength < opcode.headerLength()) {
                return FpduError.ULPDU_TOO_SHORT;
            }
            headerNeed = opcode.fpduHeaderLength();
        }
        padLength = FpduFlyweight.padLength(ulpduLength);
        trailerNeed = padLength + FpduFlyweight.CRC_LENGTH;
        return FpduError.NONE;
    }

    private FpduError checkHeader() {
        if (!opcode.tagged()
            && NetworkOrder.i32(header, FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.QN_OFFSET) != opcode.queueNumber()) {
            return FpduError.INVALID_QUEUE_NUMBER;
        }
        if (opcode == RdmapOpcode.RDMA_READ_REQUEST && ulpduLength != opcode.headerLength()) {
            return FpduError.READ_REQUEST_WITH_PAYLOAD;
        }
        return FpduError.NONE;
    }
}
