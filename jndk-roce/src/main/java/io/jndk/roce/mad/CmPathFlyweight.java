package io.jndk.roce.mad;

import io.jndk.roce.codec.HeaderFlyweight;
import io.jndk.roce.codec.NetworkOrder;
import java.nio.ByteBuffer;

/**
 * Flyweight over one of the two 44-octet path descriptions of a ConnectRequest (part of IBTA vol. 1 section 12.6.5,
 * table 106: REQ CM offsets 52-95 primary and 96-139 alternate).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |        Local Port LID         |        Remote Port LID        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Local Port GID (128), offset 4                |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                Remote Port GID (128), offset 20               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              Flow Label (20)          | Reserved  |PacketRate |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Traffic Class |   Hop Limit   |  SL   |S| Rsv | AckTimeout|Rsv|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>S = subnet local. For RoCEv2, rxe/ib_cm sends LIDs 0xFFFF (permissive), the IPv4-mapped GIDs
 * {@code ::ffff:a.b.c.d}, a non-zero flow label, hop limit 64, packet rate 0x3A and SL 0; the alternate path is
 * all zeros. The low three bits of the alternate path's last octet hold the REQ's SAP Supported bit
 * ({@link ConnectRequestFlyweight#sapSupported()}), which this flyweight leaves alone.
 */
public final class CmPathFlyweight extends HeaderFlyweight {

    /** Path length. */
    public static final int LENGTH = 44;
    /** Offset of the local port LID. */
    public static final int LOCAL_LID = 0;
    /** Offset of the remote port LID. */
    public static final int REMOTE_LID = 2;
    /** Offset of the local port GID. */
    public static final int LOCAL_GID = 4;
    /** Offset of the remote port GID. */
    public static final int REMOTE_GID = 20;
    /** Offset of the word holding flow label and packet rate. */
    public static final int FLOW_LABEL = 36;
    /** Offset of the octet holding the packet rate. */
    public static final int PACKET_RATE = 39;
    /** Offset of the traffic class. */
    public static final int TRAFFIC_CLASS = 40;
    /** Offset of the hop limit. */
    public static final int HOP_LIMIT = 41;
    /** Offset of the SL and subnet-local octet. */
    public static final int SL = 42;
    /** Offset of the local ACK timeout octet. */
    public static final int ACK_TIMEOUT = 43;
    /** Length of a GID. */
    public static final int GID_LENGTH = 16;

    /** Creates an unwrapped flyweight. */
    public CmPathFlyweight() {
    }

    @Override
    public CmPathFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the local port LID */
    public int localLid() {
        return NetworkOrder.u16(buffer, offset + LOCAL_LID);
    }

    /**
     * @param lid the local port LID
     * @return this
     */
    public CmPathFlyweight localLid(int lid) {
        NetworkOrder.putU16(buffer, offset + LOCAL_LID, lid);
        return this;
    }

    /** @return the remote port LID */
    public int remoteLid() {
        return NetworkOrder.u16(buffer, offset + REMOTE_LID);
    }

    /**
     * @param lid the remote port LID
     * @return this
     */
    public CmPathFlyweight remoteLid(int lid) {
        NetworkOrder.putU16(buffer, offset + REMOTE_LID, lid);
        return this;
    }

    /**
     * @param dst receives the 16-octet local port GID
     * @param dstOffset where in {@code dst}
     */
    public void getLocalGid(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, offset + LOCAL_GID, dst, dstOffset, GID_LENGTH);
    }

    /**
     * @param src the 16-octet local port GID
     * @param srcOffset where in {@code src}
     * @return this
     */
    public CmPathFlyweight putLocalGid(byte[] src, int srcOffset) {
        NetworkOrder.copyIn(buffer, offset + LOCAL_GID, src, srcOffset, GID_LENGTH);
        return this;
    }

    /**
     * @param dst receives the 16-octet remote port GID
     * @param dstOffset where in {@code dst}
     */
    public void getRemoteGid(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, offset + REMOTE_GID, dst, dstOffset, GID_LENGTH);
    }

    /**
     * @param src the 16-octet remote port GID
     * @param srcOffset where in {@code src}
     * @return this
     */
    public CmPathFlyweight putRemoteGid(byte[] src, int srcOffset) {
        NetworkOrder.copyIn(buffer, offset + REMOTE_GID, src, srcOffset, GID_LENGTH);
        return this;
    }

    /** @return the 20-bit flow label */
    public int flowLabel() {
        return NetworkOrder.i32(buffer, offset + FLOW_LABEL) >>> 12;
    }

    /**
     * @param label the 20-bit flow label
     * @return this
     */
    public CmPathFlyweight flowLabel(int label) {
        int word = NetworkOrder.i32(buffer, offset + FLOW_LABEL);
        NetworkOrder.putI32(buffer, offset + FLOW_LABEL, (label << 12) | (word & 0xFFF));
        return this;
    }

    /** @return the 6-bit packet rate (IBTA table 205 code) */
    public int packetRate() {
        return NetworkOrder.bits(buffer, offset + PACKET_RATE, 0x3F, 0);
    }

    /**
     * @param rate the 6-bit packet rate
     * @return this
     */
    public CmPathFlyweight packetRate(int rate) {
        NetworkOrder.putBits(buffer, offset + PACKET_RATE, 0x3F, 0, rate);
        return this;
    }

    /** @return the traffic class */
    public int trafficClass() {
        return NetworkOrder.u8(buffer, offset + TRAFFIC_CLASS);
    }

    /**
     * @param tc the traffic class
     * @return this
     */
    public CmPathFlyweight trafficClass(int tc) {
        NetworkOrder.putU8(buffer, offset + TRAFFIC_CLASS, tc);
        return this;
    }

    /** @return the hop limit */
    public int hopLimit() {
        return NetworkOrder.u8(buffer, offset + HOP_LIMIT);
    }

    /**
     * @param limit the hop limit
     * @return this
     */
    public CmPathFlyweight hopLimit(int limit) {
        NetworkOrder.putU8(buffer, offset + HOP_LIMIT, limit);
        return this;
    }

    /** @return the 4-bit service level */
    public int sl() {
        return NetworkOrder.bits(buffer, offset + SL, 0xF0, 4);
    }

    /**
     * @param sl the 4-bit service level
     * @return this
     */
    public CmPathFlyweight sl(int sl) {
        NetworkOrder.putBits(buffer, offset + SL, 0xF0, 4, sl);
        return this;
    }

    /** @return the subnet-local bit */
    public boolean subnetLocal() {
        return NetworkOrder.bits(buffer, offset + SL, 0x08, 3) != 0;
    }

    /**
     * @param local the subnet-local bit
     * @return this
     */
    public CmPathFlyweight subnetLocal(boolean local) {
        NetworkOrder.putBits(buffer, offset + SL, 0x08, 3, local ? 1 : 0);
        return this;
    }

    /** @return the 5-bit local ACK timeout (4.096 us * 2^value) */
    public int localAckTimeout() {
        return NetworkOrder.bits(buffer, offset + ACK_TIMEOUT, 0xF8, 3);
    }

    /**
     * @param timeout the 5-bit local ACK timeout
     * @return this
     */
    public CmPathFlyweight localAckTimeout(int timeout) {
        NetworkOrder.putBits(buffer, offset + ACK_TIMEOUT, 0xF8, 3, timeout);
        return this;
    }
}
