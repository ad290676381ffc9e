package io.jndk.iwarp.transport;

import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for the verbs engine's side of one QP: regions of native memory addressed by STag (TO = offset),
 * a send queue, posted receives, and every callback recorded as an event string.
 */
final class FakeQp implements QpPort {

    static final long GUARD_SECONDS = 20;

    private final Arena arena = Arena.ofShared();
    private final Map<Integer, MemorySegment> regions = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<WireRequest> sq = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<BufferCursor> rq = new ConcurrentLinkedQueue<>();
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final int ird;
    private final int ord;
    private final int chunk;
    volatile WireConnection connection;
    /** Run on the receiving thread after each receive completes (a notification's stand-in), or null. */
    volatile Runnable onReceive;
    /** Whether {@link #postedAlone} reports a lone request as a provider's QP does (false: never, the default). */
    volatile boolean reportsAlone;

    /**
     * @param ird inbound read limit
     * @param ord outbound read limit
     * @param chunk the size of the pieces each cursor's slices are cut into (exercises gathering)
     */
    FakeQp(int ird, int ord, int chunk) {
        this.ird = ird;
        this.ord = ord;
        this.chunk = chunk;
    }

    MemorySegment region(int stag, int size) {
        MemorySegment s = arena.allocate(size);
        regions.put(stag, s);
        return s;
    }

    BufferCursor cursor(MemorySegment s) {
        return new SegmentCursor(s, chunk);
    }

    void post(WireRequest r) {
        sq.add(r);
        connection.kick();
    }

    void postReceive(MemorySegment s) {
        rq.add(cursor(s));
    }

    String next() throws InterruptedException {
        String e = events.poll(GUARD_SECONDS, TimeUnit.SECONDS);
        if (e == null) {
            throw new AssertionError("no event within the guard time");
        }
        return e;
    }

    void close() {
        arena.close();
    }

    static WireRequest write(Object handle, BufferCursor local, int stag, long to) {
        WireRequest r = new WireRequest();
        r.kind = WireRequest.WRITE;
        r.local = local;
        r.length = local.length();
        r.remoteToken = stag;
        r.remoteAddress = to;
        r.handle = handle;
        return r;
    }

    static WireRequest read(Object handle, BufferCursor local, int stag, long to) {
        WireRequest r = write(handle, local, stag, to);
        r.kind = WireRequest.READ;
        return r;
    }

    static WireRequest send(Object handle, BufferCursor local, boolean solicited, Integer invalidate) {
        WireRequest r = new WireRequest();
        r.kind = WireRequest.SEND;
        r.local = local;
        r.length = local.length();
        r.solicited = solicited;
        r.invalidate = invalidate != null;
        r.invalidateToken = invalidate == null ? 0 : invalidate;
        r.handle = handle;
        return r;
    }

    @Override
    public int nextRequest(WireRequest out, int readsOutstanding) {
        WireRequest r = sq.poll();
        if (r == null) {
            return NONE;
        }
        out.kind = r.kind;
        out.length = r.length;
        out.remoteAddress = r.remoteAddress;
        out.remoteToken = r.remoteToken;
        out.solicited = r.solicited;
        out.invalidate = r.invalidate;
        out.invalidateToken = r.invalidateToken;
        out.local = r.local;
        out.handle = r.handle;
        return READY;
    }

    @Override
    public boolean postedAlone() {
        return reportsAlone && sq.size() <= 1;
    }

    @Override
    public void sent(WireRequest request) {
        events.add("sent " + request.handle);
    }

    @Override
    public void readDone(WireRequest request) {
        events.add("readDone " + request.handle);
    }

    @Override
    public int writeTarget(int stag, long to, long length, BufferCursor[] out) {
        return lookup(stag, to, length, out, Term.DDP_TAGGED_INVALID_STAG, Term.DDP_TAGGED_BASE_BOUNDS);
    }

    @Override
    public int readSource(int stag, long to, long length, BufferCursor[] out) {
        return lookup(stag, to, length, out, Term.RDMAP_INVALID_STAG, Term.RDMAP_BASE_BOUNDS);
    }

    private int lookup(int stag, long to, long length, BufferCursor[] out, int invalid, int bounds) {
        MemorySegment s = regions.get(stag);
        if (s == null) {
            return invalid;
        }
        if (to < 0 || length < 0 || to + length > s.byteSize()) {
            return bounds;
        }
        out[0] = cursor(s.asSlice(to, length));
        return 0;
    }

    @Override
    public int inboundReadLimit() {
        return ird;
    }

    @Override
    public int outboundReadLimit() {
        return ord;
    }

    @Override
    public int beginReceive(BufferCursor[] out) {
        BufferCursor c = rq.poll();
        if (c == null) {
            return Term.DDP_UNTAGGED_NO_BUFFER;
        }
        out[0] = c;
        return 0;
    }

    @Override
    public int endReceive(long bytes, boolean solicited, boolean invalidate, int invalidateToken) {
        if (invalidate && regions.remove(invalidateToken) == null) {
            events.add("recv " + bytes + " fail-invalidate " + Integer.toHexString(invalidateToken));
            return Term.RDMAP_CANNOT_INVALIDATE;
        }
        events.add("recv " + bytes + (solicited ? " se" : "") + (invalidate ? " inv "
            + Integer.toHexString(invalidateToken) : ""));
        Runnable r = onReceive;
        if (r != null) {
            r.run();
        }
        return 0;
    }

    @Override
    public void failReceive(int status, int term) {
        events.add("failReceive " + Integer.toHexString(status) + " " + Term.describe(term));
    }

    @Override
    public void failed(int status, int term, boolean sent, int reason) {
        events.add("failed " + Integer.toHexString(status) + " " + Term.describe(term) + " sent=" + sent
            + " reason=" + reason);
    }

    @Override
    public void peerClosed() {
        events.add("peerClosed");
    }

    /** A checked view of one segment, handed out in pieces of {@code chunk} octets. */
    static final class SegmentCursor implements BufferCursor {
        private final MemorySegment segment;
        private final int chunk;

        SegmentCursor(MemorySegment segment, int chunk) {
            this.segment = segment;
            this.chunk = chunk;
        }

        @Override
        public long length() {
            return segment.byteSize();
        }

        @Override
        public boolean place(long offset, ByteBuffer src, int index, int length) {
            if (offset < 0 || offset + length > segment.byteSize()) {
                return false;
            }
            MemorySegment.copy(MemorySegment.ofBuffer(src.duplicate().clear()), index, segment, offset, length);
            return true;
        }

        @Override
        public int slices(long offset, long length, long split, ByteBuffer[] out, int outIndex) {
            if (offset < 0 || offset + length > segment.byteSize() || split <= 0) {
                return -1;
            }
            int n = 0;
            long at = offset;
            long end = offset + length;
            while (at < end) {
                long piece = Math.min(Math.min(chunk - (at % chunk), end - at), split - (at - offset) % split);
                if (outIndex + n >= out.length) {
                    return -1;
                }
                out[outIndex + n++] = segment.asSlice(at, piece).asByteBuffer();
                at += piece;
            }
            return n;
        }
    }
}
