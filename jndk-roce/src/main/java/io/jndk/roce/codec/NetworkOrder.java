package io.jndk.roce.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute big-endian accessors (and little-endian ones for the ICRC trailer) that ignore the
 * {@link ByteBuffer#order()} of the buffer and never move its position or limit, plus the bit-field helpers the
 * InfiniBand layouts need: a field is named by the index of the octet holding its most significant bit, a mask
 * and a shift, exactly as the IBTA tables draw it (bit 7 of an octet is its most significant bit).
 */
public final class NetworkOrder {

    private static final VarHandle BE_SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LE_INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private NetworkOrder() {
    }

    /**
     * @param buffer the buffer
     * @param index the octet's index
     * @return the unsigned octet
     */
    public static int u8(ByteBuffer buffer, int index) {
        return buffer.get(index) & 0xFF;
    }

    /**
     * @param buffer the buffer
     * @param index the octet's index
     * @param value the octet (low 8 bits)
     */
    public static void putU8(ByteBuffer buffer, int index, int value) {
        buffer.put(index, (byte) value);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @return the unsigned big-endian 16-bit value
     */
    public static int u16(ByteBuffer buffer, int index) {
        return ((short) BE_SHORT.get(buffer, index)) & 0xFFFF;
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @param value the value (low 16 bits)
     */
    public static void putU16(ByteBuffer buffer, int index, int value) {
        BE_SHORT.set(buffer, index, (short) value);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @return the unsigned big-endian 24-bit value
     */
    public static int u24(ByteBuffer buffer, int index) {
        return (u8(buffer, index) << 16) | u16(buffer, index + 1);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @param value the value (low 24 bits)
     */
    public static void putU24(ByteBuffer buffer, int index, int value) {
        putU8(buffer, index, value >>> 16);
        putU16(buffer, index + 1, value);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @return the big-endian 32-bit value
     */
    public static int i32(ByteBuffer buffer, int index) {
        return (int) BE_INT.get(buffer, index);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @param value the value
     */
    public static void putI32(ByteBuffer buffer, int index, int value) {
        BE_INT.set(buffer, index, value);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @return the big-endian 64-bit value
     */
    public static long i64(ByteBuffer buffer, int index) {
        return (long) BE_LONG.get(buffer, index);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @param value the value
     */
    public static void putI64(ByteBuffer buffer, int index, long value) {
        BE_LONG.set(buffer, index, value);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @return the little-endian 32-bit value
     */
    public static int leI32(ByteBuffer buffer, int index) {
        return (int) LE_INT.get(buffer, index);
    }

    /**
     * @param buffer the buffer
     * @param index the first octet's index
     * @param value the value, written little-endian
     */
    public static void putLeI32(ByteBuffer buffer, int index, int value) {
        LE_INT.set(buffer, index, value);
    }

    /**
     * @param buffer the buffer
     * @param index the octet holding the field
     * @param mask the field's bits within the octet
     * @param shift the position of the field's least significant bit
     * @return the field, right-aligned
     */
    public static int bits(ByteBuffer buffer, int index, int mask, int shift) {
        return (u8(buffer, index) & mask) >>> shift;
    }

    /**
     * Writes a field of an octet and leaves its other bits as they were.
     *
     * @param buffer the buffer
     * @param index the octet holding the field
     * @param mask the field's bits within the octet
     * @param shift the position of the field's least significant bit
     * @param value the field's value; bits beyond its width are dropped
     */
    public static void putBits(ByteBuffer buffer, int index, int mask, int shift, int value) {
        putU8(buffer, index, (u8(buffer, index) & ~mask) | ((value << shift) & mask));
    }

    /**
     * Copies octets out of the buffer without moving its position.
     *
     * @param buffer the buffer
     * @param index the first octet's index
     * @param dst the destination
     * @param dstOffset where in {@code dst} to start
     * @param length how many octets
     */
    public static void copyOut(ByteBuffer buffer, int index, byte[] dst, int dstOffset, int length) {
        buffer.get(index, dst, dstOffset, length);
    }

    /**
     * Copies octets into the buffer without moving its position.
     *
     * @param buffer the buffer
     * @param index the first octet's index
     * @param src the source
     * @param srcOffset where in {@code src} to start
     * @param length how many octets
     */
    public static void copyIn(ByteBuffer buffer, int index, byte[] src, int srcOffset, int length) {
        buffer.put(index, src, srcOffset, length);
    }
}
