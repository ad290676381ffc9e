package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Writes complete FPDUs (length, DDP/RDMAP header, payload, zero pad, CRC trailer) into a buffer
 * with the flyweights of this package. Allocation-free; one instance per sending thread.
 *
 * <p>A sender that gathers payload straight from its memory writes a data FPDU in two parts instead:
 * {@link #header} before the payload and {@link #trailer} (pad and CRC over header and payload views)
 * after it; the octets are the same as those of {@link #tagged} and {@link #untagged}.
 *
 * <p>All methods take an absolute index and return the number of octets written; they never move
 * the position of any buffer. The destination must have room for
 * {@link FpduFlyweight#fpduLength(int)} octets. Sizes are the caller's business: the ULPDU must not
 * exceed {@link FpduFlyweight#MAX_ULPDU_LENGTH} (and should not exceed the MULPDU, IWARP.md 1.9).
 */
public final class FpduEncoder {

    private final CRC32C crc = new CRC32C();
    private final FpduFlyweight fpdu = new FpduFlyweight();
    private final DdpTaggedHeaderFlyweight tagged = new DdpTaggedHeaderFlyweight();
    private final DdpUntaggedHeaderFlyweight untagged = new DdpUntaggedHeaderFlyweight();
    private final ReadRequestFlyweight readRequest = new ReadRequestFlyweight();
    private final TerminateFlyweight terminate = new TerminateFlyweight();
    private boolean crcEnabled;

    /** @param crcEnabled whether CRC was negotiated; if not, the trailer is {@code 00 00 00 00} */
    public FpduEncoder(boolean crcEnabled) {
        this.crcEnabled = crcEnabled;
    }

    /** @param enabled whether CRC was negotiated */
    public void crcEnabled(boolean enabled) {
        this.crcEnabled = enabled;
    }

    /** @return whether CRCs are generated */
    public boolean crcEnabled() {
        return crcEnabled;
    }

    /**
     * Writes a tagged segment (RDMA Write or Read Response).
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param opcode {@link RdmapOpcode#RDMA_WRITE} or {@link RdmapOpcode#RDMA_READ_RESPONSE}
     * @param last L
     * @param stag Data Sink STag
     * @param to Data Sink Tagged Offset of the first payload octet
     * @param payload payload source (may be {@code null} when {@code payloadLength} is 0)
     * @param payloadIndex absolute index of the payload in {@code payload}
     * @param payloadLength payload octets
     * @return FPDU length
     */
    public int tagged(ByteBuffer dst, int index, RdmapOpcode opcode, boolean last, int stag, long to,
                      ByteBuffer payload, int payloadIndex, int payloadLength) {
        writeTagged(dst, index, opcode, last, stag, to);
        return finish(dst, index, DdpTaggedHeaderFlyweight.LENGTH, payload, payloadIndex, payloadLength);
    }

    /**
     * Writes an untagged segment (the Send family).
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param opcode a Send opcode
     * @param last L
     * @param rsvdUlp RsvdULP[8:39]: the STag to invalidate, or 0
     * @param queueNumber QN
     * @param msn MSN
     * @param messageOffset MO
     * @param payload payload source (may be {@code null} when {@code payloadLength} is 0)
     * @param payloadIndex absolute index of the payload in {@code payload}
     * @param payloadLength payload octets
     * @return FPDU length
     */
    public int untagged(ByteBuffer dst, int index, RdmapOpcode opcode, boolean last, int rsvdUlp,
                        int queueNumber, int msn, int messageOffset,
                        ByteBuffer payload, int payloadIndex, int payloadLength) {
        writeUntagged(dst, index, opcode, last, rsvdUlp, queueNumber, msn, messageOffset);
        return finish(dst, index, DdpUntaggedHeaderFlyweight.LENGTH, payload, payloadIndex, payloadLength);
    }

    /**
     * Writes an RDMA Read Request (QN 1, MO 0, L = 1, no payload).
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param msn MSN on queue 1
     * @param sinkStag Data Sink STag
     * @param sinkTo Data Sink Tagged Offset
     * @param size RDMA Read Message Size
     * @param sourceStag Data Source STag
     * @param sourceTo Data Source Tagged Offset
     * @return FPDU length (52)
     */
    public int readRequest(ByteBuffer dst, int index, int msn, int sinkStag, long sinkTo, int size,
                           int sourceStag, long sourceTo) {
        writeUntagged(dst, index, RdmapOpcode.RDMA_READ_REQUEST, true, 0, RdmapOpcode.RDMA_READ_REQUEST.queueNumber(), msn, 0);
        readRequest.wrap(dst, index + FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH)
            .sinkStag(sinkStag).sinkTaggedOffset(sinkTo).readSize(size)
            .sourceStag(sourceStag).sourceTaggedOffset(sourceTo);
        return finish(dst, index, RdmapOpcode.RDMA_READ_REQUEST.headerLength(), null, 0, 0);
    }

    /**
     * Writes a Terminate (QN 2, MO 0, L = 1) with an RFC 5040 control word.
     *
     * <p>If {@code attachedLength} is positive or {@code m} is set, the 2-octet DDP Segment Length
     * and the attachment (offending DDP header, optionally followed by the 28-octet Read Request
     * header) follow the control word.
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param msn MSN on queue 2 (1 for the only Terminate of a stream)
     * @param layer 4-bit layer
     * @param errorType 4-bit EType
     * @param errorCode 8-bit error code
     * @param m M flag
     * @param d D flag
     * @param r R flag
     * @param ddpSegmentLength DDP Segment Length field
     * @param attached copied headers (may be {@code null} when {@code attachedLength} is 0)
     * @param attachedIndex absolute index of the copied headers
     * @param attachedLength octets of copied headers, at most 46
     * @return FPDU length
     */
    public int terminate(ByteBuffer dst, int index, int msn, int layer, int errorType, int errorCode,
                         boolean m, boolean d, boolean r, int ddpSegmentLength,
                         ByteBuffer attached, int attachedIndex, int attachedLength) {
        writeUntagged(dst, index, RdmapOpcode.TERMINATE, true, 0, RdmapOpcode.TERMINATE.queueNumber(), msn, 0);
        int bodyIndex = index + FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH;
        int bodyLength = TerminateFlyweight.CONTROL_LENGTH;
        boolean withLength = m || attachedLength > 0;
        if (withLength) {
            bodyLength += 2 + attachedLength;
        }
        terminate.wrap(dst, bodyIndex, bodyLength).control(layer, errorType, errorCode, m, d, r);
        if (withLength) {
            terminate.ddpSegmentLength(ddpSegmentLength);
            if (attachedLength > 0) {
                dst.put(terminate.copiedDdpHeaderIndex(), attached, attachedIndex, attachedLength);
            }
        }
        return finish(dst, index, DdpUntaggedHeaderFlyweight.LENGTH + bodyLength, null, 0, 0);
    }

    /**
     * Writes a Terminate for a catalogued error.
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param msn MSN on queue 2
     * @param code the error
     * @param r R flag (an RDMA header is attached)
     * @param ddpSegmentLength DDP Segment Length field
     * @param attached copied headers (may be {@code null} when {@code attachedLength} is 0)
     * @param attachedIndex absolute index of the copied headers
     * @param attachedLength octets of copied headers; M and D are set when positive
     * @return FPDU length
     */
    public int terminate(ByteBuffer dst, int index, int msn, TerminateCode code, boolean r, int ddpSegmentLength,
                         ByteBuffer attached, int attachedIndex, int attachedLength) {
        boolean withHeader = attachedLength > 0;
        return terminate(dst, index, msn, code.layer(), code.errorType(), code.errorCode(),
            withHeader, withHeader, r, ddpSegmentLength, attached, attachedIndex, attachedLength);
    }

    /**
     * Writes the framing that goes before an FPDU's payload: the MPA length field and the DDP/RDMAP header of a
     * data segment (RDMA Write, Read Response or the Send family; the queue number is the opcode's). The payload
     * follows, in {@code dst} right behind the header or in views of its own memory, and then the trailer
     * ({@link #trailer}). Together the three give the same octets as {@link #tagged} or {@link #untagged}.
     *
     * @param dst destination
     * @param index absolute index of the FPDU's first octet
     * @param opcode a data opcode: tagged ones use {@code key} and {@code to}, untagged ones {@code key},
     *     {@code msn} and {@code messageOffset}
     * @param last L
     * @param key tagged: the Data Sink STag; untagged: RsvdULP[8:39] (the STag to invalidate, or 0)
     * @param to tagged: the Data Sink Tagged Offset of the first payload octet
     * @param msn untagged: MSN
     * @param messageOffset untagged: MO
     * @param payloadLength payload octets that will follow
     * @return octets written, {@link RdmapOpcode#fpduHeaderLength()}
     */
    public int header(ByteBuffer dst, int index, RdmapOpcode opcode, boolean last, int key, long to, int msn,
                      int messageOffset, int payloadLength) {
        if (opcode.tagged()) {
            writeTagged(dst, index, opcode, last, key, to);
        } else {
            writeUntagged(dst, index, opcode, last, key, opcode.queueNumber(), msn, messageOffset);
        }
        fpdu.wrap(dst, index).ulpduLength(opcode.headerLength() + payloadLength);
        return opcode.fpduHeaderLength();
    }

    /**
     * Writes the trailer of an FPDU begun with {@link #header}: the zero pad and the CRC (or four zeros without
     * CRC), computed over the length field, the header and the payload. The payload is whatever lies in
     * {@code dst} between the header and {@code index} (payload copied behind the header), followed by the
     * octets from position to limit of {@code count} views (payload gathered from its own memory); the views'
     * positions are left as they were.
     *
     * @param dst destination (the buffer the header was written to)
     * @param headerIndex absolute index of the FPDU's first octet (where {@link #header} wrote)
     * @param index absolute index of the first pad octet in {@code dst}: the end of the header, or of the payload
     *     copied behind it
     * @param views payload views that are not in {@code dst} (may be {@code null} when {@code count} is 0)
     * @param first first view
     * @param count number of views
     * @return octets written: pad plus {@link FpduFlyweight#CRC_LENGTH}
     */
    public int trailer(ByteBuffer dst, int headerIndex, int index, ByteBuffer[] views, int first, int count) {
        int pad = FpduFlyweight.padLength(fpdu.wrap(dst, headerIndex).ulpduLength());
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            Crc32c.update(crc, dst, headerIndex, index - headerIndex);
            for (int i = first; i < first + count; i++) {
                ByteBuffer b = views[i];
                int p = b.position();
                crc.update(b);
                b.position(p);
            }
            for (int i = 0; i < pad; i++) {
                crc.update(0);
            }
            value = (int) crc.getValue();
        }
        for (int i = 0; i < pad; i++) {
            dst.put(index + i, (byte) 0);
        }
        NetworkOrder.putLeI32(dst, index + pad, value);
        return pad + FpduFlyweight.CRC_LENGTH;
    }

    private void writeTagged(ByteBuffer dst, int index, RdmapOpcode opcode, boolean last, int stag, long to) {
        tagged.wrap(dst, index + FpduFlyweight.ULPDU_OFFSET);
        tagged.control(true, last).opcode(opcode);
        tagged.stag(stag).taggedOffset(to);
    }

    private void writeUntagged(ByteBuffer dst, int index, RdmapOpcode opcode, boolean last, int rsvdUlp,
                               int queueNumber, int msn, int messageOffset) {
        untagged.wrap(dst, index + FpduFlyweight.ULPDU_OFFSET);
        untagged.control(false, last).opcode(opcode);
        untagged.rsvdUlp(rsvdUlp).queueNumber(queueNumber).msn(msn).messageOffset(messageOffset);
    }

    private int finish(ByteBuffer dst, int index, int headerLength, ByteBuffer payload, int payloadIndex, int payloadLength) {
        if (payloadLength > 0) {
            dst.put(index + FpduFlyweight.ULPDU_OFFSET + headerLength, payload, payloadIndex, payloadLength);
        }
        fpdu.wrap(dst, index).ulpduLength(headerLength + payloadLength);
        return fpdu.seal(crcEnabled, crc);
    }
}
