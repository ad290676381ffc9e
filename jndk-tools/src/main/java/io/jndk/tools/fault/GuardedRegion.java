package io.jndk.tools.fault;

import io.jndk.api.Mdl;
import io.jndk.api.NdkSge;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * Native memory for a fault session with guard bytes on both sides, a copy of its initial content, and a record
 * of which bytes were handed to the provider to write (posted receives, read sinks, bound windows, write
 * targets): every other byte must keep its initial value whatever happens on the wire.
 */
final class GuardedRegion {
    static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0xA5;
    private final MemorySegment whole;
    private final MemorySegment data;
    private final byte[] initial;
    private final BitSet granted = new BitSet();
    private byte[] frozen;

    /** {@code size} bytes, random content from {@code seed} (or zeros when {@code seed} is 0). */
    GuardedRegion(Arena arena, int size, long seed) {
        whole = arena.allocate(size + 2L * GUARD, 64);
        whole.fill(GUARD_BYTE);
        data = whole.asSlice(GUARD, size);
        initial = new byte[size];
        if (seed != 0) {
            new SplittableRandom(seed).nextBytes(initial);
        }
        MemorySegment.copy(initial, 0, data, ValueLayout.JAVA_BYTE, 0, size);
    }

    Mdl mdl() {
        return Mdl.of(data);
    }

    int size() {
        return initial.length;
    }

    long address(int offset) {
        return data.address() + offset;
    }

    NdkSge sge(int offset, int length, int token) {
        return new NdkSge(data.address() + offset, length, token);
    }

    /** Records that the provider may write {@code [offset, offset + length)}. */
    void grant(int offset, int length) {
        granted.set(offset, offset + length);
    }

    /** @return whether {@code length} bytes at {@code offset} equal {@code other}'s initial bytes at {@code from} */
    boolean holds(int offset, GuardedRegion other, int from, int length) {
        return data.asSlice(offset, length).mismatch(MemorySegment.ofArray(other.initial).asSlice(from, length)) < 0;
    }

    /** @return whether each of {@code length} bytes at {@code offset} holds its initial value or {@code other}'s */
    boolean holdsOrUnchanged(int offset, GuardedRegion other, int from, int length) {
        for (int i = 0; i < length; i++) {
            byte b = data.get(ValueLayout.JAVA_BYTE, offset + i);
            if (b != initial[offset + i] && b != other.initial[from + i]) {
                return false;
            }
        }
        return true;
    }

    /** @return whether {@code length} bytes at {@code offset} still hold their initial value */
    boolean unchanged(int offset, int length) {
        return holds(offset, this, offset, length);
    }

    /** Remembers the current content (at teardown: nothing may change it afterwards). */
    void freeze() {
        frozen = data.toArray(ValueLayout.JAVA_BYTE);
    }

    /** @return whether a byte changed since {@link #freeze()} */
    boolean changedSinceFreeze() {
        return frozen != null && data.mismatch(MemorySegment.ofArray(frozen)) >= 0;
    }

    /**
     * @param name how to call the region in the message
     * @return null when both guards and every byte never granted are intact, else what is wrong
     */
    String damage(String name) {
        for (long i = 0; i < GUARD; i++) {
            if (whole.get(ValueLayout.JAVA_BYTE, i) != GUARD_BYTE
                || whole.get(ValueLayout.JAVA_BYTE, whole.byteSize() - 1 - i) != GUARD_BYTE) {
                return name + ": guard byte written";
            }
        }
        for (int i = granted.nextClearBit(0); i < initial.length; i = granted.nextClearBit(i + 1)) {
            if (data.get(ValueLayout.JAVA_BYTE, i) != initial[i]) {
                return name + ": byte " + i + " changed although never granted";
            }
        }
        return null;
    }
}
