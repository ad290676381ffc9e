package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Validates one RoCEv2 UDP payload (BTH first, ICRC last) and splits it into its headers, payload, pad and ICRC.
 * The decoder is also the view of the last packet it accepted: one instance per receive path, reused for every
 * packet, allocates nothing.
 *
 * <pre>
 *  | BTH (12) | extension headers (per opcode) | payload | pad (0-3) | ICRC (4) |
 * </pre>
 *
 * <p>Checks, in this order (the first failure is reported, see {@link RocePacketError}): the BTH fits; the opcode
 * is one of {@link RoceOpcode}; TVer is 0; the opcode's extension headers and the ICRC fit; the length is a multiple
 * of four; an opcode without payload has nothing between its headers and the ICRC; the pad count is 0 where there
 * is no payload or the packet is a First/Middle one, and at most the padded payload's length otherwise. It does not
 * check the ICRC itself, which covers the IP and UDP headers the decoder does not see: {@link Icrc} does, from
 * {@link #packetOffset()}, {@link #packetLength()} and {@link #icrc()}. Nor does it check anything that needs
 * connection state (QPN, PSN, P_Key, path MTU).
 *
 * <p>{@link #decode} never throws and reads no octet outside {@code [offset, offset + length)} and the buffer's
 * limit. The getters describe the last call and are meaningful after {@link RocePacketError#NONE}; the flyweight
 * of a header the opcode does not carry is {@code null}.
 */
public final class RocePacketDecoder {

    /** Length of the ICRC trailer. */
    public static final int ICRC_LENGTH = Icrc.LENGTH;
    /** The shortest valid packet: a BTH and the ICRC (a zero-length SEND Only). */
    public static final int MIN_LENGTH = BthFlyweight.LENGTH + ICRC_LENGTH;

    /** The part of a packet in which a {@link RocePacketError#TRUNCATED} input ended. */
    public enum Section {
        /** The base transport header. */
        BTH,
        /** The datagram extended transport header. */
        DETH,
        /** The RDMA extended transport header. */
        RETH,
        /** The atomic extended transport header. */
        ATOMIC_ETH,
        /** The ACK extended transport header. */
        AETH,
        /** The atomic acknowledge extended transport header. */
        ATOMIC_ACK_ETH,
        /** The immediate data. */
        IMMDT,
        /** The invalidate extended transport header. */
        IETH,
        /** The invariant CRC. */
        ICRC;

        private static final Section[] VALUES = values();

        /**
         * @param header an extension header
         * @return its section
         */
        public static Section of(ExtensionHeader header) {
            return VALUES[header.ordinal() + 1];
        }
    }

    private final TransportHeaders headers = new TransportHeaders();

    private ByteBuffer buffer;
    private int packetOffset;
    private int packetLength;
    private RocePacketError error = RocePacketError.TRUNCATED;
    private Section truncatedIn = Section.BTH;
    private RoceOpcode opcode;
    private int payloadOffset;
    private int payloadLength;
    private int padCount;
    private long headerMask;

    /** Creates a decoder; it holds no packet until {@link #decode} is called. */
    public RocePacketDecoder() {
    }

    /**
     * Decodes {@code length} octets from {@code offset}: one UDP payload, BTH to ICRC. Octets past the buffer's
     * limit, or a negative offset or length, count as missing.
     *
     * @param buffer the buffer
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length (UDP length minus 8)
     * @return {@link RocePacketError#NONE} or the first fault found
     */
    public RocePacketError decode(ByteBuffer buffer, int offset, int length) {
        this.buffer = buffer;
        this.opcode = null;
        this.headerMask = 0;
        this.truncatedIn = null;
        this.payloadOffset = 0;
        this.payloadLength = 0;
        this.padCount = 0;
        int available = 0;
        if (buffer != null && offset >= 0 && offset <= buffer.limit() && length > 0) {
            available = (int) Math.min(length, (long) buffer.limit() - offset);
        }
        this.packetOffset = offset;
        this.packetLength = available;
        return error = check(offset, available);
    }

    private RocePacketError check(int offset, int length) {
        if (length < BthFlyweight.LENGTH) {
            truncatedIn = Section.BTH;
            return RocePacketError.TRUNCATED;
        }
        BthFlyweight bth = headers.bth.wrap(buffer, offset);
        RoceOpcode op = RoceOpcode.of(bth.opcode());
        if (op == null) {
            return RocePacketError.UNKNOWN_OPCODE;
        }
        opcode = op;
        if (bth.transportVersion() != BthFlyweight.TVER) {
            return RocePacketError.BAD_TVER;
        }
        for (int i = 0; i < op.headerCount(); i++) {
            ExtensionHeader h = op.header(i);
            int at = op.headerOffset(h);
            if (length < at + h.length()) {
                truncatedIn = Section.of(h);
                return RocePacketError.TRUNCATED;
            }
        }
        int headersLength = op.headersLength();
        if (length < headersLength + ICRC_LENGTH) {
            truncatedIn = Section.ICRC;
            return RocePacketError.TRUNCATED;
        }
        if ((length & 3) != 0) {
            return RocePacketError.MISALIGNED_LENGTH;
        }
        int padded = length - headersLength - ICRC_LENGTH;
        int pad = bth.padCount();
        if (!op.hasPayload()) {
            if (padded != 0) {
                return RocePacketError.UNEXPECTED_PAYLOAD;
            }
            if (pad != 0) {
                return RocePacketError.BAD_PAD;
            }
        } else if (pad != 0 && (pad > padded || op.position() == RoceOpcode.Position.FIRST
            || op.position() == RoceOpcode.Position.MIDDLE)) {
            return RocePacketError.BAD_PAD;
        }
        headers.wrap(buffer, offset, op);
        for (int i = 0; i < op.headerCount(); i++) {
            headerMask |= 1L << op.header(i).ordinal();
        }
        padCount = pad;
        payloadOffset = offset + headersLength;
        payloadLength = padded - pad;
        return RocePacketError.NONE;
    }

    private <T extends HeaderFlyweight> T present(ExtensionHeader h, T flyweight) {
        return (headerMask & (1L << h.ordinal())) != 0 ? flyweight : null;
    }

    /** @return the result of the last {@link #decode} */
    public RocePacketError error() {
        return error;
    }

    /** @return after {@link RocePacketError#TRUNCATED}, the part in which the input ended; otherwise {@code null} */
    public Section truncatedIn() {
        return truncatedIn;
    }

    /** @return the opcode, or {@code null} when it was unknown or the BTH did not fit */
    public RoceOpcode opcode() {
        return opcode;
    }

    /** @return the BTH (wrapped whenever the BTH fitted) */
    public BthFlyweight bth() {
        return headers.bth;
    }

    /** @return the DETH, or {@code null} */
    public DethFlyweight deth() {
        return present(ExtensionHeader.DETH, headers.deth);
    }

    /** @return the RETH, or {@code null} */
    public RethFlyweight reth() {
        return present(ExtensionHeader.RETH, headers.reth);
    }

    /** @return the AtomicETH, or {@code null} */
    public AtomicEthFlyweight atomicEth() {
        return present(ExtensionHeader.ATOMIC_ETH, headers.atomicEth);
    }

    /** @return the AETH, or {@code null} */
    public AethFlyweight aeth() {
        return present(ExtensionHeader.AETH, headers.aeth);
    }

    /** @return the AtomicAckETH, or {@code null} */
    public AtomicAckEthFlyweight atomicAckEth() {
        return present(ExtensionHeader.ATOMIC_ACK_ETH, headers.atomicAckEth);
    }

    /** @return the ImmDt, or {@code null} */
    public ImmDtFlyweight immDt() {
        return present(ExtensionHeader.IMMDT, headers.immDt);
    }

    /** @return the IETH, or {@code null} */
    public IethFlyweight ieth() {
        return present(ExtensionHeader.IETH, headers.ieth);
    }

    /** @return the decoded buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the BTH's first octet */
    public int packetOffset() {
        return packetOffset;
    }

    /** @return the octets decoded: the UDP payload's length, or less where the buffer ended first */
    public int packetLength() {
        return packetLength;
    }

    /** @return index of the payload's first octet */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** @return the payload's length, pad excluded */
    public int payloadLength() {
        return payloadLength;
    }

    /** @return the BTH's pad count */
    public int padCount() {
        return padCount;
    }

    /** @return index of the ICRC's first octet */
    public int icrcOffset() {
        return packetOffset + packetLength - ICRC_LENGTH;
    }

    /** @return the ICRC as carried (see {@link Icrc#read}) */
    public int icrc() {
        return Icrc.read(buffer, packetOffset, packetLength);
    }
}
