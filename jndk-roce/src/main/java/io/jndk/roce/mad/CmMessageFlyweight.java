package io.jndk.roce.mad;

import io.jndk.roce.codec.HeaderFlyweight;
import io.jndk.roce.codec.NetworkOrder;
import java.nio.ByteBuffer;

/**
 * Common part of the CM message flyweights: a whole 256-octet MAD, its common header, the local communication ID
 * every CM message starts with, and the private data that ends it. Field offsets in the subclasses are relative
 * to the CM data, which starts after the MAD header ({@link #DATA_OFFSET}), exactly as the IBTA tables give them
 * (section 12.6); bit fields are named by their octet, mask and shift, bit 7 being the most significant.
 */
public abstract class CmMessageFlyweight extends HeaderFlyweight {

    /** Offset of the CM data within the MAD. */
    public static final int DATA_OFFSET = MadHeaderFlyweight.LENGTH;
    /** Length of the CM data. */
    public static final int DATA_LENGTH = MadHeaderFlyweight.MAD_LENGTH - DATA_OFFSET;
    /** CM offset of the local communication ID. */
    public static final int LOCAL_COMM_ID = 0;

    private final MadHeaderFlyweight header = new MadHeaderFlyweight();
    private final CmAttribute attribute;
    private final int privateDataOffset;

    /**
     * Creates an unwrapped flyweight.
     *
     * @param attribute the message this flyweight reads
     * @param privateDataOffset the CM offset of its private data
     */
    protected CmMessageFlyweight(CmAttribute attribute, int privateDataOffset) {
        this.attribute = attribute;
        this.privateDataOffset = privateDataOffset;
    }

    @Override
    public CmMessageFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        header.wrap(buffer, offset);
        return this;
    }

    /** @return the MAD's length, 256 */
    @Override
    public int length() {
        return MadHeaderFlyweight.MAD_LENGTH;
    }

    /** @return the message's attribute */
    public final CmAttribute attribute() {
        return attribute;
    }

    /** @return the CM offset of the private data */
    public final int privateDataOffset() {
        return privateDataOffset;
    }

    /** @return the private data's length */
    public final int privateDataLength() {
        return DATA_LENGTH - privateDataOffset();
    }

    /** @return the MAD header */
    public final MadHeaderFlyweight header() {
        return header;
    }

    /**
     * Clears the whole MAD and writes a CM header for this message.
     *
     * @param transactionId the transaction ID
     * @return the MAD header
     */
    public final MadHeaderFlyweight initialize(long transactionId) {
        clear();
        return header.cm(attribute(), transactionId);
    }

    /** @return the local communication ID */
    public final int localCommId() {
        return i32(LOCAL_COMM_ID);
    }

    /**
     * @param id the local communication ID
     */
    public final void localCommId(int id) {
        putI32(LOCAL_COMM_ID, id);
    }

    /** @return the buffer index of the private data's first octet */
    public final int privateDataIndex() {
        return offset + DATA_OFFSET + privateDataOffset();
    }

    /**
     * @param dst receives the whole private data
     * @param dstOffset where in {@code dst}
     */
    public final void getPrivateData(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, privateDataIndex(), dst, dstOffset, privateDataLength());
    }

    /**
     * Writes the private data; the rest of the field is zeroed.
     *
     * @param src the private data
     * @param srcOffset where in {@code src}
     * @param length how many octets, at most {@link #privateDataLength()}
     * @throws IllegalArgumentException if {@code length} exceeds the field
     */
    public final void putPrivateData(byte[] src, int srcOffset, int length) {
        if (length < 0 || length > privateDataLength()) {
            throw new IllegalArgumentException(attribute() + " private data holds " + privateDataLength() + " octets, not " + length);
        }
        NetworkOrder.copyIn(buffer, privateDataIndex(), src, srcOffset, length);
        for (int i = length; i < privateDataLength(); i++) {
            buffer.put(privateDataIndex() + i, (byte) 0);
        }
    }

    /**
     * @param cm a CM offset
     * @return the octet there
     */
    protected final int u8(int cm) {
        return NetworkOrder.u8(buffer, offset + DATA_OFFSET + cm);
    }

    /**
     * @param cm a CM offset
     * @param value the octet
     */
    protected final void putU8(int cm, int value) {
        NetworkOrder.putU8(buffer, offset + DATA_OFFSET + cm, value);
    }

    /**
     * @param cm a CM offset
     * @return the 16-bit value there
     */
    protected final int u16(int cm) {
        return NetworkOrder.u16(buffer, offset + DATA_OFFSET + cm);
    }

    /**
     * @param cm a CM offset
     * @param value the 16-bit value
     */
    protected final void putU16(int cm, int value) {
        NetworkOrder.putU16(buffer, offset + DATA_OFFSET + cm, value);
    }

    /**
     * @param cm a CM offset
     * @return the 24-bit value there
     */
    protected final int u24(int cm) {
        return NetworkOrder.u24(buffer, offset + DATA_OFFSET + cm);
    }

    /**
     * @param cm a CM offset
     * @param value the 24-bit value
     */
    protected final void putU24(int cm, int value) {
        NetworkOrder.putU24(buffer, offset + DATA_OFFSET + cm, value);
    }

    /**
     * @param cm a CM offset
     * @return the 32-bit value there
     */
    protected final int i32(int cm) {
        return NetworkOrder.i32(buffer, offset + DATA_OFFSET + cm);
    }

    /**
     * @param cm a CM offset
     * @param value the 32-bit value
     */
    protected final void putI32(int cm, int value) {
        NetworkOrder.putI32(buffer, offset + DATA_OFFSET + cm, value);
    }

    /**
     * @param cm a CM offset
     * @return the 64-bit value there
     */
    protected final long i64(int cm) {
        return NetworkOrder.i64(buffer, offset + DATA_OFFSET + cm);
    }

    /**
     * @param cm a CM offset
     * @param value the 64-bit value
     */
    protected final void putI64(int cm, long value) {
        NetworkOrder.putI64(buffer, offset + DATA_OFFSET + cm, value);
    }

    /**
     * @param cm the CM offset of the octet
     * @param mask the field's bits
     * @param shift the field's lowest bit
     * @return the field
     */
    protected final int bits(int cm, int mask, int shift) {
        return NetworkOrder.bits(buffer, offset + DATA_OFFSET + cm, mask, shift);
    }

    /**
     * @param cm the CM offset of the octet
     * @param mask the field's bits
     * @param shift the field's lowest bit
     * @param value the field's value
     */
    protected final void putBits(int cm, int mask, int shift, int value) {
        NetworkOrder.putBits(buffer, offset + DATA_OFFSET + cm, mask, shift, value);
    }
}
