package io.jndk.roce.rc;

import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One captured packet (a copy of the octets a {@link PacketSink} was handed) with its decoded fields, for
 * assertions.
 */
final class Packet {
    final byte[] bytes;
    final RoceOpcode opcode;
    final int psn;
    final boolean ackRequest;
    final int payloadLength;
    final byte[] payload;
    final long rethVa;
    final int rethRkey;
    final int rethLength;
    final int syndrome;
    final int msn;
    final int iethRkey;
    final int destQp;

    Packet(ByteBuffer buffer, int offset, int length) {
        bytes = new byte[length];
        buffer.get(offset, bytes);
        RocePacketDecoder d = new RocePacketDecoder();
        RocePacketError e = d.decode(ByteBuffer.wrap(bytes), 0, length);
        if (e != RocePacketError.NONE) {
            throw new AssertionError("engine built a packet that does not decode: " + e);
        }
        opcode = d.opcode();
        psn = d.bth().psn();
        ackRequest = d.bth().ackRequest();
        destQp = d.bth().destQp();
        payloadLength = d.payloadLength();
        payload = Arrays.copyOfRange(bytes, d.payloadOffset(), d.payloadOffset() + payloadLength);
        rethVa = d.reth() == null ? -1 : d.reth().virtualAddress();
        rethRkey = d.reth() == null ? -1 : d.reth().rkey();
        rethLength = d.reth() == null ? -1 : d.reth().dmaLength();
        syndrome = d.aeth() == null ? -1 : d.aeth().syndrome();
        msn = d.aeth() == null ? -1 : d.aeth().msn();
        iethRkey = d.ieth() == null ? -1 : d.ieth().rkey();
    }

    ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes);
    }

    @Override
    public String toString() {
        return opcode + " psn=0x" + Integer.toHexString(psn) + (ackRequest ? " A" : "") + " len=" + payloadLength
            + (syndrome >= 0 ? " syn=0x" + Integer.toHexString(syndrome) + " msn=" + msn : "");
    }
}
