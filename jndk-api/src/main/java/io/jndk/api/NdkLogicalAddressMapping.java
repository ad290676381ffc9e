package io.jndk.api;

/**
 * {@code NDK_LOGICAL_ADDRESS_MAPPING} (LAM): the adapter logical page addresses of an MDL range, built by
 * {@link NdkAdapter#buildLam} and released by {@link NdkAdapter#releaseLam}.
 *
 * <p>The consumer must not modify it. Each page is {@link #PAGE_SIZE} bytes and aligned; consecutive
 * entries need not be consecutive logical addresses.
 */
public final class NdkLogicalAddressMapping {
    /** {@code PAGE_SIZE}. */
    public static final int PAGE_SIZE = 4096;

    private Object adapterContext;
    private long[] adapterPageArray = new long[0];
    private int adapterPageCount;

    /** An empty mapping buffer with room for {@code capacityPages} pages (the C {@code pLAMSize}). */
    public NdkLogicalAddressMapping(int capacityPages) {
        this.adapterPageArray = new long[capacityPages];
    }

    /** Size in bytes of the x64 structure holding {@code pages} pages: 16 + 8 × pages. */
    public static int sizeFor(int pages) {
        return 16 + 8 * pages;
    }

    /** Capacity of this buffer in pages. */
    public int capacityPages() {
        return adapterPageArray.length;
    }

    /** Capacity of this buffer in bytes, as the C {@code *pLAMSize} input. */
    public int capacityBytes() {
        return sizeFor(adapterPageArray.length);
    }

    /** {@code AdapterContext}: provider-private. */
    public Object adapterContext() {
        return adapterContext;
    }

    /** {@code AdapterPageCount}. */
    public int adapterPageCount() {
        return adapterPageCount;
    }

    /** {@code AdapterPageArray[i]}: logical address of page {@code i}. */
    public long adapterPage(int i) {
        if (i < 0 || i >= adapterPageCount) {
            throw new IndexOutOfBoundsException(i);
        }
        return adapterPageArray[i];
    }

    /** A copy of the first {@link #adapterPageCount()} page addresses. */
    public long[] adapterPages() {
        return java.util.Arrays.copyOf(adapterPageArray, adapterPageCount);
    }

    /** Provider use only: fills the mapping. */
    public void fill(Object context, long[] pages, int count) {
        if (count > adapterPageArray.length) {
            throw new IllegalArgumentException("mapping buffer too small");
        }
        System.arraycopy(pages, 0, adapterPageArray, 0, count);
        this.adapterPageCount = count;
        this.adapterContext = context;
    }

    /** Provider use only: clears the mapping after release. */
    public void clear() {
        this.adapterContext = null;
        this.adapterPageCount = 0;
    }
}
