package io.jndk.roce.mad;

import io.jndk.roce.codec.DethFlyweight;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;

/**
 * Validates a 256-octet CM MAD and wraps the flyweight of its message; one instance per receive path, reused, no
 * allocation. {@link #decodeGsi} first checks that a decoded RoCEv2 packet is a GSI datagram (UD SEND Only from and
 * to QP1 with the GSI Q_Key and a 256-octet payload). Never throws; reads nothing outside the given range and the
 * buffer's limit. After {@link MadError#NONE}, {@link #message()} is the message's flyweight and exactly one of
 * {@link #req()}, {@link #mra()}, {@link #rej()}, {@link #rep()}, {@link #rtu()}, {@link #dreq()}, {@link #drep()}
 * is not {@code null}.
 */
public final class MadDecoder {

    private final MadHeaderFlyweight header = new MadHeaderFlyweight();
    private final ConnectRequestFlyweight req = new ConnectRequestFlyweight();
    private final MraFlyweight mra = new MraFlyweight();
    private final ConnectRejectFlyweight rej = new ConnectRejectFlyweight();
    private final ConnectReplyFlyweight rep = new ConnectReplyFlyweight();
    private final ReadyToUseFlyweight rtu = new ReadyToUseFlyweight();
    private final DisconnectRequestFlyweight dreq = new DisconnectRequestFlyweight();
    private final DisconnectReplyFlyweight drep = new DisconnectReplyFlyweight();

    private MadError error = MadError.TRUNCATED;
    private CmAttribute attribute;
    private CmMessageFlyweight message;

    /** Creates a decoder. */
    public MadDecoder() {
    }

    /**
     * Checks that a packet the RoCEv2 decoder accepted is a GSI datagram, then decodes its payload as a MAD.
     *
     * @param packet a decoder whose last result was {@code NONE}
     * @return {@link MadError#NONE} or the first fault
     */
    public MadError decodeGsi(RocePacketDecoder packet) {
        clearResult();
        DethFlyweight deth = packet.deth();
        if (packet.opcode() != RoceOpcode.UD_SEND_ONLY || deth == null || packet.bth().destQp() != GsiPacket.QPN
            || deth.srcQp() != GsiPacket.QPN || deth.qkey() != GsiPacket.QKEY
            || packet.payloadLength() != MadHeaderFlyweight.MAD_LENGTH) {
            return error = MadError.NOT_GSI;
        }
        return decode(packet.buffer(), packet.payloadOffset(), packet.payloadLength());
    }

    /**
     * @param buffer the buffer
     * @param offset index of the MAD's first octet
     * @param length octets available from there (at least 256; more are ignored)
     * @return {@link MadError#NONE} or the first fault
     */
    public MadError decode(ByteBuffer buffer, int offset, int length) {
        clearResult();
        if (buffer == null || offset < 0 || length < MadHeaderFlyweight.MAD_LENGTH
            || (long) offset + MadHeaderFlyweight.MAD_LENGTH > buffer.limit()) {
            return error = MadError.TRUNCATED;
        }
        header.wrap(buffer, offset);
        if (header.baseVersion() != MadHeaderFlyweight.BASE_VERSION) {
            return error = MadError.BAD_BASE_VERSION;
        }
        if (header.mgmtClass() != MadHeaderFlyweight.MGMT_CLASS_CM) {
            return error = MadError.NOT_CM;
        }
        if (header.classVersion() != MadHeaderFlyweight.CM_CLASS_VERSION) {
            return error = MadError.BAD_CLASS_VERSION;
        }
        if (header.method() != MadHeaderFlyweight.METHOD_SEND) {
            return error = MadError.BAD_METHOD;
        }
        CmAttribute a = CmAttribute.of(header.attributeId());
        if (a == null) {
            return error = MadError.UNKNOWN_ATTRIBUTE;
        }
        attribute = a;
        message = switch (a) {
            case REQ -> req;
            case MRA -> mra;
            case REJ -> rej;
            case REP -> rep;
            case RTU -> rtu;
            case DREQ -> dreq;
            case DREP -> drep;
        };
        message.wrap(buffer, offset);
        return error = MadError.NONE;
    }

    private void clearResult() {
        attribute = null;
        message = null;
    }

    private <T extends CmMessageFlyweight> T as(T flyweight) {
        return message == flyweight ? flyweight : null;
    }

    /** @return the result of the last decode */
    public MadError error() {
        return error;
    }

    /** @return the MAD header (wrapped whenever 256 octets were there) */
    public MadHeaderFlyweight header() {
        return header;
    }

    /** @return the message's attribute, or {@code null} */
    public CmAttribute attribute() {
        return attribute;
    }

    /** @return the message's flyweight, or {@code null} */
    public CmMessageFlyweight message() {
        return message;
    }

    /** @return the REQ, or {@code null} */
    public ConnectRequestFlyweight req() {
        return as(req);
    }

    /** @return the MRA, or {@code null} */
    public MraFlyweight mra() {
        return as(mra);
    }

    /** @return the REJ, or {@code null} */
    public ConnectRejectFlyweight rej() {
        return as(rej);
    }

    /** @return the REP, or {@code null} */
    public ConnectReplyFlyweight rep() {
        return as(rep);
    }

    /** @return the RTU, or {@code null} */
    public ReadyToUseFlyweight rtu() {
        return as(rtu);
    }

    /** @return the DREQ, or {@code null} */
    public DisconnectRequestFlyweight dreq() {
        return as(dreq);
    }

    /** @return the DREP, or {@code null} */
    public DisconnectReplyFlyweight drep() {
        return as(drep);
    }
}
