package io.jndk.roce.mad;

import io.jndk.roce.codec.NetworkOrder;
import java.nio.ByteBuffer;

/**
 * Flyweight over a ConnectReject (REJ, attribute 0x0012; IBTA vol. 1 section 12.6.7, table 108). CM offsets:
 *
 * <pre>
 *   0 Local Communication ID (32)       4 Remote Communication ID (32)
 *   8 Message Rejected (upper 2 bits: 0 REQ, 1 REP, 2 other), reserved (6)
 *   9 Reject Info Length (upper 7 bits), reserved (1)
 *  10 Reason (16)
 *  12 Additional Reject Information (72)
 *  84 Private Data (148)
 * </pre>
 */
public final class ConnectRejectFlyweight extends CmPairedMessageFlyweight {

    /** CM offset of the octet holding Message Rejected. */
    public static final int MESSAGE_REJECTED = 8;
    /** CM offset of the octet holding the reject info length. */
    public static final int REJECT_INFO_LENGTH = 9;
    /** CM offset of the reason. */
    public static final int REASON = 10;
    /** CM offset of the additional reject information. */
    public static final int ARI = 12;
    /** Length of the additional reject information. */
    public static final int ARI_LENGTH = 72;
    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 84;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;
    /** Message Rejected: the REQ. */
    public static final int REJECTED_REQ = 0;
    /** Message Rejected: the REP. */
    public static final int REJECTED_REP = 1;
    /** Message Rejected: another message. */
    public static final int REJECTED_OTHER = 2;
    /** Reason 1: no QP available. */
    public static final int REASON_NO_QP = 1;
    /** Reason 4: timeout (ib_cm sends it when its retries of a REQ or REP run out). */
    public static final int REASON_TIMEOUT = 4;
    /** Reason 8: invalid service ID (no listener). */
    public static final int REASON_INVALID_SERVICE_ID = 8;
    /** Reason 10: stale connection. */
    public static final int REASON_STALE_CONNECTION = 10;
    /** Reason 28: consumer reject (rdma_reject). */
    public static final int REASON_CONSUMER = 28;

    /** Creates an unwrapped flyweight. */
    public ConnectRejectFlyweight() {
        super(CmAttribute.REJ, PRIVATE_DATA);
    }

    @Override
    public ConnectRejectFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the 2-bit code of the rejected message */
    public int messageRejected() {
        return bits(MESSAGE_REJECTED, 0xC0, 6);
    }

    /** @param code the 2-bit code of the rejected message */
    public void messageRejected(int code) {
        putBits(MESSAGE_REJECTED, 0xC0, 6, code);
    }

    /** @return the 7-bit length of the valid additional reject information */
    public int rejectInfoLength() {
        return bits(REJECT_INFO_LENGTH, 0xFE, 1);
    }

    /** @param length the 7-bit length of the additional reject information */
    public void rejectInfoLength(int length) {
        putBits(REJECT_INFO_LENGTH, 0xFE, 1, length);
    }

    /** @return the reject reason (IBTA table 109) */
    public int reason() {
        return u16(REASON);
    }

    /** @param reason the reject reason */
    public void reason(int reason) {
        putU16(REASON, reason);
    }

    /**
     * @param dst receives the 72 octets of additional reject information
     * @param dstOffset where in {@code dst}
     */
    public void getAri(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, offset + DATA_OFFSET + ARI, dst, dstOffset, ARI_LENGTH);
    }

    /**
     * @param src the 72 octets of additional reject information
     * @param srcOffset where in {@code src}
     */
    public void putAri(byte[] src, int srcOffset) {
        NetworkOrder.copyIn(buffer, offset + DATA_OFFSET + ARI, src, srcOffset, ARI_LENGTH);
    }
}
