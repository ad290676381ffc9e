package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 14-octet DDP tagged buffer model header (RFC 5041 section 4.2), used by RDMA
 * Write and RDMA Read Response.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |T|L| Rsvd  |DV | RsvdULP[0:7]  |            STag               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |     STag (continued)          |                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+       Tagged Offset (64)      +
 *  |                                                               |
 *  +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                               |  payload ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Offsets are relative to the DDP control octet (FPDU offset 2); STag and TO are big-endian.
 */
public final class DdpTaggedHeaderFlyweight extends DdpHeaderFlyweight {

    /** Offset of the Data Sink STag. */
    public static final int STAG_OFFSET = 2;
    /** Offset of the 64-bit Data Sink Tagged Offset. */
    public static final int TO_OFFSET = 6;
    /** Header length. */
    public static final int LENGTH = 14;

    /** Creates an unwrapped flyweight. */
    public DdpTaggedHeaderFlyweight() {
    }

    @Override
    public DdpTaggedHeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the Data Sink STag */
    public int stag() {
        return NetworkOrder.i32(buffer, offset + STAG_OFFSET);
    }

    /**
     * @param stag the Data Sink STag
     * @return this
     */
    public DdpTaggedHeaderFlyweight stag(int stag) {
        NetworkOrder.putI32(buffer, offset + STAG_OFFSET, stag);
        return this;
    }

    /** @return the Data Sink Tagged Offset of this segment's first payload octet */
    public long taggedOffset() {
        return NetworkOrder.i64(buffer, offset + TO_OFFSET);
    }

    /**
     * @param to the Data Sink Tagged Offset
     * @return this
     */
    public DdpTaggedHeaderFlyweight taggedOffset(long to) {
        NetworkOrder.putI64(buffer, offset + TO_OFFSET, to);
        return this;
    }
}
