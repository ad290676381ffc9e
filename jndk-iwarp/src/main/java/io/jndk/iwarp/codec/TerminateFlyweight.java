package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the body of an RDMAP Terminate message (RFC 5040 section 4.8): the control word and
 * the optional copied headers that follow the untagged DDP header (QN 2) of opcode 7.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Layer | EType |  Error Code   |M|D|R|        Reserved         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  DDP Segment Length (M/D)     | Terminated DDP header (D):    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ 14 octets tagged, 18 untagged ~
 *  ~ Terminated RDMA header (R): the 28-octet Read Request header  ~
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Encoding is always RFC 5040. Decoding also accepts the layout Linux siw sends
 * ({@link TerminateLayout#SIW_SWAPPED}); {@link #layout()} tells which one was detected, by these
 * rules in order: (1) if exactly one reading names a valid layer/EType pair, it wins; (2) otherwise
 * flag bits present in only one layout's flag positions decide; (3) otherwise an error code defined
 * for only one reading decides; (4) otherwise RFC 5040, and {@link #layoutAmbiguous()} is true when
 * the two readings differ. The copied headers are located by length, not only by the flags, because
 * siw sets R without attaching an RDMA header for Send-type protection errors.
 *
 * <p>Offsets are relative to the control word (FPDU offset 20); the body length must be given to
 * {@link #wrap(ByteBuffer, int, int)} (ULPDU_Length minus 18).
 */
public final class TerminateFlyweight {

    /** Offset of the 32-bit Terminate control word. */
    public static final int CONTROL_OFFSET = 0;
    /** Length of the control word. */
    public static final int CONTROL_LENGTH = 4;
    /** Offset of the 16-bit DDP Segment Length. */
    public static final int DDP_SEGMENT_LENGTH_OFFSET = 4;
    /** Offset of the copied DDP header. */
    public static final int COPIED_DDP_HEADER_OFFSET = 6;
    /** Largest body: control word, segment length, untagged DDP header and Read Request header. */
    public static final int MAX_LENGTH = CONTROL_LENGTH + 2 + DdpUntaggedHeaderFlyweight.LENGTH + ReadRequestFlyweight.LENGTH;

    /** RFC layout: layer mask. */
    public static final int LAYER_MASK = 0xF000_0000;
    /** RFC layout: EType mask. */
    public static final int ETYPE_MASK = 0x0F00_0000;
    /** Error code mask (same in both layouts). */
    public static final int CODE_MASK = 0x00FF_0000;
    /** RFC layout: M flag (DDP segment length valid). */
    public static final int FLAG_M = 0x8000;
    /** RFC layout: D flag (DDP header included). */
    public static final int FLAG_D = 0x4000;
    /** RFC layout: R flag (RDMAP header included). */
    public static final int FLAG_R = 0x2000;
    /** siw layout: M flag. */
    public static final int SIW_FLAG_M = 0x0100;
    /** siw layout: D flag. */
    public static final int SIW_FLAG_D = 0x0200;
    /** siw layout: R flag. */
    public static final int SIW_FLAG_R = 0x0400;

    private ByteBuffer buffer;
    private int offset;
    private int length;

    /**
     * @param buffer the buffer
     * @param offset index of the control word
     * @param length body length (4..{@link #MAX_LENGTH}), i.e. ULPDU_Length - 18
     * @return this
     */
    public TerminateFlyweight wrap(ByteBuffer buffer, int offset, int length) {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** @return the wrapped buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the control word */
    public int offset() {
        return offset;
    }

    /** @return the body length given to wrap */
    public int length() {
        return length;
    }

    /** @return the raw control word */
    public int controlWord() {
        return NetworkOrder.i32(buffer, offset + CONTROL_OFFSET);
    }

    /**
     * @param word the raw control word
     * @return this
     */
    public TerminateFlyweight controlWord(int word) {
        NetworkOrder.putI32(buffer, offset + CONTROL_OFFSET, word);
        return this;
    }

    /**
     * Writes an RFC 5040 control word.
     *
     * @param layer 4-bit layer
     * @param errorType 4-bit EType
     * @param errorCode 8-bit code
     * @param m M flag
     * @param d D flag
     * @param r R flag
     * @return this
     */
    public TerminateFlyweight control(int layer, int errorType, int errorCode, boolean m, boolean d, boolean r) {
        return controlWord(encodeRfc(layer, errorType, errorCode, m, d, r));
    }

    /**
     * @param code the error
     * @param m M flag
     * @param d D flag
     * @param r R flag
     * @return this
     */
    public TerminateFlyweight control(TerminateCode code, boolean m, boolean d, boolean r) {
        return control(code.layer(), code.errorType(), code.errorCode(), m, d, r);
    }

    /**
     * @param layer 4-bit layer
     * @param errorType 4-bit EType
     * @param errorCode 8-bit code
     * @param m M flag
     * @param d D flag
     * @param r R flag
     * @return the RFC 5040 control word
     */
    public static int encodeRfc(int layer, int errorType, int errorCode, boolean m, boolean d, boolean r) {
        return ((layer & 0xF) << 28) | ((errorType & 0xF) << 24) | ((errorCode & 0xFF) << 16)
            | (m ? FLAG_M : 0) | (d ? FLAG_D : 0) | (r ? FLAG_R : 0);
    }

    /**
     * The control word as Linux siw on a little-endian host would put it on the wire; for tests and
     * interoperability experiments only, never for sending.
     *
     * @param layer 4-bit layer
     * @param errorType 4-bit EType
     * @param errorCode 8-bit code
     * @param m M flag
     * @param d D flag
     * @param r R flag
     * @return the siw-layout control word
     */
    public static int encodeSiw(int layer, int errorType, int errorCode, boolean m, boolean d, boolean r) {
        return ((errorType & 0xF) << 28) | ((layer & 0xF) << 24) | ((errorCode & 0xFF) << 16)
            | (m ? SIW_FLAG_M : 0) | (d ? SIW_FLAG_D : 0) | (r ? SIW_FLAG_R : 0);
    }

    /** @return the layout detected for the received control word */
    public TerminateLayout layout() {
        int word = controlWord();
        int high = (word >>> 28) & 0xF;
        int low = (word >>> 24) & 0xF;
        int code = (word >>> 16) & 0xFF;
        boolean rfcPair = TerminateCode.isValidLayerAndType(high, low);
        boolean siwPair = TerminateCode.isValidLayerAndType(low, high);
        if (rfcPair != siwPair) {
            return rfcPair ? TerminateLayout.RFC_5040 : TerminateLayout.SIW_SWAPPED;
        }
        boolean rfcFlags = (word & (FLAG_M | FLAG_D | FLAG_R)) != 0;
        boolean siwFlags = (word & (SIW_FLAG_M | SIW_FLAG_D | SIW_FLAG_R)) != 0;
        if (rfcFlags != siwFlags) {
            return rfcFlags ? TerminateLayout.RFC_5040 : TerminateLayout.SIW_SWAPPED;
        }
        if (rfcPair) {
            boolean rfcCode = TerminateCode.of(high, low, code) != null;
            boolean siwCode = TerminateCode.of(low, high, code) != null;
            if (rfcCode != siwCode) {
                return rfcCode ? TerminateLayout.RFC_5040 : TerminateLayout.SIW_SWAPPED;
            }
        }
        return TerminateLayout.RFC_5040;
    }

    /**
     * @return whether both layouts give a plausible but different reading and no evidence
     *     separated them, so {@link #layout()} fell back to RFC 5040
     */
    public boolean layoutAmbiguous() {
        int word = controlWord();
        int high = (word >>> 28) & 0xF;
        int low = (word >>> 24) & 0xF;
        int code = (word >>> 16) & 0xFF;
        boolean rfcFlags = (word & (FLAG_M | FLAG_D | FLAG_R)) != 0;
        boolean siwFlags = (word & (SIW_FLAG_M | SIW_FLAG_D | SIW_FLAG_R)) != 0;
        return high != low
            && rfcFlags == siwFlags
            && TerminateCode.of(high, low, code) != null
            && TerminateCode.of(low, high, code) != null;
    }

    /** @return the layer, read in the detected layout */
    public int layer() {
        int word = controlWord();
        return layout() == TerminateLayout.RFC_5040 ? (word >>> 28) & 0xF : (word >>> 24) & 0xF;
    }

    /** @return the EType, read in the detected layout */
    public int errorType() {
        int word = controlWord();
        return layout() == TerminateLayout.RFC_5040 ? (word >>> 24) & 0xF : (word >>> 28) & 0xF;
    }

    /** @return the error code */
    public int errorCode() {
        return (controlWord() >>> 16) & 0xFF;
    }

    /** @return the catalogued error, or {@code null} if the triple is not defined */
    public TerminateCode terminateCode() {
        return TerminateCode.of(layer(), errorType(), errorCode());
    }

    /** @return M, read in the detected layout */
    public boolean flagM() {
        return (controlWord() & (layout() == TerminateLayout.RFC_5040 ? FLAG_M : SIW_FLAG_M)) != 0;
    }

    /** @return D, read in the detected layout */
    public boolean flagD() {
        return (controlWord() & (layout() == TerminateLayout.RFC_5040 ? FLAG_D : SIW_FLAG_D)) != 0;
    }

    /** @return R, read in the detected layout */
    public boolean flagR() {
        return (controlWord() & (layout() == TerminateLayout.RFC_5040 ? FLAG_R : SIW_FLAG_R)) != 0;
    }

    /** @return whether the body is long enough to hold the DDP Segment Length */
    public boolean hasDdpSegmentLength() {
        return length >= COPIED_DDP_HEADER_OFFSET;
    }

    /** @return the DDP Segment Length field (siw writes the payload length of the offending segment) */
    public int ddpSegmentLength() {
        return NetworkOrder.u16(buffer, offset + DDP_SEGMENT_LENGTH_OFFSET);
    }

    /**
     * @param segmentLength DDP Segment Length
     * @return this
     */
    public TerminateFlyweight ddpSegmentLength(int segmentLength) {
        NetworkOrder.putU16(buffer, offset + DDP_SEGMENT_LENGTH_OFFSET, segmentLength);
        return this;
    }

    /** @return index in the buffer of the copied DDP header */
    public int copiedDdpHeaderIndex() {
        return offset + COPIED_DDP_HEADER_OFFSET;
    }

    /**
     * @return length of the copied DDP header found by length and by its T bit: 14 (tagged),
     *     18 (untagged) or 0 (none, or not enough octets)
     */
    public int copiedDdpHeaderLength() {
        int available = length - COPIED_DDP_HEADER_OFFSET;
        if (available < DdpTaggedHeaderFlyweight.LENGTH) {
            return 0;
        }
        boolean tagged = (buffer.get(copiedDdpHeaderIndex()) & DdpHeaderFlyweight.FLAG_TAGGED) != 0;
        if (tagged) {
            return DdpTaggedHeaderFlyweight.LENGTH;
        }
        return available >= DdpUntaggedHeaderFlyweight.LENGTH ? DdpUntaggedHeaderFlyweight.LENGTH : 0;
    }

    /** @return index in the buffer of the copied RDMA (Read Request) header */
    public int copiedRdmaHeaderIndex() {
        return copiedDdpHeaderIndex() + copiedDdpHeaderLength();
    }

    /** @return 28 if a whole Read Request header follows the copied DDP header, else 0 */
    public int copiedRdmaHeaderLength() {
        int ddp = copiedDdpHeaderLength();
        if (ddp == 0) {
            return 0;
        }
        int available = length - COPIED_DDP_HEADER_OFFSET - ddp;
        return available >= ReadRequestFlyweight.LENGTH ? ReadRequestFlyweight.LENGTH : 0;
    }
}
