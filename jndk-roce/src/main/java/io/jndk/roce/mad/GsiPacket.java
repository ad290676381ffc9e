package io.jndk.roce.mad;

import io.jndk.roce.codec.BthFlyweight;
import io.jndk.roce.codec.DethFlyweight;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;

/**
 * The RoCEv2 form of a GSI datagram, which carries every CM MAD (IBTA vol. 1 section 13.5):
 *
 * <pre>
 *  | BTH: UD SEND Only (0x64), P_Key 0xFFFF, DestQP 1, AckReq, PSN | DETH: Q_Key 0x80010000, SrcQP 1 | MAD (256) | ICRC |
 * </pre>
 *
 * 280 octets of UDP payload. rxe sends it from UDP source port {@link #RXE_SOURCE_PORT} with AckReq set and one PSN
 * per QP1 send.
 */
public final class GsiPacket {

    /** The GSI's queue pair. */
    public static final int QPN = 1;
    /** The GSI's well-known Q_Key. */
    public static final int QKEY = DethFlyweight.GSI_QKEY;
    /** The UDP payload's length: BTH, DETH, MAD, ICRC. */
    public static final int LENGTH = RoceOpcode.UD_SEND_ONLY.headersLength() + MadHeaderFlyweight.MAD_LENGTH + Icrc.LENGTH;
    /** The UDP source port rxe uses for QP1 (0xC000 plus its flow hash of QPN 1), seen in every capture. */
    public static final int RXE_SOURCE_PORT = 55410;

    private GsiPacket() {
    }

    /**
     * Starts a GSI packet with the encoder and reserves its 256-octet MAD; the caller writes the MAD at the returned
     * index (for instance with {@link CmMessageFlyweight#initialize}) and then calls {@link RocePacketEncoder#finish()}
     * and {@link Icrc#write}.
     *
     * @param encoder the encoder
     * @param buffer the destination
     * @param offset index of the BTH's first octet
     * @param psn the PSN
     * @return index of the MAD's first octet
     */
    public static int begin(RocePacketEncoder encoder, ByteBuffer buffer, int offset, int psn) {
        encoder.begin(buffer, offset, RoceOpcode.UD_SEND_ONLY);
        BthFlyweight bth = encoder.bth();
        bth.destQp(QPN).ackRequest(true).psn(psn);
        encoder.deth().qkey(QKEY).srcQp(QPN);
        encoder.payloadLength(MadHeaderFlyweight.MAD_LENGTH);
        return encoder.payloadOffset();
    }
}
