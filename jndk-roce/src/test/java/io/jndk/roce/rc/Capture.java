package io.jndk.roce.rc;

import io.jndk.roce.codec.AethFlyweight;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A {@link PacketSink} that keeps a decoded copy of every packet, and builders of packets for unit tests. */
final class Capture implements PacketSink {
    final List<Packet> packets = new ArrayList<>();

    @Override
    public void send(ByteBuffer buffer, int offset, int length) {
        packets.add(new Packet(buffer, offset, length));
    }

    List<Packet> take() {
        List<Packet> copy = new ArrayList<>(packets);
        packets.clear();
        return copy;
    }

    /** @return an Acknowledge packet with the given syndrome */
    static ByteBuffer ack(int psn, int syndrome, int msn) {
        ByteBuffer b = ByteBuffer.allocate(64);
        RocePacketEncoder e = new RocePacketEncoder();
        e.begin(b, 0, RoceOpcode.ACKNOWLEDGE);
        e.bth().psn(psn);
        e.aeth().syndrome(syndrome).msn(msn);
        return b.limit(e.finish());
    }

    static ByteBuffer ack(int psn) {
        return ack(psn, AethFlyweight.ackSyndrome(AethFlyweight.INVALID_CREDIT_COUNT), 0);
    }

    static ByteBuffer nak(int psn, AethFlyweight.NakCode code) {
        return ack(psn, AethFlyweight.nakSyndrome(code), 0);
    }

    static ByteBuffer rnrNak(int psn, int timerCode) {
        return ack(psn, AethFlyweight.rnrNakSyndrome(timerCode), 0);
    }

    /**
     * Builds a request or READ response packet.
     *
     * @param opcode the opcode
     * @param psn the PSN
     * @param ackReq the AckReq bit
     * @param payload the payload (may be empty)
     * @param va RETH VA (when the opcode has one)
     * @param rkey RETH R_Key or IETH R_Key
     * @param dmaLength RETH length
     */
    static ByteBuffer packet(RoceOpcode opcode, int psn, boolean ackReq, byte[] payload, long va, int rkey, int dmaLength) {
        ByteBuffer b = ByteBuffer.allocate(payload.length + 96);
        RocePacketEncoder e = new RocePacketEncoder();
        e.begin(b, 0, opcode);
        e.bth().psn(psn).ackRequest(ackReq);
        if (opcode.has(io.jndk.roce.codec.ExtensionHeader.RETH)) {
            e.reth().virtualAddress(va).rkey(rkey).dmaLength(dmaLength);
        }
        if (opcode.has(io.jndk.roce.codec.ExtensionHeader.IETH)) {
            e.ieth().rkey(rkey);
        }
        if (opcode.has(io.jndk.roce.codec.ExtensionHeader.AETH)) {
            e.aeth().syndrome(AethFlyweight.ackSyndrome(AethFlyweight.INVALID_CREDIT_COUNT));
        }
        if (opcode.hasPayload()) {
            e.payload(ByteBuffer.wrap(payload), 0, payload.length);
        }
        return b.limit(e.finish());
    }
}
