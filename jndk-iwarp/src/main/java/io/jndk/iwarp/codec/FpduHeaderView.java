package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Read-only view of the header of one FPDU as collected by {@link FpduDecoder}: MPA length, DDP
 * header, and the RDMAP header of Read Request and Terminate. The buffer starts with the 2-octet
 * ULPDU_Length, so the DDP header is at index 2. Accessors of the other buffer model return
 * whatever the octets at that position hold.
 */
public final class FpduHeaderView {

    private final ByteBuffer buffer;
    private final FpduFlyweight fpdu = new FpduFlyweight();
    private final DdpTaggedHeaderFlyweight tagged = new DdpTaggedHeaderFlyweight();
    private final DdpUntaggedHeaderFlyweight untagged = new DdpUntaggedHeaderFlyweight();
    private final ReadRequestFlyweight readRequest = new ReadRequestFlyweight();
    private final TerminateFlyweight terminate = new TerminateFlyweight();
    private int headerLength;
    private RdmapOpcode opcode;
    private int receivedPad;

    FpduHeaderView(ByteBuffer buffer) {
        this.buffer = buffer;
        fpdu.wrap(buffer, 0);
        tagged.wrap(buffer, FpduFlyweight.ULPDU_OFFSET);
        untagged.wrap(buffer, FpduFlyweight.ULPDU_OFFSET);
        readRequest.wrap(buffer, FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH);
    }

    void set(RdmapOpcode opcode, int headerLength) {
        this.opcode = opcode;
        this.headerLength = headerLength;
        this.receivedPad = 0;
        if (opcode == RdmapOpcode.TERMINATE) {
            int bodyOffset = FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH;
            terminate.wrap(buffer, bodyOffset, headerLength - bodyOffset);
        }
    }

    /** @return the buffer holding the header octets, starting with ULPDU_Length */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return header octets collected, including the 2-octet MPA length */
    public int headerLength() {
        return headerLength;
    }

    /** @return ULPDU_Length */
    public int ulpduLength() {
        return fpdu.ulpduLength();
    }

    /** @return total FPDU length on the wire including pad and CRC */
    public int fpduLength() {
        return FpduFlyweight.fpduLength(ulpduLength());
    }

    /** @return DDP payload octets that follow the header (0 for Read Request and Terminate) */
    public int payloadLength() {
        return FpduFlyweight.LENGTH_FIELD_LENGTH + ulpduLength() - headerLength;
    }

    void receivedPad(int packed) {
        this.receivedPad = packed;
    }

    /** @return number of pad octets of this FPDU */
    public int padLength() {
        return FpduFlyweight.padLength(ulpduLength());
    }

    /**
     * @return the pad octets as received, packed big-endian (see {@link FpduFlyweight#pad()});
     *     valid in {@link FpduListener#onFrameEnd}. Linux siw does not always send zeros here.
     */
    public int receivedPad() {
        return receivedPad;
    }

    /** @return the opcode */
    public RdmapOpcode opcode() {
        return opcode;
    }

    /** @return T */
    public boolean tagged() {
        return tagged.tagged();
    }

    /** @return L */
    public boolean last() {
        return tagged.last();
    }

    /** @return the tagged header flyweight (meaningful when {@link #tagged()}) */
    public DdpTaggedHeaderFlyweight taggedHeader() {
        return tagged;
    }

    /** @return the untagged header flyweight (meaningful when not {@link #tagged()}) */
    public DdpUntaggedHeaderFlyweight untaggedHeader() {
        return untagged;
    }

    /** @return the Read Request flyweight (meaningful for {@link RdmapOpcode#RDMA_READ_REQUEST}) */
    public ReadRequestFlyweight readRequest() {
        return readRequest;
    }

    /** @return the Terminate flyweight (meaningful for {@link RdmapOpcode#TERMINATE}) */
    public TerminateFlyweight terminate() {
        return terminate;
    }

    /** @return STag of a tagged segment */
    public int stag() {
        return tagged.stag();
    }

    /** @return TO of a tagged segment */
    public long taggedOffset() {
        return tagged.taggedOffset();
    }

    /** @return QN of an untagged segment */
    public int queueNumber() {
        return untagged.queueNumber();
    }

    /** @return MSN of an untagged segment */
    public int msn() {
        return untagged.msn();
    }

    /** @return MO of an untagged segment */
    public int messageOffset() {
        return untagged.messageOffset();
    }

    /** @return RsvdULP[8:39] of an untagged segment (Invalidate STag for the invalidating Sends) */
    public int invalidateStag() {
        return untagged.rsvdUlp();
    }
}
