package io.jndk.iwarp.codec;

/**
 * One FPDU as the decoder delivered it, in comparable form.
 *
 * @param header header octets including the MPA length, hex
 * @param payload payload octets, hex
 * @param opcode the opcode
 * @param verdict CRC verdict
 * @param payloadPieces how many onPayload calls delivered the payload
 */
record DecodedFrame(String header, String payload, RdmapOpcode opcode, CrcVerdict verdict, int payloadPieces) {

    /** @return the same frame without the piece count (which depends on the split) */
    DecodedFrame content() {
        return new DecodedFrame(header, payload, opcode, verdict, 0);
    }
}
