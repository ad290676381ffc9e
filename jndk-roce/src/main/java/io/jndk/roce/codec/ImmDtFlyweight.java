package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 4-octet Immediate Data Extended Transport Header (IBTA vol. 1 section 9.3.6) of the
 * "with immediate" SEND and RDMA WRITE packets: 32 bits handed to the receiver's completion as they are.
 */
public final class ImmDtFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 4;

    /** Creates an unwrapped flyweight. */
    public ImmDtFlyweight() {
    }

    @Override
    public ImmDtFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the immediate data, as it stands on the wire (big-endian) */
    public int immediate() {
        return NetworkOrder.i32(buffer, offset);
    }

    /**
     * @param value the immediate data
     * @return this
     */
    public ImmDtFlyweight immediate(int value) {
        NetworkOrder.putI32(buffer, offset, value);
        return this;
    }
}
