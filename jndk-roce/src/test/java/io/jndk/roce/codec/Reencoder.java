package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/** Re-encodes a decoded packet field by field through {@link RocePacketEncoder}, for round-trip checks. */
public final class Reencoder {

    private Reencoder() {
    }

    /**
     * @param d a decoder whose last result was {@code NONE}
     * @param e the encoder to use
     * @param out the destination
     * @param offset where the BTH goes
     * @return the packet's length, the ICRC copied from the decoded packet
     */
    public static int reencode(RocePacketDecoder d, RocePacketEncoder e, ByteBuffer out, int offset) {
        e.begin(out, offset, d.opcode());
        BthFlyweight b = d.bth();
        e.bth().solicitedEvent(b.solicitedEvent()).migration(b.migration()).transportVersion(b.transportVersion()).pkey(b.pkey())
            .resv8a(b.resv8a()).destQp(b.destQp()).ackRequest(b.ackRequest()).resv7(b.resv7()).psn(b.psn());
        if (d.deth() != null) {
            e.deth().qkey(d.deth().qkey()).reserved(d.deth().reserved()).srcQp(d.deth().srcQp());
        }
        if (d.reth() != null) {
            e.reth().virtualAddress(d.reth().virtualAddress()).rkey(d.reth().rkey()).dmaLength(d.reth().dmaLength());
        }
        if (d.atomicEth() != null) {
            AtomicEthFlyweight a = d.atomicEth();
            e.atomicEth().virtualAddress(a.virtualAddress()).rkey(a.rkey()).swapOrAdd(a.swapOrAdd()).compare(a.compare());
        }
        if (d.aeth() != null) {
            e.aeth().syndrome(d.aeth().syndrome()).msn(d.aeth().msn());
        }
        if (d.atomicAckEth() != null) {
            e.atomicAckEth().originalData(d.atomicAckEth().originalData());
        }
        if (d.immDt() != null) {
            e.immDt().immediate(d.immDt().immediate());
        }
        if (d.ieth() != null) {
            e.ieth().rkey(d.ieth().rkey());
        }
        e.payload(d.buffer(), d.payloadOffset(), d.payloadLength());
        return e.finish(d.icrc());
    }
}
