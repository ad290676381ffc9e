package io.jndk.iwarp.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute big-endian (and, for the CRC trailer only, little-endian) accessors that ignore the
 * {@link ByteBuffer#order()} of the buffer and never move its position or limit.
 */
final class NetworkOrder {

    private static final VarHandle BE_SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE_LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LE_INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private NetworkOrder() {
    }

    static int u8(ByteBuffer buffer, int index) {
        return buffer.get(index) & 0xFF;
    }

    static void putU8(ByteBuffer buffer, int index, int value) {
        buffer.put(index, (byte) value);
    }

    static int u16(ByteBuffer buffer, int index) {
        return ((short) BE_SHORT.get(buffer, index)) & 0xFFFF;
    }

    static void putU16(ByteBuffer buffer, int index, int value) {
        BE_SHORT.set(buffer, index, (short) value);
    }

    static int i32(ByteBuffer buffer, int index) {
        return (int) BE_INT.get(buffer, index);
    }

    static void putI32(ByteBuffer buffer, int index, int value) {
        BE_INT.set(buffer, index, value);
    }

    static long i64(ByteBuffer buffer, int index) {
        return (long) BE_LONG.get(buffer, index);
    }

    static void putI64(ByteBuffer buffer, int index, long value) {
        BE_LONG.set(buffer, index, value);
    }

    static int leI32(ByteBuffer buffer, int index) {
        return (int) LE_INT.get(buffer, index);
    }

    static void putLeI32(ByteBuffer buffer, int index, int value) {
        LE_INT.set(buffer, index, value);
    }
}
