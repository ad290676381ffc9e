package io.jndk.roce.rc;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The local side of a work request: a gather list (SEND, WRITE) or a scatter list (READ, receive) seen as one run
 * of {@link #length()} octets. The provider backs it with registered memory and its local access checks; the core
 * only copies between it and packet buffers, at offsets in {@code [0, length())}.
 */
public interface LocalBuffer {

    /** @return the total length in octets */
    int length();

    /**
     * Copies local octets into a packet (gather).
     *
     * @param offset offset in this buffer
     * @param dst the packet buffer
     * @param dstIndex absolute index in {@code dst}
     * @param length how many octets
     */
    void copyOut(int offset, ByteBuffer dst, int dstIndex, int length);

    /**
     * Copies packet octets into local memory (scatter).
     *
     * @param offset offset in this buffer
     * @param src the packet buffer
     * @param srcIndex absolute index in {@code src}
     * @param length how many octets
     */
    void copyIn(int offset, ByteBuffer src, int srcIndex, int length);

    /**
     * @param memory a buffer; its octets from position to limit become the local buffer (shared, not copied)
     * @return a local buffer over them
     */
    static LocalBuffer wrap(ByteBuffer memory) {
        return new ByteBufferLocalBuffer(memory.slice());
    }

    /** A {@link LocalBuffer} over one {@link ByteBuffer}, with bounds checks on every copy. */
    final class ByteBufferLocalBuffer implements LocalBuffer {
        private final ByteBuffer memory;

        ByteBufferLocalBuffer(ByteBuffer memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
        }

        @Override
        public int length() {
            return memory.limit();
        }

        @Override
        public void copyOut(int offset, ByteBuffer dst, int dstIndex, int length) {
            Objects.checkFromIndexSize(offset, length, memory.limit());
            dst.put(dstIndex, memory, offset, length);
        }

        @Override
        public void copyIn(int offset, ByteBuffer src, int srcIndex, int length) {
            Objects.checkFromIndexSize(offset, length, memory.limit());
            memory.put(offset, src, srcIndex, length);
        }
    }
}
