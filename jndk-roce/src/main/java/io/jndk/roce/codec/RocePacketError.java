package io.jndk.roce.codec;

/**
 * Why {@link RocePacketDecoder} rejected a UDP payload. Errors are values, never exceptions; the checks run in the
 * order of the constants below, so a packet reports the first of its faults. Receivers drop a packet with any of
 * them silently, as rxe does (IBTA C9-5 and the header validation of section 9.6).
 */
public enum RocePacketError {
    /** The packet is well formed. */
    NONE,
    /** The input ends inside the BTH, an extension header or the ICRC ({@link RocePacketDecoder#truncatedIn()} says which). */
    TRUNCATED,
    /** The opcode is reserved or belongs to a transport this codec does not speak (UC, RD, XRC, CNP). */
    UNKNOWN_OPCODE,
    /** The BTH's TVer is not 0. */
    BAD_TVER,
    /** The packet's length is not a multiple of four octets (IBTA 9.2.4: payload plus pad is). */
    MISALIGNED_LENGTH,
    /** An opcode without payload has octets between its headers and the ICRC. */
    UNEXPECTED_PAYLOAD,
    /**
     * The pad count does not fit the packet: non-zero without payload or on a First/Middle packet (whose payload is
     * exactly one path MTU), or larger than the padded payload.
     */
    BAD_PAD
}
