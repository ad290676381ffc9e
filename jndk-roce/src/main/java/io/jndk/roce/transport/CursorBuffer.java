package io.jndk.roce.transport;

import io.jndk.provider.spi.BufferCursor;
import io.jndk.roce.rc.LocalBuffer;
import java.nio.ByteBuffer;

/**
 * The RC core's view ({@link LocalBuffer}) of memory the provider granted ({@link BufferCursor}): a request's SGE
 * list, a receive's buffer, or an inbound Read's source. Copies go through the cursor only, so nothing outside the
 * grant is touched; a copy the cursor refuses (it cannot happen for offsets inside {@link #length()}) is counted and
 * leaves the packet's octets as they were. Reused: {@link #set} points it at the next grant.
 */
final class CursorBuffer implements LocalBuffer {
    private static final int MAX_VIEWS = 64;
    private final ByteBuffer[] views = new ByteBuffer[MAX_VIEWS];
    private BufferCursor cursor;
    private int length;
    /** One past the highest octet placed since {@link #set} (a Send's received length). */
    int placed;
    /** Copies the cursor refused. */
    long refused;

    CursorBuffer set(BufferCursor c) {
        cursor = c;
        length = c == null ? 0 : (int) Math.min(Integer.MAX_VALUE, c.length());
        placed = 0;
        return this;
    }

    BufferCursor cursor() {
        return cursor;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public void copyOut(int offset, ByteBuffer dst, int dstIndex, int n) {
        copyOut((long) offset, dst, dstIndex, n);
    }

    void copyOut(long offset, ByteBuffer dst, int dstIndex, int n) {
        int count = cursor.slices(offset, n, views, 0);
        if (count < 0) {
            refused++;
            return;
        }
        int at = dstIndex;
        for (int i = 0; i < count; i++) {
            ByteBuffer v = views[i];
            int r = v.remaining();
            dst.put(at, v, v.position(), r);
            at += r;
        }
    }

    @Override
    public void copyIn(int offset, ByteBuffer src, int srcIndex, int n) {
        copyIn((long) offset, src, srcIndex, n);
    }

    void copyIn(long offset, ByteBuffer src, int srcIndex, int n) {
        if (!cursor.place(offset, src, srcIndex, n)) {
            refused++;
            return;
        }
        placed = (int) Math.max(placed, offset + n);
    }
}
