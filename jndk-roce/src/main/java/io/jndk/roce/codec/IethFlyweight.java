package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 4-octet Invalidate Extended Transport Header (IBTA vol. 1 section 9.3.7) of SEND Last/Only
 * with Invalidate: the R_Key the responder invalidates.
 */
public final class IethFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 4;

    /** Creates an unwrapped flyweight. */
    public IethFlyweight() {
    }

    @Override
    public IethFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the R_Key to invalidate */
    public int rkey() {
        return NetworkOrder.i32(buffer, offset);
    }

    /**
     * @param rkey the R_Key to invalidate
     * @return this
     */
    public IethFlyweight rkey(int rkey) {
        NetworkOrder.putI32(buffer, offset, rkey);
        return this;
    }
}
