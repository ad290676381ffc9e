package io.jndk.api;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A memory descriptor list: a chain of native {@link MemorySegment}s.
 *
 * <p>The virtual address of an MDL is the real address of its first byte
 * ({@code MmGetMdlVirtualAddress}). RegisterMr and BuildLAM require the chain to be virtually contiguous
 * over the registered length: each next segment starts where the previous one ended. Heap segments have
 * no stable address and are refused.
 */
public final class Mdl {
    private final List<MemorySegment> segments;

    private Mdl(List<MemorySegment> segments) {
        this.segments = segments;
    }

    /** An MDL of one native segment. */
    public static Mdl of(MemorySegment segment) {
        return chain(List.of(segment));
    }

    /** An MDL chain; every segment must be native. */
    public static Mdl chain(List<MemorySegment> segments) {
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("an MDL chain needs at least one segment");
        }
        for (MemorySegment s : segments) {
            if (!s.isNative()) {
                throw new IllegalArgumentException("MDL segments must be native memory (heap memory has no stable address)");
            }
        }
        return new Mdl(Collections.unmodifiableList(new ArrayList<>(segments)));
    }

    /** An MDL chain of the given segments. */
    public static Mdl chain(MemorySegment... segments) {
        return chain(List.of(segments));
    }

    /** The segments of the chain, in order. */
    public List<MemorySegment> segments() {
        return segments;
    }

    /** The virtual address of the first byte: the first segment's real address. */
    public long virtualAddress() {
        return segments.getFirst().address();
    }

    /** Total bytes described by the chain. */
    public long byteCount() {
        long n = 0;
        for (MemorySegment s : segments) {
            n += s.byteSize();
        }
        return n;
    }

    /** True when the first {@code length} bytes of the chain are virtually contiguous. */
    public boolean isVirtuallyContiguous(long length) {
        long expect = virtualAddress();
        long covered = 0;
        for (MemorySegment s : segments) {
            if (covered >= length) {
                return true;
            }
            if (s.address() != expect) {
                return false;
            }
            expect += s.byteSize();
            covered += s.byteSize();
        }
        return covered >= length;
    }

    @Override
    public String toString() {
        return String.format("Mdl[va=0x%x, segments=%d, bytes=%d]", virtualAddress(), segments.size(), byteCount());
    }
}
