package io.jndk.roce.rc;

import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;

/** The first check of every inbound packet, shared by the requester and the responder. */
final class Inbound {

    private Inbound() {
    }

    /**
     * @param decoder the engine's decoder, left holding the packet
     * @param buffer the buffer
     * @param offset index of the BTH
     * @param length the UDP payload's length
     * @param responses true for the requester (wants responses), false for the responder (wants requests)
     * @return true when the packet decodes and is an RC packet of the wanted direction
     */
    static boolean accepts(RocePacketDecoder decoder, ByteBuffer buffer, int offset, int length, boolean responses) {
        if (decoder.decode(buffer, offset, length) != RocePacketError.NONE) {
            return false;
        }
        RoceOpcode op = decoder.opcode();
        return op.transport() == RoceOpcode.Transport.RC && op.isResponse() == responses;
    }
}
