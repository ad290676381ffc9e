package io.jndk.roce.mad;

/**
 * The CM attribute IDs (IBTA vol. 1 section 12.6, table 100) of the messages this package decodes, with the
 * length of their private data. SIDR, LAP/APR and ClassPortInfo are not among them.
 */
public enum CmAttribute {
    /** ConnectRequest. */
    REQ(0x0010, ConnectRequestFlyweight.PRIVATE_DATA_LENGTH),
    /** MessageReceiptAcknowledgement. */
    MRA(0x0011, MraFlyweight.PRIVATE_DATA_LENGTH),
    /** ConnectReject. */
    REJ(0x0012, ConnectRejectFlyweight.PRIVATE_DATA_LENGTH),
    /** ConnectReply. */
    REP(0x0013, ConnectReplyFlyweight.PRIVATE_DATA_LENGTH),
    /** ReadyToUse. */
    RTU(0x0014, ReadyToUseFlyweight.PRIVATE_DATA_LENGTH),
    /** DisconnectRequest. */
    DREQ(0x0015, DisconnectRequestFlyweight.PRIVATE_DATA_LENGTH),
    /** DisconnectReply. */
    DREP(0x0016, DisconnectReplyFlyweight.PRIVATE_DATA_LENGTH);

    private static final CmAttribute[] VALUES = values();

    private final int id;
    private final int privateDataLength;

    CmAttribute(int id, int privateDataLength) {
        this.id = id;
        this.privateDataLength = privateDataLength;
    }

    /** @return the attribute ID */
    public int id() {
        return id;
    }

    /** @return the length of the message's private data */
    public int privateDataLength() {
        return privateDataLength;
    }

    /**
     * @param id an attribute ID
     * @return its constant, or {@code null} when this package does not decode it
     */
    public static CmAttribute of(int id) {
        int i = id - REQ.id;
        return i >= 0 && i < VALUES.length ? VALUES[i] : null;
    }
}
