package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Flyweight over a ConnectRequest (REQ, attribute 0x0010; IBTA vol. 1 section 12.6.5, table 106). CM offsets
 * (from the end of the MAD header):
 *
 * <pre>
 *   0 Local Communication ID (32)       4 Reserved (8), VendorID (24)
 *   8 ServiceID (64)                   16 Local CA GUID (64)
 *  24 Reserved (32)                    28 Local Q_Key (32)
 *  32 Local QPN (24), Responder Resources (8)
 *  36 Local EECN (24), Initiator Depth (8)
 *  40 Remote EECN (24), Remote CM Response Timeout (5), Transport Service Type (2), End-to-End Flow Control (1)
 *  44 Starting PSN (24), Local CM Response Timeout (5), Retry Count (3)
 *  48 P_Key (16), Path MTU (4), RDC Exists (1), RNR Retry Count (3), Max CM Retries (4), SRQ (1), Extended Transport (3)
 *  52 primary path (44, {@link CmPathFlyweight})
 *  96 alternate path (44; SAP Supported is bit 2 of its last octet, CM offset 139)
 * 140 Private Data (92): for rdma_cm, a {@link CmaHeader} then the consumer's private data
 * </pre>
 *
 * <p>rxe/rdma_cm values seen: ServiceID {@code 0x0000000001060000 | port} (RDMA_PS_TCP, see {@link CmServiceId}),
 * Local Q_Key 0, transport service type 0 (RC), path MTU 3 (1024), retry count 7, RNR retry count 7, CM response
 * timeouts 20, max CM retries 15, P_Key 0xFFFF.
 */
public final class ConnectRequestFlyweight extends CmMessageFlyweight {

    /** CM offset of the reserved octet before the vendor ID. */
    public static final int RESERVED_4 = 4;
    /** CM offset of the vendor ID. */
    public static final int VENDOR_ID = 5;
    /** CM offset of the service ID. */
    public static final int SERVICE_ID = 8;
    /** CM offset of the local CA GUID. */
    public static final int LOCAL_CA_GUID = 16;
    /** CM offset of the local Q_Key. */
    public static final int LOCAL_QKEY = 28;
    /** CM offset of the local QPN. */
    public static final int LOCAL_QPN = 32;
    /** CM offset of the responder resources. */
    public static final int RESPONDER_RESOURCES = 35;
    /** CM offset of the local EECN. */
    public static final int LOCAL_EECN = 36;
    /** CM offset of the initiator depth. */
    public static final int INITIATOR_DEPTH = 39;
    /** CM offset of the remote EECN. */
    public static final int REMOTE_EECN = 40;
    /** CM offset of the octet with remote CM response timeout, transport service type and flow control. */
    public static final int REMOTE_CM_TIMEOUT = 43;
    /** CM offset of the starting PSN. */
    public static final int STARTING_PSN = 44;
    /** CM offset of the octet with local CM response timeout and retry count. */
    public static final int LOCAL_CM_TIMEOUT = 47;
    /** CM offset of the P_Key. */
    public static final int PKEY = 48;
    /** CM offset of the octet with path MTU, RDC exists and RNR retry count. */
    public static final int PATH_MTU = 50;
    /** CM offset of the octet with max CM retries, SRQ and extended transport type. */
    public static final int MAX_CM_RETRIES = 51;
    /** CM offset of the primary path. */
    public static final int PRIMARY_PATH = 52;
    /** CM offset of the alternate path. */
    public static final int ALTERNATE_PATH = 96;
    /** CM offset of the octet holding SAP Supported. */
    public static final int SAP_SUPPORTED = 139;
    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 140;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;

    private final CmPathFlyweight primary = new CmPathFlyweight();
    private final CmPathFlyweight alternate = new CmPathFlyweight();

    /** Creates an unwrapped flyweight. */
    public ConnectRequestFlyweight() {
        super(CmAttribute.REQ, PRIVATE_DATA);
    }

