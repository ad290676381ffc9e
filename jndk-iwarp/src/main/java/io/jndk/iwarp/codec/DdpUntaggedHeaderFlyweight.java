package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 18-octet DDP untagged buffer model header (RFC 5041 section 4.3), used by the
 * Send family, RDMA Read Request and Terminate.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |T|L| Rsvd  |DV | RsvdULP[0:7]  |  RsvdULP[8:39] (Invalidate    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  STag or 0)                   |       Queue Number (QN)       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  QN (continued)               |  Message Sequence Number (MSN)|
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  MSN (continued)              |      Message Offset (MO)      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  MO (continued)               |  payload ...
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Offsets are relative to the DDP control octet (FPDU offset 2); all fields are big-endian.
 */
public final class DdpUntaggedHeaderFlyweight extends DdpHeaderFlyweight {

    /** Offset of RsvdULP[8:39]: 0 or the STag to invalidate. */
    public static final int RSVD_ULP_OFFSET = 2;
    /** Offset of the queue number. */
    public static final int QN_OFFSET = 6;
    /** Offset of the message sequence number. */
    public static final int MSN_OFFSET = 10;
    /** Offset of the message offset. */
    public static final int MO_OFFSET = 14;
    /** Header length. */
    public static final int LENGTH = 18;

    /** Creates an unwrapped flyweight. */
    public DdpUntaggedHeaderFlyweight() {
    }

    @Override
    public DdpUntaggedHeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return RsvdULP[8:39]: the Invalidate STag for Send with Invalidate, else reserved (0) */
    public int rsvdUlp() {
        return NetworkOrder.i32(buffer, offset + RSVD_ULP_OFFSET);
    }

    /**
     * @param value RsvdULP[8:39]
     * @return this
     */
    public DdpUntaggedHeaderFlyweight rsvdUlp(int value) {
        NetworkOrder.putI32(buffer, offset + RSVD_ULP_OFFSET, value);
        return this;
    }

    /** @return QN (unsigned 32-bit value in an int) */
    public int queueNumber() {
        return NetworkOrder.i32(buffer, offset + QN_OFFSET);
    }

    /**
     * @param qn QN
     * @return this
     */
    public DdpUntaggedHeaderFlyweight queueNumber(int qn) {
        NetworkOrder.putI32(buffer, offset + QN_OFFSET, qn);
        return this;
    }

    /** @return MSN (unsigned 32-bit value in an int) */
    public int msn() {
        return NetworkOrder.i32(buffer, offset + MSN_OFFSET);
    }

    /**
     * @param msn MSN
     * @return this
     */
    public DdpUntaggedHeaderFlyweight msn(int msn) {
        NetworkOrder.putI32(buffer, offset + MSN_OFFSET, msn);
        return this;
    }

    /** @return MO (unsigned 32-bit value in an int) */
    public int messageOffset() {
        return NetworkOrder.i32(buffer, offset + MO_OFFSET);
    }

    /**
     * @param mo MO
     * @return this
     */
    public DdpUntaggedHeaderFlyweight messageOffset(int mo) {
        NetworkOrder.putI32(buffer, offset + MO_OFFSET, mo);
        return this;
    }
}
