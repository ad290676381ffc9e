package io.jndk.provider;

import java.lang.foreign.MemorySegment;

/**
 * The host memory behind a registration, addressed by byte offset from its start. Registered memory is
 * reached only through a region (after the access check), never by dereferencing a consumer address.
 */
abstract class Region {
    /** Length in bytes. */
    abstract long length();

    /**
     * Fills {@code out} with the contiguous host piece starting at {@code offset} (clipped to the piece's
     * end). Returns false when the byte at {@code offset} is not backed by consumer memory.
     */
    abstract boolean chunk(long offset, Chunk out);

    /** Copies {@code len} bytes from {@code src} at {@code srcOff} to {@code dst} at {@code dstOff}; false on a hole. */
    static boolean copy(Region src, long srcOff, Region dst, long dstOff, long len, Chunk a, Chunk b) {
        while (len > 0) {
            if (!src.chunk(srcOff, a) || !dst.chunk(dstOff, b)) {
                return false;
            }
            long n = Math.min(len, Math.min(a.length, b.length));
            MemorySegment.copy(a.segment, a.offset, b.segment, b.offset, n);
            srcOff += n;
            dstOff += n;
            len -= n;
        }
        return true;
    }

    /** Copies from a plain segment into a region; false on a hole. */
    static boolean copyIn(MemorySegment src, long srcOff, Region dst, long dstOff, long len, Chunk b) {
        while (len > 0) {
            if (!dst.chunk(dstOff, b)) {
                return false;
            }
            long n = Math.min(len, b.length);
            MemorySegment.copy(src, srcOff, b.segment, b.offset, n);
            srcOff += n;
            dstOff += n;
            len -= n;
        }
        return true;
    }

    /** Copies from a region into a plain segment; false on a hole. */
    static boolean copyOut(Region src, long srcOff, MemorySegment dst, long dstOff, long len, Chunk a) {
        while (len > 0) {
            if (!src.chunk(srcOff, a)) {
                return false;
            }
            long n = Math.min(len, a.length);
            MemorySegment.copy(a.segment, a.offset, dst, dstOff, n);
            srcOff += n;
            dstOff += n;
            len -= n;
        }
        return true;
    }

    /** Checks that every byte of {@code [offset, offset+len)} is backed. */
    boolean backed(long offset, long len, Chunk c) {
        while (len > 0) {
            if (!chunk(offset, c)) {
                return false;
            }
            long n = Math.min(len, c.length);
            offset += n;
            len -= n;
        }
        return true;
    }

    /** A region over the first {@code length} bytes of an MDL chain's segments. */
    static Region ofSegments(MemorySegment[] segments, long length) {
        if (segments.length == 1) {
            MemorySegment s = segments[0];
            return new Region() {
                @Override
                long length() {
                    return length;
                }

                @Override
                boolean chunk(long offset, Chunk out) {
                    if (offset < 0 || offset >= length) {
                        return false;
                    }
                    out.segment = s;
                    out.offset = offset;
                    out.length = length - offset;
                    return true;
                }
            };
        }
        long[] starts = new long[segments.length];
        long pos = 0;
        for (int i = 0; i < segments.length; i++) {
            starts[i] = pos;
            pos += segments[i].byteSize();
        }
        return new Region() {
            @Override
            long length() {
                return length;
            }

            @Override
            boolean chunk(long offset, Chunk out) {
                if (offset < 0 || offset >= length) {
                    return false;
                }
                int i = segments.length - 1;
                while (starts[i] > offset) {
                    i--;
                }
                long in = offset - starts[i];
                out.segment = segments[i];
                out.offset = in;
                out.length = Math.min(segments[i].byteSize() - in, length - offset);
                return true;
            }
        };
    }

    /** The sub-range {@code [offset, offset+len)} of a region, as a region. */
    static Region slice(Region base, long offset, long len) {
        return new Region() {
            @Override
            long length() {
                return len;
            }

            @Override
            boolean chunk(long off, Chunk out) {
                if (off < 0 || off >= len || !base.chunk(offset + off, out)) {
                    return false;
                }
                out.length = Math.min(out.length, len - off);
                return true;
            }
        };
    }
}
