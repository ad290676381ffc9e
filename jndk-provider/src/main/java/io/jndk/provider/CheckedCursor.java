package io.jndk.provider;

import io.jndk.provider.spi.BufferCursor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A {@link BufferCursor} over memory that passed the access check: a transport reaches registered memory only
 * through it, chunk by chunk, never outside the grant. A cursor is used by one thread at a time.
 */
abstract class CheckedCursor implements BufferCursor {
    /** Views cached per cursor before the cache grows (only when one call needs more). */
    private static final int VIEWS = 4;
    private final Chunk chunk = new Chunk();
    private MemorySegment[] viewSegments = new MemorySegment[VIEWS];
    private ByteBuffer[] viewBuffers = new ByteBuffer[VIEWS];
    private int[] viewStamps = new int[VIEWS];
    /** Stamp of the current {@link #place} or {@link #slices} call. */
    private int call;
    private int nextVictim;

    /** The contiguous piece at {@code offset} (clipped to the piece); false outside the grant. */
    abstract boolean chunk(long offset, Chunk out);

    @Override
    public boolean place(long offset, ByteBuffer src, int index, int length) {
        if (offset < 0 || length < 0 || offset + length > length() || index < 0 || index + length > src.limit()) {
            return false;
        }
        long done = 0;
        while (done < length) {
            if (!chunk(offset + done, chunk)) {
                return false;
            }
            int n = (int) Math.min(length - done, chunk.length);
            call++;
            ByteBuffer to = view(chunk.segment, chunk.offset, n);
            to.put(to.position(), src, index + (int) done, n);
            done += n;
        }
        return true;
    }

    @Override
    public int slices(long offset, long length, long split, ByteBuffer[] out, int outIndex) {
        if (offset < 0 || length < 0 || offset + length > length() || split <= 0) {
            return -1;
        }
        call++;
        int k = outIndex;
        long done = 0;
        while (done < length) {
            if (k >= out.length || !chunk(offset + done, chunk)) {
                return -1;
            }
            long n = Math.min(Math.min(length - done, chunk.length), split - done % split);
            out[k] = view(chunk.segment, chunk.offset, n);
            k++;
            done += n;
        }
        return k - outIndex;
    }

    /**
     * A buffer whose position and limit delimit {@code [offset, offset+n)} of {@code segment}, taken from a small
     * per-cursor cache of views keyed by segment: a consumer that reuses its buffers gets the same views back, so
     * the steady state creates none. One call never hands out the same view twice ({@link #call} stamps).
     */
    private ByteBuffer view(MemorySegment segment, long offset, long n) {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            return segment.asSlice(offset, n).asByteBuffer();
        }
        int free = -1;
        for (int i = 0; i < viewSegments.length; i++) {
            if (viewStamps[i] == call) {
                continue;
            }
            if (viewSegments[i] == segment) {
                return use(i, offset, n);
            }
            if (free < 0 || viewSegments[i] == null) {
                free = i;
            }
        }
        if (free < 0) { // every view is in use by this call: grow
            free = viewSegments.length;
            viewSegments = java.util.Arrays.copyOf(viewSegments, free * 2);
            viewBuffers = java.util.Arrays.copyOf(viewBuffers, free * 2);
            viewStamps = java.util.Arrays.copyOf(viewStamps, free * 2);
        } else if (viewSegments[free] != null) {
            free = victim(free);
        }
        viewSegments[free] = segment;
        viewBuffers[free] = segment.asByteBuffer();
        return use(free, offset, n);
    }

    /** Round-robin among the views this call does not use, so that alternating buffers keep their views. */
    private int victim(int fallback) {
        for (int k = 0; k < viewSegments.length; k++) {
            int i = (nextVictim + k) % viewSegments.length;
            if (viewStamps[i] != call) {
                nextVictim = i + 1;
                return i;
            }
        }
        return fallback;
    }

    private ByteBuffer use(int i, long offset, long n) {
        viewStamps[i] = call;
        ByteBuffer b = viewBuffers[i];
        b.limit((int) (offset + n)).position((int) offset);
        return b;
    }

    /** The resolved local SGE list of one request (or its inline bytes). */
    static final class Sgl extends CheckedCursor {
        final TokenTable.Target[] targets;
        final long[] lengths;
        int count;
        long total;

        Sgl(int maxSge) {
            int n = Math.max(1, maxSge);
            targets = new TokenTable.Target[n];
            lengths = new long[n];
            for (int i = 0; i < n; i++) {
                targets[i] = new TokenTable.Target();
            }
        }

        /** Resolves {@code w}'s SGEs, each of which needs the rights {@code need}; false if one lacks them. */
        boolean resolve(SoftQp qp, WorkRequest w, int need) {
            total = 0;
            count = 0;
            if (w.isInline()) {
                TokenTable.Target x = targets[0];
                x.logical = true;
                x.region = null;
                x.chunk.segment = w.inline;
                x.chunk.offset = 0;
                x.chunk.length = w.inlineLen;
                lengths[0] = w.inlineLen;
                count = 1;
                total = w.inlineLen;
                return true;
            }
            TokenTable tokens = qp.adapter.tokens();
            for (int i = 0; i < w.nSge; i++) {
                long l = Integer.toUnsignedLong(w.len[i]);
                lengths[i] = l;
                TokenTable.Target t = targets[i];
                if (l == 0) {
                    t.logical = true;
                    t.chunk.length = 0;
                    continue;
                }
                if (!tokens.checkLocal(w.token[i], w.addr[i], l, need, qp.pd, qp.adapter.pageMap(), t)) {
                    qp.adapter.count(io.jndk.api.NdkCounter.ACCESS_ERRORS);
                    return false;
                }
                if (!t.logical && !t.region.backed(t.offset, l, t.chunk)) {
                    return false;
                }
                total += l;
            }
            count = w.nSge;
            return true;
        }

        @Override
        public long length() {
            return total;
        }

        @Override
        boolean chunk(long offset, Chunk out) {
            long base = 0;
            for (int i = 0; i < count; i++) {
                long l = lengths[i];
                if (offset < base + l) {
                    long in = offset - base;
                    TokenTable.Target t = targets[i];
                    if (t.logical) {
                        out.segment = t.chunk.segment;
                        out.offset = t.chunk.offset + in;
                        out.length = l - in;
                        return true;
                    }
                    if (!t.region.chunk(t.offset + in, out)) {
                        return false;
                    }
                    out.length = Math.min(out.length, l - in);
                    return true;
                }
                base += l;
            }
            return false;
        }
    }

    /** The checked range of an inbound tagged access. */
    static final class Range extends CheckedCursor {
        final TokenTable.Target target = new TokenTable.Target();
        long length;

        @Override
        public long length() {
            return length;
        }

        @Override
        boolean chunk(long offset, Chunk out) {
            if (offset < 0 || offset >= length || !target.region.chunk(target.offset + offset, out)) {
                return false;
            }
            out.length = Math.min(out.length, length - offset);
            return true;
        }
    }
}
