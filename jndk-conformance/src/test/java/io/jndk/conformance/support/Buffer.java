package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.Mdl;
import io.jndk.api.NdkSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Native memory for a test, with guard bytes on both sides that the provider must never touch.
 * {@link #assertGuardsIntact()} checks them.
 */
public final class Buffer {
    public static final int GUARD = 64;
    private static final byte PATTERN = (byte) 0xA5;
    private final MemorySegment whole;
    private final MemorySegment data;

    private Buffer(Arena arena, long size, long align) {
        whole = arena.allocate(size + 2L * GUARD, align);
        whole.fill(PATTERN);
        data = whole.asSlice(GUARD, size);
        data.fill((byte) 0);
    }

    /** A buffer of {@code size} bytes (the data itself 64-byte aligned). */
    public static Buffer allocate(Arena arena, long size) {
        return new Buffer(arena, size, 64);
    }

    /** A buffer whose data starts on a 4096-byte page boundary plus {@code offset}. */
    public static Buffer pageAligned(Arena arena, long size, int offset) {
        MemorySegment raw = arena.allocate(size + 2L * GUARD + 8192 + offset, 4096);
        long start = 4096 - GUARD + offset;
        return new Buffer(raw.asSlice(start - 0, size + 2L * GUARD));
    }

    private Buffer(MemorySegment whole) {
        this.whole = whole;
        whole.fill(PATTERN);
        data = whole.asSlice(GUARD, whole.byteSize() - 2L * GUARD);
        data.fill((byte) 0);
    }

    public MemorySegment segment() {
        return data;
    }

    public long address() {
        return data.address();
    }

    public long size() {
        return data.byteSize();
    }

    public Mdl mdl() {
        return Mdl.of(data);
    }

    /** An SGE over {@code [offset, offset+len)} of this buffer with {@code token}. */
    public NdkSge sge(long offset, int len, int token) {
        return new NdkSge(address() + offset, len, token);
    }

    /** Fills the data with a seeded pseudo-random pattern. */
    public Buffer fillRandom(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < data.byteSize(); i++) {
            data.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt(256));
        }
        return this;
    }

    public Buffer fill(byte b) {
        data.fill(b);
        return this;
    }

    /** Asserts that no byte outside the data was written. */
    public void assertGuardsIntact() {
        for (long i = 0; i < GUARD; i++) {
            assertThat(whole.get(ValueLayout.JAVA_BYTE, i)).as("guard byte %d before the buffer", GUARD - i).isEqualTo(PATTERN);
            assertThat(whole.get(ValueLayout.JAVA_BYTE, whole.byteSize() - 1 - i)).as("guard byte %d after the buffer", i)
                    .isEqualTo(PATTERN);
        }
    }

    /** Asserts {@code len} bytes at {@code off} equal {@code other} at {@code otherOff}. */
    public void assertSame(long off, Buffer other, long otherOff, long len) {
        // RDMA places asynchronously: a Write is complete at its sender before the bytes are at the target (RDMAP
        // rule 9), so wait (bounded) for the bytes before judging them
        Kit.awaitTrueOrTimeout(() -> data.asSlice(off, len).mismatch(other.data.asSlice(otherOff, len)) == -1);
        long mismatch = data.asSlice(off, len).mismatch(other.data.asSlice(otherOff, len));
        assertThat(mismatch).as("first differing byte").isEqualTo(-1L);
    }

    /** Asserts every byte of {@code [off, off+len)} is {@code b}. */
    public void assertFilled(long off, long len, byte b) {
        for (long i = off; i < off + len; i++) {
            assertThat(data.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(b);
        }
    }
}
