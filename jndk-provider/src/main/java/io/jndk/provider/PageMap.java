package io.jndk.provider;

import io.jndk.api.NdkLogicalAddressMapping;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The adapter's logical page table behind BuildLAM, privileged-token SGEs and FastRegister: adapter
 * logical page address → the host page, and which of its bytes are consumer memory.
 *
 * <p>Logical pages are handed out two slots apart, so consecutive pages of one mapping are never
 * adjacent in logical space (as NDK allows) and an SGE cannot run from one page into the next.
 */
final class PageMap {
    static final int PAGE = NdkLogicalAddressMapping.PAGE_SIZE;
    /** Logical addresses start here; page slot {@code i} is at {@code BASE + i * PAGE * 2}. */
    static final long BASE = 0x0000_4A4E_0000_0000L;

    /**
     * One logical page: bytes {@code [validStart, validEnd)} of the page are {@code segment} from {@code segOffset};
     * when the page straddles two segments of an MDL chain, {@code next} continues it from {@code validEnd}.
     */
    record Page(MemorySegment segment, long segOffset, int validStart, int validEnd, Object owner, Page next) {
        /** The first byte of consumer memory in the page. */
        int first() {
            return validStart;
        }

        /** One past the last byte of consumer memory in the page. */
        int end() {
            Page p = this;
            while (p.next != null) {
                p = p.next;
            }
            return p.validEnd;
        }

        /** The piece holding byte {@code in} of the page, or null. */
        Page piece(int in) {
            for (Page p = this; p != null; p = p.next) {
                if (in >= p.validStart && in < p.validEnd) {
                    return p;
                }
            }
            return null;
        }
    }

    private volatile Page[] pages = new Page[1024];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int next;
    private int live;
    private final int maxPages;

    PageMap(int maxPages) {
        this.maxPages = maxPages;
    }

    synchronized long map(Page p) {
        if (live >= maxPages) {
            return -1;
        }
        int slot = free.isEmpty() ? next++ : free.poll();
        if (slot >= pages.length) {
            Page[] n = new Page[pages.length * 2];
            System.arraycopy(pages, 0, n, 0, pages.length);
            pages = n;
        }
        pages[slot] = p;
        live++;
        return BASE + (long) slot * PAGE * 2;
    }

    synchronized void unmap(long logical) {
        int slot = slotOf(logical);
        if (slot >= 0 && pages[slot] != null) {
            pages[slot] = null;
            free.add(slot);
            live--;
        }
    }

    private int slotOf(long logical) {
        long d = logical - BASE;
        if (d < 0 || (d % ((long) PAGE * 2)) != 0) {
            return -1;
        }
        long slot = d / ((long) PAGE * 2);
        Page[] p = pages;
        return slot < p.length ? (int) slot : -1;
    }

    /** The page at a page-aligned logical address, or null. */
    Page page(long logicalPage) {
        int slot = slotOf(logicalPage);
        return slot < 0 ? null : pages[slot];
    }

    /**
     * Points {@code into} at {@code [logical, logical+len)} inside one page; false unless it is all consumer memory.
     * The region is the caller's reusable holder: nothing is allocated per access.
     */
    boolean regionAt(long logical, long len, Pages into) {
        long pageAddr = logical & ~(long) (PAGE - 1);
        int in = (int) (logical - pageAddr);
        Page p = page(pageAddr);
        if (p == null || len <= 0 || in < p.first() || in + len > p.end()) {
            return false;
        }
        into.pages[0] = p;
        into.fbo = in;
        into.length = len;
        return true;
    }

    synchronized int livePages() {
        return live;
    }

    /** A region made of fast-registered pages: byte {@code i} is at page {@code (fbo+i)/PAGE}. */
    static Region region(Page[] regionPages, int fbo, long length) {
        Pages r = new Pages(regionPages);
        r.fbo = fbo;
        r.length = length;
        return r;
    }

    /**
     * A region over logical pages: byte {@code i} is at page {@code (fbo+i)/PAGE}. A one-page instance is the
     * reusable holder of a privileged-token SGE ({@link #regionAt}).
     */
    static final class Pages extends Region {
        private final Page[] pages;
        private int fbo;
        private long length;

        /** A one-page holder for {@link #regionAt}. */
        Pages() {
            this(new Page[1]);
        }

        private Pages(Page[] pages) {
            this.pages = pages;
        }

        @Override
        long length() {
            return length;
        }

        @Override
        boolean chunk(long offset, Chunk out) {
            if (offset < 0 || offset >= length) {
                return false;
            }
            long pos = fbo + offset;
            int in = (int) (pos % PAGE);
            Page p = pages[(int) (pos / PAGE)].piece(in);
            if (p == null) {
                return false;
            }
            out.segment = p.segment();
            out.offset = p.segOffset() + (in - p.validStart());
            out.length = Math.min(p.validEnd() - in, length - offset);
            return true;
        }
    }

    /**
     * BuildLAM's mapping: one logical page for each of the {@code pages} host pages that the virtually contiguous
     * chain {@code segs} (starting at {@code va}) covers for {@code length} octets, each page recording which of its
     * bytes are consumer memory (piece by piece: a page may straddle segments of the chain).
     *
     * @return the logical page addresses, or null when the table is full (nothing stays mapped then)
     */
    long[] mapPages(MemorySegment[] segs, long va, long length, int pages, Object owner) {
        int first = (int) (va & (PAGE - 1));
        long[] logical = new long[pages];
        long pageVa = va - first;
        for (int i = 0; i < pages; i++, pageVa += PAGE) {
            long lo = Math.max(pageVa, va);
            long hi = Math.min(pageVa + PAGE, va + length);
            long addr = map(pagePieces(segs, va, lo, hi, pageVa, owner));
            if (addr < 0) {
                for (int j = 0; j < i; j++) {
                    unmap(logical[j]);
                }
                return null;
            }
            logical[i] = addr;
        }
        return logical;
    }

    /** The pieces of {@code [lo, hi)} (inside one page starting at {@code pageVa}) in the chain starting at {@code va}. */
    private static Page pagePieces(MemorySegment[] segs, long va, long lo, long hi, long pageVa, Object owner) {
        long segStart = va;
        int si = 0;
        while (si < segs.length - 1 && segStart + segs[si].byteSize() <= lo) {
            segStart += segs[si].byteSize();
            si++;
        }
        long segEnd = segStart + segs[si].byteSize();
        long pieceHi = Math.min(hi, segEnd);
        Page next = pieceHi < hi && si + 1 < segs.length ? pagePieces(segs, va, pieceHi, hi, pageVa, owner) : null;
        return new Page(segs[si], lo - segStart, (int) (lo - pageVa), (int) (pieceHi - pageVa), owner, next);
    }

}
