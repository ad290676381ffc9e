package io.jndk.roce.mad;

import io.jndk.roce.codec.HeaderFlyweight;
import io.jndk.roce.codec.NetworkOrder;
import java.nio.ByteBuffer;

/**
 * Flyweight over the 24-octet common MAD header (IBTA vol. 1 section 13.4.2, figure 146) that starts every
 * 256-octet management datagram.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  BaseVersion  |   MgmtClass   |  ClassVersion |R|   Method    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Status             |         ClassSpecific         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      TransactionID (64)                       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          AttributeID          |           Reserved            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      AttributeModifier                        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The communication manager (IBTA chapter 12) uses base version 1, management class {@link #MGMT_CLASS_CM},
 * class version 2 and method {@link #METHOD_SEND} for every message; all messages of one connection's
 * establishment share one transaction ID (Linux ib_cm).
 */
public final class MadHeaderFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 24;
    /** Length of a whole MAD. */
    public static final int MAD_LENGTH = 256;
    /** The only base version. */
    public static final int BASE_VERSION = 1;
    /** Management class of the communication manager. */
    public static final int MGMT_CLASS_CM = 0x07;
    /** The CM class version of IBTA 1.2 and later. */
    public static final int CM_CLASS_VERSION = 2;
    /** Method Send(): every CM message. */
    public static final int METHOD_SEND = 0x03;
    /** The R (response) bit of the method octet. */
    public static final int RESPONSE_BIT = 0x80;
    /** Offset of the base version. */
    public static final int BASE_VERSION_OFFSET = 0;
    /** Offset of the management class. */
    public static final int MGMT_CLASS_OFFSET = 1;
    /** Offset of the class version. */
    public static final int CLASS_VERSION_OFFSET = 2;
    /** Offset of the R bit and method. */
    public static final int METHOD_OFFSET = 3;
    /** Offset of the status. */
    public static final int STATUS_OFFSET = 4;
    /** Offset of the class-specific field. */
    public static final int CLASS_SPECIFIC_OFFSET = 6;
    /** Offset of the transaction ID. */
    public static final int TRANSACTION_ID_OFFSET = 8;
    /** Offset of the attribute ID. */
    public static final int ATTRIBUTE_ID_OFFSET = 16;
    /** Offset of the reserved field. */
    public static final int RESERVED_OFFSET = 18;
    /** Offset of the attribute modifier. */
    public static final int ATTRIBUTE_MODIFIER_OFFSET = 20;

    /** Creates an unwrapped flyweight. */
    public MadHeaderFlyweight() {
    }

    @Override
    public MadHeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the base version */
    public int baseVersion() {
        return NetworkOrder.u8(buffer, offset + BASE_VERSION_OFFSET);
    }

    /**
     * @param value the base version
     * @return this
     */
    public MadHeaderFlyweight baseVersion(int value) {
        NetworkOrder.putU8(buffer, offset + BASE_VERSION_OFFSET, value);
        return this;
    }

    /** @return the management class */
    public int mgmtClass() {
        return NetworkOrder.u8(buffer, offset + MGMT_CLASS_OFFSET);
    }

    /**
     * @param value the management class
     * @return this
     */
    public MadHeaderFlyweight mgmtClass(int value) {
        NetworkOrder.putU8(buffer, offset + MGMT_CLASS_OFFSET, value);
        return this;
    }

    /** @return the class version */
    public int classVersion() {
        return NetworkOrder.u8(buffer, offset + CLASS_VERSION_OFFSET);
    }

    /**
     * @param value the class version
     * @return this
     */
    public MadHeaderFlyweight classVersion(int value) {
        NetworkOrder.putU8(buffer, offset + CLASS_VERSION_OFFSET, value);
        return this;
    }

    /** @return the method octet, R bit included */
    public int method() {
        return NetworkOrder.u8(buffer, offset + METHOD_OFFSET);
    }

    /**
     * @param value the method octet, R bit included
     * @return this
     */
    public MadHeaderFlyweight method(int value) {
        NetworkOrder.putU8(buffer, offset + METHOD_OFFSET, value);
        return this;
    }

    /** @return the R bit: this MAD answers another */
    public boolean response() {
        return (method() & RESPONSE_BIT) != 0;
    }

    /** @return the status */
    public int status() {
        return NetworkOrder.u16(buffer, offset + STATUS_OFFSET);
    }

    /**
     * @param value the status
     * @return this
     */
    public MadHeaderFlyweight status(int value) {
        NetworkOrder.putU16(buffer, offset + STATUS_OFFSET, value);
        return this;
    }

    /** @return the class-specific field */
    public int classSpecific() {
        return NetworkOrder.u16(buffer, offset + CLASS_SPECIFIC_OFFSET);
    }

    /**
     * @param value the class-specific field
     * @return this
     */
    public MadHeaderFlyweight classSpecific(int value) {
        NetworkOrder.putU16(buffer, offset + CLASS_SPECIFIC_OFFSET, value);
        return this;
    }

    /** @return the transaction ID */
    public long transactionId() {
        return NetworkOrder.i64(buffer, offset + TRANSACTION_ID_OFFSET);
    }

    /**
     * @param value the transaction ID
     * @return this
     */
    public MadHeaderFlyweight transactionId(long value) {
        NetworkOrder.putI64(buffer, offset + TRANSACTION_ID_OFFSET, value);
        return this;
    }

    /** @return the attribute ID */
    public int attributeId() {
        return NetworkOrder.u16(buffer, offset + ATTRIBUTE_ID_OFFSET);
    }

    /**
     * @param value the attribute ID
     * @return this
     */
    public MadHeaderFlyweight attributeId(int value) {
        NetworkOrder.putU16(buffer, offset + ATTRIBUTE_ID_OFFSET, value);
        return this;
    }

    /** @return the reserved field after the attribute ID, 0 on the wire */
    public int reserved() {
        return NetworkOrder.u16(buffer, offset + RESERVED_OFFSET);
    }

    /**
     * @param value the reserved field
     * @return this
     */
    public MadHeaderFlyweight reserved(int value) {
        NetworkOrder.putU16(buffer, offset + RESERVED_OFFSET, value);
        return this;
    }

    /** @return the attribute modifier */
    public int attributeModifier() {
        return NetworkOrder.i32(buffer, offset + ATTRIBUTE_MODIFIER_OFFSET);
    }

    /**
     * @param value the attribute modifier
     * @return this
     */
    public MadHeaderFlyweight attributeModifier(int value) {
        NetworkOrder.putI32(buffer, offset + ATTRIBUTE_MODIFIER_OFFSET, value);
        return this;
    }

    /**
     * Writes the header every CM message carries: base version 1, class CM, class version 2, method Send, status
     * and class-specific 0.
     *
     * @param attribute the message
     * @param transactionId the transaction ID
     * @return this
     */
    public MadHeaderFlyweight cm(CmAttribute attribute, long transactionId) {
        clear();
        return baseVersion(BASE_VERSION).mgmtClass(MGMT_CLASS_CM).classVersion(CM_CLASS_VERSION).method(METHOD_SEND)
            .transactionId(transactionId).attributeId(attribute.id());
    }
}
