package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 28-octet RDMA Read Request header (RFC 5040 section 4.4) that follows the
 * untagged DDP header of opcode 1 (FPDU offset 20).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Data Sink STag                         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Data Sink Tagged Offset (64)                  |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  RDMA Read Message Size (32)                  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       Data Source STag                        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                Data Source Tagged Offset (64)                 |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>All fields are big-endian; offsets are relative to the first octet of the Data Sink STag.
 */
public final class ReadRequestFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int SINK_STAG_OFFSET = 0;
    /** Offset of the Data Sink Tagged Offset. */
    public static final int SINK_TO_OFFSET = 4;
    /** Offset of the RDMA Read Message Size. */
    public static final int SIZE_OFFSET = 12;
    /** Offset of the Data Source STag. */
    public static final int SOURCE_STAG_OFFSET = 16;
    /** Offset of the Data Source Tagged Offset. */
    public static final int SOURCE_TO_OFFSET = 20;
    /** Header length. */
    public static final int LENGTH = 28;

    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer the buffer
     * @param offset index of the Data Sink STag (DDP header start + 18)
     * @return this
     */
    public ReadRequestFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return Data Sink STag */
    public int sinkStag() {
        return NetworkOrder.i32(buffer, offset + SINK_STAG_OFFSET);
    }

    /**
     * @param stag Data Sink STag
     * @return this
     */
    public ReadRequestFlyweight sinkStag(int stag) {
        NetworkOrder.putI32(buffer, offset + SINK_STAG_OFFSET, stag);
        return this;
    }

    /** @return Data Sink Tagged Offset */
    public long sinkTaggedOffset() {
        return NetworkOrder.i64(buffer, offset + SINK_TO_OFFSET);
    }

    /**
     * @param to Data Sink Tagged Offset
     * @return this
     */
    public ReadRequestFlyweight sinkTaggedOffset(long to) {
        NetworkOrder.putI64(buffer, offset + SINK_TO_OFFSET, to);
        return this;
    }

    /** @return RDMA Read Message Size (unsigned 32-bit value in an int) */
    public int readSize() {
        return NetworkOrder.i32(buffer, offset + SIZE_OFFSET);
    }

    /**
     * @param size RDMA Read Message Size
     * @return this
     */
    public ReadRequestFlyweight readSize(int size) {
        NetworkOrder.putI32(buffer, offset + SIZE_OFFSET, size);
        return this;
    }

    /** @return Data Source STag */
    public int sourceStag() {
        return NetworkOrder.i32(buffer, offset + SOURCE_STAG_OFFSET);
    }

    /**
     * @param stag Data Source STag
     * @return this
     */
    public ReadRequestFlyweight sourceStag(int stag) {
        NetworkOrder.putI32(buffer, offset + SOURCE_STAG_OFFSET, stag);
        return this;
    }

    /** @return Data Source Tagged Offset */
    public long sourceTaggedOffset() {
        return NetworkOrder.i64(buffer, offset + SOURCE_TO_OFFSET);
    }

    /**
     * @param to Data Source Tagged Offset
     * @return this
     */
    public ReadRequestFlyweight sourceTaggedOffset(long to) {
        NetworkOrder.putI64(buffer, offset + SOURCE_TO_OFFSET, to);
        return this;
    }
}
