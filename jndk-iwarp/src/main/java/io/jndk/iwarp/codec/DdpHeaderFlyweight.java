package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the two octets every DDP header starts with (RFC 5041 section 4): the DDP control
 * octet and RsvdULP[0:7], which RDMAP uses as its control octet ({@link RdmapControl}).
 *
 * <pre>
 *   0                   1
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |T|L| Rsvd  |DV |RV |Rsv|OpCode |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>T = tagged ({@code 0x80}), L = last segment ({@code 0x40}), Rsvd ({@code 0x3c}, 0),
 * DV = DDP version ({@code 0x03}, must be 1). Offsets are relative to the DDP header, i.e. FPDU
 * offset 2. Subclasses add the tagged and untagged fields.
 */
public class DdpHeaderFlyweight {

    /** Offset of the DDP control octet. */
    public static final int CONTROL_OFFSET = 0;
    /** Offset of RsvdULP[0:7], the RDMAP control octet. */
    public static final int RDMAP_CONTROL_OFFSET = 1;
    /** Length of the common part. */
    public static final int COMMON_LENGTH = 2;
    /** T bit. */
    public static final int FLAG_TAGGED = 0x80;
    /** L bit. */
    public static final int FLAG_LAST = 0x40;
    /** Reserved bits of the DDP control octet. */
    public static final int RESERVED_MASK = 0x3C;
    /** DV field mask. */
    public static final int VERSION_MASK = 0x03;
    /** The only DDP version: 1. */
    public static final int VERSION = 1;

    /** The wrapped buffer. */
    protected ByteBuffer buffer;
    /** Index of the DDP control octet. */
    protected int offset;

    /** Creates an unwrapped flyweight. */
    public DdpHeaderFlyweight() {
    }

    /**
     * @param buffer the buffer
     * @param offset index of the DDP control octet (FPDU start + 2)
     * @return this
     */
    public DdpHeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the DDP control octet */
    public int offset() {
        return offset;
    }

    /** @return the DDP control octet */
    public int control() {
        return NetworkOrder.u8(buffer, offset + CONTROL_OFFSET);
    }

    /**
     * @param control the DDP control octet
     * @return this
     */
    public DdpHeaderFlyweight control(int control) {
        NetworkOrder.putU8(buffer, offset + CONTROL_OFFSET, control);
        return this;
    }

    /**
     * Writes the DDP control octet with DV = 1 and reserved bits 0.
     *
     * @param tagged T
     * @param last L
     * @return this
     */
    public DdpHeaderFlyweight control(boolean tagged, boolean last) {
        return control((tagged ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | VERSION);
    }

    /** @return T */
    public boolean tagged() {
        return (control() & FLAG_TAGGED) != 0;
    }

    /** @return L */
    public boolean last() {
        return (control() & FLAG_LAST) != 0;
    }

    /** @return DV, must be 1 */
    public int ddpVersion() {
        return control() & VERSION_MASK;
    }

    /** @return the reserved bits of the DDP control octet, shifted down */
    public int ddpReserved() {
        return (control() & RESERVED_MASK) >>> 2;
    }

    /** @return the RDMAP control octet (RsvdULP[0:7]) */
    public int rdmapControl() {
        return NetworkOrder.u8(buffer, offset + RDMAP_CONTROL_OFFSET);
    }

    /**
     * @param octet the RDMAP control octet
     * @return this
     */
    public DdpHeaderFlyweight rdmapControl(int octet) {
        NetworkOrder.putU8(buffer, offset + RDMAP_CONTROL_OFFSET, octet);
        return this;
    }

    /**
     * @param opcode writes RV = 1 and this opcode
     * @return this
     */
    public DdpHeaderFlyweight opcode(RdmapOpcode opcode) {
        return rdmapControl(opcode.controlOctet());
    }

    /** @return RV, must be 1 */
    public int rdmapVersion() {
        return RdmapControl.version(rdmapControl());
    }

    /** @return the raw 4-bit opcode */
    public int opcodeCode() {
        return RdmapControl.opcode(rdmapControl());
    }

    /** @return the opcode, or {@code null} if the raw value is unknown */
    public RdmapOpcode opcode() {
        return RdmapOpcode.fromCode(opcodeCode());
    }
}
