package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 8-octet Datagram Extended Transport Header (IBTA vol. 1 section 9.3.2, figure 129) of UD
 * packets.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                            Q_Key                              |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |   Reserved    |              SrcQP (24 bits)                  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>GSI traffic (QP1) uses the well-known Q_Key {@link #GSI_QKEY}.
 */
public final class DethFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 8;
    /** Offset of the Q_Key. */
    public static final int QKEY_OFFSET = 0;
    /** Offset of the reserved octet. */
    public static final int RESERVED_OFFSET = 4;
    /** Offset of the 24-bit source QP. */
    public static final int SRC_QP_OFFSET = 5;
    /** The Q_Key of the general services interface, QP1 (IBTA 13.5.3). */
    public static final int GSI_QKEY = 0x80010000;

    /** Creates an unwrapped flyweight. */
    public DethFlyweight() {
    }

    @Override
    public DethFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the queue key */
    public int qkey() {
        return NetworkOrder.i32(buffer, offset + QKEY_OFFSET);
    }

    /**
     * @param qkey the queue key
     * @return this
     */
    public DethFlyweight qkey(int qkey) {
        NetworkOrder.putI32(buffer, offset + QKEY_OFFSET, qkey);
        return this;
    }

    /** @return the reserved octet, 0 on the wire */
    public int reserved() {
        return NetworkOrder.u8(buffer, offset + RESERVED_OFFSET);
    }

    /**
     * @param value the reserved octet
     * @return this
     */
    public DethFlyweight reserved(int value) {
        NetworkOrder.putU8(buffer, offset + RESERVED_OFFSET, value);
        return this;
    }

    /** @return the 24-bit source QP number */
    public int srcQp() {
        return NetworkOrder.u24(buffer, offset + SRC_QP_OFFSET);
    }

    /**
     * @param qpn the source QP number (low 24 bits)
     * @return this
     */
    public DethFlyweight srcQp(int qpn) {
        NetworkOrder.putU24(buffer, offset + SRC_QP_OFFSET, qpn);
        return this;
    }
}
