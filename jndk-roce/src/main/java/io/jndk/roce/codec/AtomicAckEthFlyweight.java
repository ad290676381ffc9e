package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 8-octet Atomic Acknowledge Extended Transport Header (IBTA vol. 1 section 9.3.8): the value
 * the target held before the atomic operation, after the AETH of an Atomic Acknowledge.
 */
public final class AtomicAckEthFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 8;

    /** Creates an unwrapped flyweight. */
    public AtomicAckEthFlyweight() {
    }

    @Override
    public AtomicAckEthFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the original remote data */
    public long originalData() {
        return NetworkOrder.i64(buffer, offset);
    }

    /**
     * @param value the original remote data
     * @return this
     */
    public AtomicAckEthFlyweight originalData(long value) {
        NetworkOrder.putI64(buffer, offset, value);
        return this;
    }
}
