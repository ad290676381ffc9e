package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 12-octet Base Transport Header (IBTA vol. 1 section 9.2, figure 124), the first header of
 * every RoCEv2 UDP payload.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    OpCode     |S|M|Pad| TVer  |            P_Key              |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    Resv8a     |               DestQP (24 bits)                |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |A|   Resv7     |                 PSN (24 bits)                 |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>S = solicited event ({@code 0x80} of octet 1), M = migration state ({@code 0x40}), Pad = pad count
 * ({@code 0x30}: octets of padding after the payload, 0-3), TVer = transport header version ({@code 0x0F}, 0),
 * A = AckReq ({@code 0x80} of octet 8). Resv8a (octet 4) is transmitted as 0 and is replaced by ones in the ICRC
 * (IBTA annex A17.4.2 also carries the FECN/BECN bits there); rxe sends 0. Linux rxe sends P_Key 0xFFFF.
 */
public final class BthFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 12;
    /** Offset of the opcode. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the SE, M, PadCnt and TVer octet. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the P_Key. */
    public static final int PKEY_OFFSET = 2;
    /** Offset of Resv8a. */
    public static final int RESV8A_OFFSET = 4;
    /** Offset of the 24-bit destination QP. */
    public static final int DEST_QP_OFFSET = 5;
    /** Offset of the AckReq and Resv7 octet. */
    public static final int ACK_REQ_OFFSET = 8;
    /** Offset of the 24-bit PSN. */
    public static final int PSN_OFFSET = 9;
    /** SE bit of octet 1. */
    public static final int SOLICITED_MASK = 0x80;
    /** M bit of octet 1. */
    public static final int MIGRATION_MASK = 0x40;
    /** PadCnt field of octet 1. */
    public static final int PAD_MASK = 0x30;
    /** TVer field of octet 1. */
    public static final int TVER_MASK = 0x0F;
    /** AckReq bit of octet 8. */
    public static final int ACK_REQ_MASK = 0x80;
    /** Resv7 field of octet 8. */
    public static final int RESV7_MASK = 0x7F;
    /** The only transport header version. */
    public static final int TVER = 0;
    /** The default partition key rxe uses. */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** Largest QP number (24 bits). */
    public static final int MAX_QPN = 0xFFFFFF;

    /** Creates an unwrapped flyweight. */
    public BthFlyweight() {
    }

    @Override
    public BthFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the opcode octet, 0-255 */
    public int opcode() {
        return NetworkOrder.u8(buffer, offset + OPCODE_OFFSET);
    }

    /**
     * @param opcode the opcode octet
     * @return this
     */
    public BthFlyweight opcode(int opcode) {
        NetworkOrder.putU8(buffer, offset + OPCODE_OFFSET, opcode);
        return this;
    }

    /** @return the SE bit */
    public boolean solicitedEvent() {
        return NetworkOrder.bits(buffer, offset + FLAGS_OFFSET, SOLICITED_MASK, 7) != 0;
    }

    /**
     * @param se the SE bit
     * @return this
     */
    public BthFlyweight solicitedEvent(boolean se) {
        NetworkOrder.putBits(buffer, offset + FLAGS_OFFSET, SOLICITED_MASK, 7, se ? 1 : 0);
        return this;
    }

    /** @return the M bit */
    public boolean migration() {
        return NetworkOrder.bits(buffer, offset + FLAGS_OFFSET, MIGRATION_MASK, 6) != 0;
    }

    /**
     * @param m the M bit
     * @return this
     */
    public BthFlyweight migration(boolean m) {
        NetworkOrder.putBits(buffer, offset + FLAGS_OFFSET, MIGRATION_MASK, 6, m ? 1 : 0);
        return this;
    }

    /** @return the pad count, 0-3 */
    public int padCount() {
        return NetworkOrder.bits(buffer, offset + FLAGS_OFFSET, PAD_MASK, 4);
    }

    /**
     * @param pad the pad count, 0-3
     * @return this
     */
    public BthFlyweight padCount(int pad) {
        NetworkOrder.putBits(buffer, offset + FLAGS_OFFSET, PAD_MASK, 4, pad);
        return this;
    }

    /** @return the transport header version, 0-15 */
    public int transportVersion() {
        return NetworkOrder.bits(buffer, offset + FLAGS_OFFSET, TVER_MASK, 0);
    }

    /**
     * @param tver the transport header version
     * @return this
     */
    public BthFlyweight transportVersion(int tver) {
        NetworkOrder.putBits(buffer, offset + FLAGS_OFFSET, TVER_MASK, 0, tver);
        return this;
    }

    /** @return the partition key */
    public int pkey() {
        return NetworkOrder.u16(buffer, offset + PKEY_OFFSET);
    }

    /**
     * @param pkey the partition key
     * @return this
     */
    public BthFlyweight pkey(int pkey) {
        NetworkOrder.putU16(buffer, offset + PKEY_OFFSET, pkey);
        return this;
    }

    /** @return Resv8a (octet 4), 0 on the wire */
    public int resv8a() {
        return NetworkOrder.u8(buffer, offset + RESV8A_OFFSET);
    }

    /**
     * @param value Resv8a
     * @return this
     */
    public BthFlyweight resv8a(int value) {
        NetworkOrder.putU8(buffer, offset + RESV8A_OFFSET, value);
        return this;
    }

    /** @return the 24-bit destination QP number */
    public int destQp() {
        return NetworkOrder.u24(buffer, offset + DEST_QP_OFFSET);
    }

    /**
     * @param qpn the destination QP number (low 24 bits)
     * @return this
     */
    public BthFlyweight destQp(int qpn) {
        NetworkOrder.putU24(buffer, offset + DEST_QP_OFFSET, qpn);
        return this;
    }

    /** @return the AckReq bit */
    public boolean ackRequest() {
        return NetworkOrder.bits(buffer, offset + ACK_REQ_OFFSET, ACK_REQ_MASK, 7) != 0;
    }

    /**
     * @param ackReq the AckReq bit
     * @return this
     */
    public BthFlyweight ackRequest(boolean ackReq) {
        NetworkOrder.putBits(buffer, offset + ACK_REQ_OFFSET, ACK_REQ_MASK, 7, ackReq ? 1 : 0);
        return this;
    }

    /** @return Resv7, 0 on the wire */
    public int resv7() {
        return NetworkOrder.bits(buffer, offset + ACK_REQ_OFFSET, RESV7_MASK, 0);
    }

    /**
     * @param value Resv7
     * @return this
     */
    public BthFlyweight resv7(int value) {
        NetworkOrder.putBits(buffer, offset + ACK_REQ_OFFSET, RESV7_MASK, 0, value);
        return this;
    }

    /** @return the 24-bit packet sequence number */
    public int psn() {
        return NetworkOrder.u24(buffer, offset + PSN_OFFSET);
    }

    /**
     * @param psn the packet sequence number (low 24 bits)
     * @return this
     */
    public BthFlyweight psn(int psn) {
        NetworkOrder.putU24(buffer, offset + PSN_OFFSET, psn);
        return this;
    }
}
