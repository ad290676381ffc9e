package io.jndk.iwarp.codec;

/**
 * The RDMAP control octet (RFC 5040 section 4.2), carried in DDP's RsvdULP[0:7].
 *
 * <pre>
 *   0 1 2 3 4 5 6 7
 *  +-+-+-+-+-+-+-+-+
 *  |RV |Rsv|OpCode |   RV 0xc0 (must be 01), Rsv 0x30 (0), OpCode 0x0f
 *  +-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>An octet is too small for a flyweight; these static functions encode and decode it.
 */
public final class RdmapControl {

    /** Mask of the RDMAP version. */
    public static final int VERSION_MASK = 0xC0;
    /** Shift of the RDMAP version. */
    public static final int VERSION_SHIFT = 6;
    /** Mask of the reserved bits. */
    public static final int RESERVED_MASK = 0x30;
    /** Mask of the opcode. */
    public static final int OPCODE_MASK = 0x0F;
    /** The only RDMAP version: 1. */
    public static final int VERSION = 1;

    private RdmapControl() {
    }

    /**
     * @param octet the control octet
     * @return RV
     */
    public static int version(int octet) {
        return (octet & VERSION_MASK) >>> VERSION_SHIFT;
    }

    /**
     * @param octet the control octet
     * @return the 4-bit opcode, possibly one {@link RdmapOpcode} does not know
     */
    public static int opcode(int octet) {
        return octet & OPCODE_MASK;
    }

    /**
     * @param octet the control octet
     * @return the two reserved bits
     */
    public static int reserved(int octet) {
        return (octet & RESERVED_MASK) >>> 4;
    }

    /**
     * @param opcode the opcode
     * @return the control octet with RV = 1 and reserved bits 0
     */
    public static int encode(RdmapOpcode opcode) {
        return (VERSION << VERSION_SHIFT) | opcode.code();
    }
}
