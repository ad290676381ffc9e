package io.jndk.provider;

import io.jndk.provider.spi.BufferCursor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A {@link BufferCursor} over memory that passed the access check: a transport reaches registered memory only
 * through it, chunk by chunk, never outside the grant.
 */
abstract class CheckedCursor implements BufferCursor {
    private final Chunk chunk = new Chunk();

    /** The contiguous piece at {@code offset} (clipped to the piece); false outside the grant. */
    abstract boolean chunk(long offset, Chunk out);

    @Override
    public boolean place(long offset, ByteBuffer src, int index, int length) {
        if (offset < 0 || length < 0 || offset + length > length()) {
            return false;
        }
        // a segment over a buffer starts at the buffer's position: address the bytes relative to it
        int pos = src.position();
        boolean inWindow = index >= pos && index + length <= src.limit();
        MemorySegment from = MemorySegment.ofBuffer(inWindow ? src : src.duplicate().clear());
        long base = inWindow ? index - pos : index;
        long done = 0;
        while (done < length) {
            if (!chunk(offset + done, chunk)) {
                return false;
            }
            long n = Math.min(length - done, chunk.length);
            MemorySegment.copy(from, base + done, chunk.segment, chunk.offset, n);
            done += n;
        }
        return true;
    }

    @Override
    public int slices(long offset, long length, ByteBuffer[] out, int outIndex) {
        if (offset < 0 || length < 0 || offset + length > length()) {
            return -1;
        }
        int k = outIndex;
        long done = 0;
        while (done < length) {
            if (k >= out.length || !chunk(offset + done, chunk)) {
                return -1;
            }
            long n = Math.min(length - done, chunk.length);
            out[k++] = chunk.segment.asSlice(chunk.offset, n).asByteBuffer();
            done += n;
        }
        return k - outIndex;
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

        /** Resolves {@code w}'s SGEs (write: local write needed); false on an access violation. */
        boolean resolve(SoftQp qp, WorkRequest w, boolean write) {
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
                if (!tokens.checkLocal(w.token[i], w.addr[i], l, write, qp.pd, qp.adapter.pageMap(), t)) {
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