    @Override
    public ConnectRequestFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        primary.wrap(buffer, offset + DATA_OFFSET + PRIMARY_PATH);
        alternate.wrap(buffer, offset + DATA_OFFSET + ALTERNATE_PATH);
        return this;
    }

    /** @return the reserved octet at CM offset 4 */
    public int reserved4() {
        return u8(RESERVED_4);
    }

    /** @param value the reserved octet at CM offset 4 */
    public void reserved4(int value) {
        putU8(RESERVED_4, value);
    }

    /** @return the 24-bit vendor ID */
    public int vendorId() {
        return u24(VENDOR_ID);
    }

    /** @param id the 24-bit vendor ID */
    public void vendorId(int id) {
        putU24(VENDOR_ID, id);
    }

    /** @return the service ID */
    public long serviceId() {
        return i64(SERVICE_ID);
    }

    /** @param id the service ID */
    public void serviceId(long id) {
        putI64(SERVICE_ID, id);
    }

    /** @return the local CA GUID */
    public long localCaGuid() {
        return i64(LOCAL_CA_GUID);
    }

    /** @param guid the local CA GUID */
    public void localCaGuid(long guid) {
        putI64(LOCAL_CA_GUID, guid);
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

    /** @return the responder resources (incoming RDMA READs and atomics the sender accepts) */
    public int responderResources() {
        return u8(RESPONDER_RESOURCES);
    }

    /** @param value the responder resources */
    public void responderResources(int value) {
        putU8(RESPONDER_RESOURCES, value);
    }

    /** @return the 24-bit local EECN */
    public int localEecn() {
        return u24(LOCAL_EECN);
    }

    /** @param eecn the 24-bit local EECN */
    public void localEecn(int eecn) {
        putU24(LOCAL_EECN, eecn);
    }

    /** @return the initiator depth (outstanding RDMA READs and atomics the sender issues) */
    public int initiatorDepth() {
        return u8(INITIATOR_DEPTH);
    }

    /** @param value the initiator depth */
    public void initiatorDepth(int value) {
        putU8(INITIATOR_DEPTH, value);
    }

    /** @return the 24-bit remote EECN */
    public int remoteEecn() {
        return u24(REMOTE_EECN);
    }

    /** @param eecn the 24-bit remote EECN */
    public void remoteEecn(int eecn) {
        putU24(REMOTE_EECN, eecn);
    }

    /** @return the 5-bit remote CM response timeout */
    public int remoteCmResponseTimeout() {
        return bits(REMOTE_CM_TIMEOUT, 0xF8, 3);
    }

    /** @param timeout the 5-bit remote CM response timeout */
    public void remoteCmResponseTimeout(int timeout) {
        putBits(REMOTE_CM_TIMEOUT, 0xF8, 3, timeout);
    }

    /** @return the 2-bit transport service type (0 RC, 1 UC, 2 RD) */
    public int transportServiceType() {
        return bits(REMOTE_CM_TIMEOUT, 0x06, 1);
    }

    /** @param type the 2-bit transport service type */
    public void transportServiceType(int type) {
        putBits(REMOTE_CM_TIMEOUT, 0x06, 1, type);
    }

    /** @return the end-to-end flow control bit */
    public boolean endToEndFlowControl() {
        return bits(REMOTE_CM_TIMEOUT, 0x01, 0) != 0;
    }

    /** @param on the end-to-end flow control bit */
    public void endToEndFlowControl(boolean on) {
        putBits(REMOTE_CM_TIMEOUT, 0x01, 0, on ? 1 : 0);
    }

    /** @return the 24-bit starting PSN */
    public int startingPsn() {
        return u24(STARTING_PSN);
    }

    /** @param psn the 24-bit starting PSN */
    public void startingPsn(int psn) {
        putU24(STARTING_PSN, psn);
    }

    /** @return the 5-bit local CM response timeout */
    public int localCmResponseTimeout() {
        return bits(LOCAL_CM_TIMEOUT, 0xF8, 3);
    }

    /** @param timeout the 5-bit local CM response timeout */
    public void localCmResponseTimeout(int timeout) {
        putBits(LOCAL_CM_TIMEOUT, 0xF8, 3, timeout);
    }

    /** @return the 3-bit retry count */
    public int retryCount() {
        return bits(LOCAL_CM_TIMEOUT, 0x07, 0);
    }

    /** @param count the 3-bit retry count */
    public void retryCount(int count) {
        putBits(LOCAL_CM_TIMEOUT, 0x07, 0, count);
    }

    /** @return the partition key */
    public int pkey() {
        return u16(PKEY);
    }

    /** @param pkey the partition key */
    public void pkey(int pkey) {
        putU16(PKEY, pkey);
    }

    /** @return the 4-bit path MTU code (1 = 256 ... 5 = 4096) */
    public int pathMtu() {
        return bits(PATH_MTU, 0xF0, 4);
    }

    /** @param mtu the 4-bit path MTU code */
    public void pathMtu(int mtu) {
        putBits(PATH_MTU, 0xF0, 4, mtu);
    }

    /** @return the RDC exists bit */
    public boolean rdcExists() {
        return bits(PATH_MTU, 0x08, 3) != 0;
    }

    /** @param exists the RDC exists bit */
    public void rdcExists(boolean exists) {
        putBits(PATH_MTU, 0x08, 3, exists ? 1 : 0);
    }

    /** @return the 3-bit RNR retry count (7: infinite) */
    public int rnrRetryCount() {
        return bits(PATH_MTU, 0x07, 0);
    }

    /** @param count the 3-bit RNR retry count */
    public void rnrRetryCount(int count) {
        putBits(PATH_MTU, 0x07, 0, count);
    }

    /** @return the 4-bit max CM retries */
    public int maxCmRetries() {
        return bits(MAX_CM_RETRIES, 0xF0, 4);
    }

    /** @param retries the 4-bit max CM retries */
    public void maxCmRetries(int retries) {
        putBits(MAX_CM_RETRIES, 0xF0, 4, retries);
    }

    /** @return the SRQ bit */
    public boolean srq() {
        return bits(MAX_CM_RETRIES, 0x08, 3) != 0;
    }

    /** @param srq the SRQ bit */
    public void srq(boolean srq) {
        putBits(MAX_CM_RETRIES, 0x08, 3, srq ? 1 : 0);
    }

    /** @return the 3-bit extended transport type (XRC: 1) */
    public int extendedTransportType() {
        return bits(MAX_CM_RETRIES, 0x07, 0);
    }

    /** @param type the 3-bit extended transport type */
    public void extendedTransportType(int type) {
        putBits(MAX_CM_RETRIES, 0x07, 0, type);
    }

    /** @return the primary path */
    public CmPathFlyweight primaryPath() {
        return primary;
    }

    /** @return the alternate path (all zeros when there is none) */
    public CmPathFlyweight alternatePath() {
        return alternate;
    }

    /** @return the SAP Supported bit */
    public boolean sapSupported() {
        return bits(SAP_SUPPORTED, 0x04, 2) != 0;
    }

    /** @param supported the SAP Supported bit */
    public void sapSupported(boolean supported) {
        putBits(SAP_SUPPORTED, 0x04, 2, supported ? 1 : 0);
    }
}
