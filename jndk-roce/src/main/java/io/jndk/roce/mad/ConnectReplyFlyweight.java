package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Flyweight over a ConnectReply (REP, attribute 0x0013; IBTA vol. 1 section 12.6.8, table 110). CM offsets:
 *
 * <pre>
 *   0 Local Communication ID (32)       4 Remote Communication ID (32)
 *   8 Local Q_Key (32)
 *  12 Local QPN (24), VendorID[23:16] (8)
 *  16 Local EE Context Number (24), VendorID[15:8] (8)
 *  20 Starting PSN (24), VendorID[7:0] (8)
 *  24 Responder Resources (8), Initiator Depth (8),
 *     Target ACK Delay (5), Failover Accepted (2), End-to-End Flow Control (1),
 *     RNR Retry Count (3), SRQ (1), Reserved (4)
 *  28 Local CA GUID (64)
 *  36 Private Data (196)
 * </pre>
 *
 * <p>rxe sends target ACK delay 15 and RNR retry count 7.
 */
public final class ConnectReplyFlyweight extends CmPairedMessageFlyweight {

    /** CM offset of the local Q_Key. */
    public static final int LOCAL_QKEY = 8;
    /** CM offset of the local QPN. */
    public static final int LOCAL_QPN = 12;
    /** CM offset of the vendor ID's high octet. */
    public static final int VENDOR_ID_HIGH = 15;
    /** CM offset of the local EE context number. */
    public static final int LOCAL_EECN = 16;
    /** CM offset of the vendor ID's middle octet. */
    public static final int VENDOR_ID_MIDDLE = 19;
    /** CM offset of the starting PSN. */
    public static final int STARTING_PSN = 20;
    /** CM offset of the vendor ID's low octet. */
    public static final int VENDOR_ID_LOW = 23;
    /** CM offset of the responder resources. */
    public static final int RESPONDER_RESOURCES = 24;
    /** CM offset of the initiator depth. */
    public static final int INITIATOR_DEPTH = 25;
    /** CM offset of the octet with target ACK delay, failover accepted and flow control. */
    public static final int TARGET_ACK_DELAY = 26;
    /** CM offset of the octet with RNR retry count and SRQ. */
    public static final int RNR_RETRY_COUNT = 27;
    /** CM offset of the local CA GUID. */
    public static final int LOCAL_CA_GUID = 28;
    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 36;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;

    /** Creates an unwrapped flyweight. */
    public ConnectReplyFlyweight() {
        super(CmAttribute.REP, PRIVATE_DATA);
    }

    @Override
    public ConnectReplyFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the local Q_Key */
    public int localQkey() {
        return i32(LOCAL_QKEY);
    }

    /** @param qkey the local Q_Key */
    public void localQkey(int qkey) {
        putI32(LOCAL_QKEY, qkey);
    }

    /** @return the 24-bit local QPN */
    public int localQpn() {
        return u24(LOCAL_QPN);
    }

    /** @param qpn the 24-bit local QPN */
    public void localQpn(int qpn) {
        putU24(LOCAL_QPN, qpn);
    }

    /** @return the 24-bit vendor ID, gathered from its three octets */
    public int vendorId() {
        return (u8(VENDOR_ID_HIGH) << 16) | (u8(VENDOR_ID_MIDDLE) << 8) | u8(VENDOR_ID_LOW);
    }

    /** @param id the 24-bit vendor ID */
    public void vendorId(int id) {
        putU8(VENDOR_ID_HIGH, id >>> 16);
        putU8(VENDOR_ID_MIDDLE, id >>> 8);
        putU8(VENDOR_ID_LOW, id);
    }

    /** @return the 24-bit local EE context number */
    public int localEecn() {
        return u24(LOCAL_EECN);
    }

    /** @param eecn the 24-bit local EE context number */
    public void localEecn(int eecn) {
        putU24(LOCAL_EECN, eecn);
    }

    /** @return the 24-bit starting PSN */
    public int startingPsn() {
        return u24(STARTING_PSN);
    }

    /** @param psn the 24-bit starting PSN */
    public void startingPsn(int psn) {
        putU24(STARTING_PSN, psn);
    }

    /** @return the responder resources */
    public int responderResources() {
        return u8(RESPONDER_RESOURCES);
    }

    /** @param value the responder resources */
    public void responderResources(int value) {
        putU8(RESPONDER_RESOURCES, value);
    }

    /** @return the initiator depth */
    public int initiatorDepth() {
        return u8(INITIATOR_DEPTH);
    }

    /** @param value the initiator depth */
    public void initiatorDepth(int value) {
        putU8(INITIATOR_DEPTH, value);
    }

    /** @return the 5-bit target ACK delay */
    public int targetAckDelay() {
        return bits(TARGET_ACK_DELAY, 0xF8, 3);
    }

    /** @param delay the 5-bit target ACK delay */
    public void targetAckDelay(int delay) {
        putBits(TARGET_ACK_DELAY, 0xF8, 3, delay);
    }

    /** @return the 2-bit failover accepted code */
    public int failoverAccepted() {
        return bits(TARGET_ACK_DELAY, 0x06, 1);
    }

    /** @param code the 2-bit failover accepted code */
    public void failoverAccepted(int code) {
        putBits(TARGET_ACK_DELAY, 0x06, 1, code);
    }

    /** @return the end-to-end flow control bit */
    public boolean endToEndFlowControl() {
        return bits(TARGET_ACK_DELAY, 0x01, 0) != 0;
    }

    /** @param on the end-to-end flow control bit */
    public void endToEndFlowControl(boolean on) {
        putBits(TARGET_ACK_DELAY, 0x01, 0, on ? 1 : 0);
    }

    /** @return the 3-bit RNR retry count */
    public int rnrRetryCount() {
        return bits(RNR_RETRY_COUNT, 0xE0, 5);
    }

    /** @param count the 3-bit RNR retry count */
    public void rnrRetryCount(int count) {
        putBits(RNR_RETRY_COUNT, 0xE0, 5, count);
    }

    /** @return the SRQ bit */
    public boolean srq() {
        return bits(RNR_RETRY_COUNT, 0x10, 4) != 0;
    }

    /** @param srq the SRQ bit */
    public void srq(boolean srq) {
        putBits(RNR_RETRY_COUNT, 0x10, 4, srq ? 1 : 0);
    }

    /** @return the local CA GUID */
    public long localCaGuid() {
        return i64(LOCAL_CA_GUID);
    }

    /** @param guid the local CA GUID */
    public void localCaGuid(long guid) {
        putI64(LOCAL_CA_GUID, guid);
    }
}
