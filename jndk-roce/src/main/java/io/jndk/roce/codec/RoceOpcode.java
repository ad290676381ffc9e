package io.jndk.roce.codec;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The BTH opcodes of the Reliable Connected and Unreliable Datagram transports (IBTA vol. 1 section 9.2.1, table
 * 38) with, for each, the extension headers that follow the BTH in wire order, whether a payload follows them, the
 * packet's place in its message and whether it is a request or a response. The upper three bits of the opcode name
 * the transport ({@code 000} RC, {@code 011} UD), the lower five the operation.
 *
 * <p>Decoding looks an octet up with {@link #of(int)}, a table of 256 entries: {@code null} for every opcode that
 * is reserved, or belongs to a transport (UC, RD, XRC, CNP) this codec does not speak.
 */
public enum RoceOpcode {
    /** RC SEND First. */
    SEND_FIRST(0x00, Position.FIRST, false, true),
    /** RC SEND Middle. */
    SEND_MIDDLE(0x01, Position.MIDDLE, false, true),
    /** RC SEND Last. */
    SEND_LAST(0x02, Position.LAST, false, true),
    /** RC SEND Last with Immediate. */
    SEND_LAST_WITH_IMMEDIATE(0x03, Position.LAST, false, true, ExtensionHeader.IMMDT),
    /** RC SEND Only. */
    SEND_ONLY(0x04, Position.ONLY, false, true),
    /** RC SEND Only with Immediate. */
    SEND_ONLY_WITH_IMMEDIATE(0x05, Position.ONLY, false, true, ExtensionHeader.IMMDT),
    /** RC RDMA WRITE First. */
    RDMA_WRITE_FIRST(0x06, Position.FIRST, false, true, ExtensionHeader.RETH),
    /** RC RDMA WRITE Middle. */
    RDMA_WRITE_MIDDLE(0x07, Position.MIDDLE, false, true),
    /** RC RDMA WRITE Last. */
    RDMA_WRITE_LAST(0x08, Position.LAST, false, true),
    /** RC RDMA WRITE Last with Immediate. */
    RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, Position.LAST, false, true, ExtensionHeader.IMMDT),
    /** RC RDMA WRITE Only. */
    RDMA_WRITE_ONLY(0x0A, Position.ONLY, false, true, ExtensionHeader.RETH),
    /** RC RDMA WRITE Only with Immediate. */
    RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, Position.ONLY, false, true, ExtensionHeader.RETH, ExtensionHeader.IMMDT),
    /** RC RDMA READ Request. */
    RDMA_READ_REQUEST(0x0C, Position.ONLY, false, false, ExtensionHeader.RETH),
    /** RC RDMA READ Response First. */
    RDMA_READ_RESPONSE_FIRST(0x0D, Position.FIRST, true, true, ExtensionHeader.AETH),
    /** RC RDMA READ Response Middle. */
    RDMA_READ_RESPONSE_MIDDLE(0x0E, Position.MIDDLE, true, true),
    /** RC RDMA READ Response Last. */
    RDMA_READ_RESPONSE_LAST(0x0F, Position.LAST, true, true, ExtensionHeader.AETH),
    /** RC RDMA READ Response Only. */
    RDMA_READ_RESPONSE_ONLY(0x10, Position.ONLY, true, true, ExtensionHeader.AETH),
    /** RC Acknowledge. */
    ACKNOWLEDGE(0x11, Position.ONLY, true, false, ExtensionHeader.AETH),
    /** RC ATOMIC Acknowledge. */
    ATOMIC_ACKNOWLEDGE(0x12, Position.ONLY, true, false, ExtensionHeader.AETH, ExtensionHeader.ATOMIC_ACK_ETH),
    /** RC CmpSwap. */
    COMPARE_SWAP(0x13, Position.ONLY, false, false, ExtensionHeader.ATOMIC_ETH),
    /** RC FetchAdd. */
    FETCH_ADD(0x14, Position.ONLY, false, false, ExtensionHeader.ATOMIC_ETH),
    /** RC SEND Last with Invalidate. */
    SEND_LAST_WITH_INVALIDATE(0x16, Position.LAST, false, true, ExtensionHeader.IETH),
    /** RC SEND Only with Invalidate. */
    SEND_ONLY_WITH_INVALIDATE(0x17, Position.ONLY, false, true, ExtensionHeader.IETH),
    /** UD SEND Only. */
    UD_SEND_ONLY(0x64, Position.ONLY, false, true, ExtensionHeader.DETH),
    /** UD SEND Only with Immediate. */
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, Position.ONLY, false, true, ExtensionHeader.DETH, ExtensionHeader.IMMDT);

    /** Where a packet stands in its message. */
    public enum Position {
        /** First of several packets: exactly one path MTU of payload, no pad. */
        FIRST,
        /** Neither first nor last: exactly one path MTU of payload, no pad. */
        MIDDLE,
        /** Last of several packets. */
        LAST,
        /** The whole message in one packet (and every packet without payload). */
        ONLY
    }

    /** The transport service an opcode belongs to (the upper three opcode bits). */
    public enum Transport {
        /** Reliable Connected, {@code 000}. */
        RC,
        /** Unreliable Datagram, {@code 011}. */
        UD
    }

    private static final RoceOpcode[] TABLE = new RoceOpcode[256];

    static {
        for (RoceOpcode op : values()) {
            TABLE[op.code] = op;
        }
    }

    private final int code;
    private final Position position;
    private final boolean response;
    private final boolean payload;
    private final List<ExtensionHeader> headers;
    private final ExtensionHeader[] headerArray;
    private final Set<ExtensionHeader> headerSet;
    private final int[] headerOffsets = new int[ExtensionHeader.values().length];
    private final int headersLength;

    RoceOpcode(int code, Position position, boolean response, boolean payload, ExtensionHeader... headers) {
        this.code = code;
        this.position = position;
        this.response = response;
        this.payload = payload;
        this.headers = List.of(headers);
        this.headerArray = headers;
        this.headerSet = headers.length == 0 ? EnumSet.noneOf(ExtensionHeader.class) : EnumSet.copyOf(Arrays.asList(headers));
        Arrays.fill(headerOffsets, -1);
        int at = BthFlyweight.LENGTH;
        for (ExtensionHeader h : headers) {
            headerOffsets[h.ordinal()] = at;
            at += h.length();
        }
        this.headersLength = at;
    }

    /**
     * @param code an opcode octet (only the low 8 bits count)
     * @return its constant, or {@code null} when this codec does not know it
     */
    public static RoceOpcode of(int code) {
        return TABLE[code & 0xFF];
    }

    /** @return the opcode octet */
    public int code() {
        return code;
    }

    /** @return the transport service */
    public Transport transport() {
        return (code >>> 5) == 3 ? Transport.UD : Transport.RC;
    }

    /** @return where the packet stands in its message */
    public Position position() {
        return position;
    }

    /** @return true for responder-to-requester packets (acknowledges and READ responses) */
    public boolean isResponse() {
        return response;
    }

    /** @return true for requester-to-responder packets */
    public boolean isRequest() {
        return !response;
    }

    /** @return true when a payload (possibly empty on Last/Only packets) follows the headers */
    public boolean hasPayload() {
        return payload;
    }

    /** @return the extension headers after the BTH, in wire order */
    public List<ExtensionHeader> headers() {
        return headers;
    }

    /** @return how many extension headers follow the BTH */
    public int headerCount() {
        return headerArray.length;
    }

    /**
     * @param index 0 for the extension header right after the BTH, and so on
     * @return that header
     */
    public ExtensionHeader header(int index) {
        return headerArray[index];
    }

    /**
     * @param header an extension header
     * @return true when packets of this opcode carry it
     */
    public boolean has(ExtensionHeader header) {
        return headerSet.contains(header);
    }

    /**
     * @param header an extension header
     * @return its offset from the start of the BTH, or -1 when this opcode does not carry it
     */
    public int headerOffset(ExtensionHeader header) {
        return headerOffsets[header.ordinal()];
    }

    /** @return the length of the BTH plus the extension headers, that is the payload's offset from the BTH */
    public int headersLength() {
        return headersLength;
    }
}
