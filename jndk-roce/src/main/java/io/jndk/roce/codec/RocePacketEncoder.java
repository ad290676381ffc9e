package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Builds one RoCEv2 UDP payload into a buffer: BTH, the opcode's extension headers, payload, pad and ICRC. One
 * instance per send path, reused for every packet; nothing is allocated.
 *
 * <pre>
 *  encoder.begin(buffer, offset, RoceOpcode.RDMA_WRITE_ONLY);
 *  encoder.bth().destQp(qpn).psn(psn).ackRequest(true);
 *  encoder.reth().virtualAddress(va).rkey(rkey).dmaLength(n);
 *  encoder.payload(data, 0, n);                   // copies, pads to four octets, sets PadCnt
 *  int length = encoder.finish();                 // ICRC field still zero
 *  Icrc.write(buffer, offset, length, icrc.ipv4(src, dst, ipId, Icrc.IPV4_DONT_FRAGMENT, sport, 4791, buffer, offset, length));
 * </pre>
 *
 * <p>{@link #begin} zeroes the BTH and the headers and sets the opcode, TVer 0 and the default P_Key 0xFFFF, so a
 * caller sets only what differs. Misuse (payload on an opcode without one, too small a buffer) is a programming error
 * and throws.
 */
public final class RocePacketEncoder {

    private final TransportHeaders headers = new TransportHeaders();

    private ByteBuffer buffer;
    private int offset;
    private RoceOpcode opcode;
    private int payloadLength;

    /** Creates an encoder. */
    public RocePacketEncoder() {
    }

    /**
     * Starts a packet: zeroes the BTH and the opcode's extension headers, sets opcode, TVer 0 and P_Key 0xFFFF.
     *
     * @param buffer the destination
     * @param offset index of the BTH's first octet
     * @param opcode the opcode
     * @return this
     * @throws IllegalArgumentException if the headers and the ICRC do not fit before the buffer's limit
     */
    public RocePacketEncoder begin(ByteBuffer buffer, int offset, RoceOpcode opcode) {
        if (offset < 0 || (long) offset + opcode.headersLength() + Icrc.LENGTH > buffer.limit()) {
            throw new IllegalArgumentException("no room for " + opcode + " at " + offset + " (limit " + buffer.limit() + ")");
        }
        this.buffer = buffer;
        this.offset = offset;
        this.opcode = opcode;
        this.payloadLength = 0;
        for (int i = 0; i < opcode.headersLength(); i++) {
            buffer.put(offset + i, (byte) 0);
        }
        headers.wrap(buffer, offset, opcode);
        headers.bth.opcode(opcode.code()).pkey(BthFlyweight.DEFAULT_PKEY);
        return this;
    }

    private <T extends HeaderFlyweight> T require(ExtensionHeader h, T flyweight) {
        if (opcode == null || !opcode.has(h)) {
            throw new IllegalStateException(opcode + " carries no " + h);
        }
        return flyweight;
    }

    /** @return the opcode of the packet being built */
    public RoceOpcode opcode() {
        return opcode;
    }

    /** @return the BTH */
    public BthFlyweight bth() {
        return headers.bth;
    }

    /** @return the DETH (the opcode must carry one) */
    public DethFlyweight deth() {
        return require(ExtensionHeader.DETH, headers.deth);
    }

    /** @return the RETH (the opcode must carry one) */
    public RethFlyweight reth() {
        return require(ExtensionHeader.RETH, headers.reth);
    }

    /** @return the AtomicETH (the opcode must carry one) */
    public AtomicEthFlyweight atomicEth() {
        return require(ExtensionHeader.ATOMIC_ETH, headers.atomicEth);
    }

    /** @return the AETH (the opcode must carry one) */
    public AethFlyweight aeth() {
        return require(ExtensionHeader.AETH, headers.aeth);
    }

    /** @return the AtomicAckETH (the opcode must carry one) */
    public AtomicAckEthFlyweight atomicAckEth() {
        return require(ExtensionHeader.ATOMIC_ACK_ETH, headers.atomicAckEth);
    }

    /** @return the ImmDt (the opcode must carry one) */
    public ImmDtFlyweight immDt() {
        return require(ExtensionHeader.IMMDT, headers.immDt);
    }

    /** @return the IETH (the opcode must carry one) */
    public IethFlyweight ieth() {
        return require(ExtensionHeader.IETH, headers.ieth);
    }

    /** @return index of the payload's first octet, for a caller that writes the payload in place */
    public int payloadOffset() {
        return offset + opcode.headersLength();
    }

    /**
     * Copies the payload after the headers; see {@link #payloadLength(int)}.
     *
     * @param src the payload's buffer
     * @param srcOffset index of its first octet
     * @param length its length
     * @return this
     */
    public RocePacketEncoder payload(ByteBuffer src, int srcOffset, int length) {
        payloadLength(length);
        buffer.put(payloadOffset(), src, srcOffset, length);
        return this;
    }

    /**
     * Declares a payload of {@code length} octets already written at {@link #payloadOffset()} (or about to be),
     * writes the pad octets (zeros) after it and sets the BTH's pad count.
     *
     * @param length the payload's length
     * @return this
     * @throws IllegalArgumentException if the opcode carries no payload, or the payload, pad and ICRC do not fit
     */
    public RocePacketEncoder payloadLength(int length) {
        if (length < 0 || (length > 0 && !opcode.hasPayload())) {
            throw new IllegalArgumentException(opcode + " cannot carry a payload of " + length + " octets");
        }
        int pad = padFor(length);
        if ((long) payloadOffset() + length + pad + Icrc.LENGTH > buffer.limit()) {
            throw new IllegalArgumentException("no room for " + length + " payload octets (limit " + buffer.limit() + ")");
        }
        payloadLength = length;
        for (int i = 0; i < pad; i++) {
            buffer.put(payloadOffset() + length + i, (byte) 0);
        }
        headers.bth.padCount(pad);
        return this;
    }

    /**
     * Ends the packet with a zero ICRC field, to be filled by {@link Icrc#write} once the IP and UDP headers are known.
     *
     * @return the UDP payload's length, ICRC included
     */
    public int finish() {
        return finish(0);
    }

    /**
     * Ends the packet with the given ICRC.
     *
     * @param icrc the ICRC value, stored little-endian
     * @return the UDP payload's length, ICRC included
     */
    public int finish(int icrc) {
        int length = packetLength();
        Icrc.write(buffer, offset, length, icrc);
        return length;
    }

    /** @return the UDP payload's length so far, ICRC included */
    public int packetLength() {
        return opcode.headersLength() + payloadLength + padFor(payloadLength) + Icrc.LENGTH;
    }

    /**
     * @param payloadLength a payload's length
     * @return the pad octets that bring it to a multiple of four
     */
    public static int padFor(int payloadLength) {
        return -payloadLength & 3;
    }
}
