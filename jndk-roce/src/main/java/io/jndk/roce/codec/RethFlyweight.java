package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 16-octet RDMA Extended Transport Header (IBTA vol. 1 section 9.3.3, figure 130) of RDMA WRITE
 * First/Only and RDMA READ Request packets.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Virtual Address (64)                      |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                            R_Key                              |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          DMA Length                           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class RethFlyweight extends RemoteAccessFlyweight<RethFlyweight> {

    /** Header length. */
    public static final int LENGTH = 16;
    /** Offset of the DMA length. */
    public static final int DMA_LENGTH_OFFSET = 12;

    /** Creates an unwrapped flyweight. */
    public RethFlyweight() {
    }

    @Override
    public RethFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    @Override
    protected RethFlyweight self() {
        return this;
    }

    /** @return the DMA length of the whole message (unsigned 32 bits in an int) */
    public int dmaLength() {
        return NetworkOrder.i32(buffer, offset + DMA_LENGTH_OFFSET);
    }

    /**
     * @param length the DMA length of the whole message
     * @return this
     */
    public RethFlyweight dmaLength(int length) {
        NetworkOrder.putI32(buffer, offset + DMA_LENGTH_OFFSET, length);
        return this;
    }
}
