package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Common part of every flyweight of this package and of {@code io.jndk.roce.mad}: a buffer and the index of the
 * header's first octet. Wrapping allocates nothing; getters and setters use absolute indices in network byte order
 * and never move the buffer's position or limit. A flyweight does no bounds checking of its own beyond the
 * buffer's: decoders check lengths before they wrap.
 */
public abstract class HeaderFlyweight {

    /** The wrapped buffer. */
    protected ByteBuffer buffer;
    /** Index of the header's first octet. */
    protected int offset;

    /** Creates an unwrapped flyweight. */
    protected HeaderFlyweight() {
    }

    /**
     * @param buffer the buffer
     * @param offset index of the header's first octet
     * @return this
     */
    public HeaderFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public final ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the header's first octet */
    public final int offset() {
        return offset;
    }

    /** @return the header's fixed length in octets */
    public abstract int length();

    /** Sets every octet of the header to zero. */
    public final void clear() {
        for (int i = 0; i < length(); i++) {
            buffer.put(offset + i, (byte) 0);
        }
    }
}
