package io.jndk.api;

import java.lang.foreign.MemorySegment;

/**
 * {@code NDK_SGE}: one scatter/gather element (address, length, memory region token).
 *
 * <p>Mutable so that consumers can keep preallocated SGE arrays on the data path. The provider copies
 * what it needs during the posting call; the array may be reused as soon as the call returns.
 *
 * <p>{@link #address} is a virtual address inside a registered region (token = the region's local
 * token), or a logical address from {@link NdkAdapter#buildLam} when the token is the PD's privileged
 * token. The provider treats it as a number for bounds arithmetic and never dereferences it.
 *
 * <p>{@link #inlineSource} is jndk's form of the NDK rule for {@code NDK_OP_FLAG_INLINE}: the bytes of an
 * inline SGE are read from this segment (its first {@link #length} bytes) and the token is ignored,
 * because Java code cannot safely dereference a raw address.
 */
public final class NdkSge {
    /** Virtual (or logical) address of the first byte. */
    public long address;
    /** Length in bytes (a C {@code ULONG}: treated as unsigned 32-bit). */
    public int length;
    /** Local token of the region ({@code MemoryRegionToken}), or the privileged token. */
    public int token;
    /** The bytes of an inline SGE; only read with {@code NDK_OP_FLAG_INLINE}. */
    public MemorySegment inlineSource;

    /** An empty SGE. */
    public NdkSge() {}

    /** An SGE naming registered memory. */
    public NdkSge(long address, int length, int token) {
        set(address, length, token);
    }

    /** Sets address, length and token and clears the inline source; returns this. */
    public NdkSge set(long address, int length, int token) {
        this.address = address;
        this.length = length;
        this.token = token;
        this.inlineSource = null;
        return this;
    }

    /** An SGE for inline data: the provider copies {@code source} during the posting call. */
    public static NdkSge inline(MemorySegment source) {
        NdkSge s = new NdkSge(source.address(), (int) source.byteSize(), 0);
        s.inlineSource = source;
        return s;
    }

    @Override
    public String toString() {
        return String.format("NdkSge[va=0x%x, len=%d, token=0x%08x]", address, Integer.toUnsignedLong(length), token);
    }
}
