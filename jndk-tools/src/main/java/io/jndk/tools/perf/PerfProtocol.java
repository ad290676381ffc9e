package io.jndk.tools.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What the two processes of {@code jndk perf --server} / {@code --client} agree on: the connection private data
 * (request, accept, reject) and the data pattern both sides derive from it.
 *
 * <p>Every private-data message starts with the same header; all fields are big-endian:
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     magic 0x4A4E4450 ("JNDP")                  |
 * +---------------+---------------+---------------+---------------+
 * |  version 1|2  | kind 1/2/3    |  (kind specific, see below)   |
 * +---------------+---------------+---------------+---------------+
 * </pre>
 * Request (client to server, in Connect), 56 bytes: op (1 write, 2 read, 3 send) at 6, flags at 7 (version 2; bit 0:
 * latency mode, a ping-pong; other bits zero; version 1 had a zero byte here and only the bandwidth mode), then
 * u32 size at 8, u32 bandwidth iterations at 12, u32 latency iterations at 16, u32 slots at 20, u32 depth at 24,
 * u32 the client buffer's remote token at 28, u64 seed at 32, u64 client buffer VA at 40, u64 its length at 48.
 *
 * <p>In latency mode the client buffer (VA, token, length) is where the server Writes its answers (write), the
 * iterations are the round trips (latency iterations 0), and slots is 1; the server answers every Send with a Send
 * of the pattern's first {@code size} bytes and ends with the report as in bandwidth mode.
 *
 * <p>The server answers in the version the client spoke. Accept (server to client, in Accept), 40 bytes: u16
 * reserved at 6, u32 receive depth at 8 (receives the server keeps posted for Sends), u32 acknowledgement batch at 12, u32 the server buffer's remote token at 16,
 * u32 reserved at 20, u64 server buffer VA at 24, u64 its length at 32.
 *
 * <p>Reject (server to client, in Reject): u16 length at 6, then that many bytes of UTF-8 reason.
 *
 * <p>The data pattern is a pure function of (seed, size, offset): the 8-byte word with index {@code k} of a
 * buffer holds {@link #word(long, int, long) word(seed, size, k)} big-endian, a trailing partial word its leading
 * bytes. A buffer of {@code slots * size} bytes therefore holds a different message in every slot.
 */
final class PerfProtocol {
    private PerfProtocol() {}

    static final int MAGIC = 0x4A4E4450;
    /** The version this side speaks; it also understands {@link #MIN_VERSION} and answers in the peer's. */
    static final int VERSION = 2;
    static final int MIN_VERSION = 1;
    /** Request flag: latency mode (ping-pong). */
    static final int FLAG_LATENCY = 1;
    static final int KIND_REQUEST = 1, KIND_ACCEPT = 2, KIND_REJECT = 3;
    static final int REQUEST_LENGTH = 56, ACCEPT_LENGTH = 40;
    /** Largest message size either side accepts. */
    static final int MAX_SIZE = 64 << 20;
    /** Largest buffer either side registers for one connection. */
    static final long MAX_BUFFER = 64L << 20;
    /** Server-to-client acknowledgement: u64 messages received so far. */
    static final int ACK_LENGTH = 8;
    /** Server-to-client final report: u64 good messages, u64 bad messages. */
    static final int REPORT_LENGTH = 16;

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The operations, with their wire codes. */
    enum Op {
        WRITE(1), READ(2), SEND(3);

        final int code;

        Op(int code) {
            this.code = code;
        }

        static Op of(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }

        static Op ofCode(int code) {
            for (Op o : values()) {
                if (o.code == code) {
                    return o;
                }
            }
            throw new IllegalArgumentException("unknown operation code " + code);
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The client's request, in protocol {@code version}. */
    record Request(Op op, int size, int iters, int latencyIters, int slots, int depth, long seed, long va, int token,
            long length, boolean latency, int version) {
        /** A bandwidth-mode request of the current version. */
        Request(Op op, int size, int iters, int latencyIters, int slots, int depth, long seed, long va, int token,
                long length) {
            this(op, size, iters, latencyIters, slots, depth, seed, va, token, length, false, VERSION);
        }

        byte[] encode() {
            ByteBuffer b = header(REQUEST_LENGTH, KIND_REQUEST, version);
            b.put(6, (byte) op.code).put(7, (byte) (latency ? FLAG_LATENCY : 0)).putInt(8, size).putInt(12, iters)
                    .putInt(16, latencyIters).putInt(20, slots).putInt(24, depth).putInt(28, token).putLong(32, seed).putLong(40, va).putLong(48, length);
            return b.array();
        }

        /** Decodes and validates a request; throws {@link IllegalArgumentException} with a reason to send back. */
        static Request decode(byte[] pd, int length) {
            ByteBuffer b = check(pd, length, KIND_REQUEST, REQUEST_LENGTH);
            int flags = b.get(7) & 0xFF;
            if ((flags & ~FLAG_LATENCY) != 0 || b.get(4) == 1 && flags != 0) {
                throw new IllegalArgumentException(String.format("unknown request flags 0x%02X", flags));
            }
            Request r = new Request(Op.ofCode(b.get(6)), b.getInt(8), b.getInt(12), b.getInt(16), b.getInt(20),
                    b.getInt(24), b.getLong(32), b.getLong(40), b.getInt(28), b.getLong(48), flags != 0, b.get(4));
            if (r.size < 1 || r.size > MAX_SIZE) {
                throw new IllegalArgumentException("size " + r.size + " outside 1.." + MAX_SIZE);
            }
            if (r.iters < 1 || r.latencyIters < 0 || r.depth < 1 || r.depth > 1024 || r.slots < 1) {
                throw new IllegalArgumentException("bad iterations, depth or slots");
            }
            if ((long) r.slots * r.size > MAX_BUFFER) {
                throw new IllegalArgumentException("buffer of " + r.slots + " x " + r.size + " bytes too large");
            }
            return r;
        }
    }

    /** The server's answer. */
    record Accept(int receiveDepth, int ackBatch, long va, int token, long length) {
        /** The accept in protocol {@code version} (the request's). */
        byte[] encode(int version) {
            ByteBuffer b = header(ACCEPT_LENGTH, KIND_ACCEPT, version);
            b.putInt(8, receiveDepth).putInt(12, ackBatch).putInt(16, token).putLong(24, va).putLong(32, length);
            return b.array();
        }

        static Accept decode(byte[] pd, int length) {
            ByteBuffer b = check(pd, length, KIND_ACCEPT, ACCEPT_LENGTH);
            return new Accept(b.getInt(8), b.getInt(12), b.getLong(24), b.getInt(16), b.getLong(32));
        }
    }

    /** A reject's reason as private data (cut to fit the 252 bytes NDK allows). */
    static byte[] encodeReject(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, 252 - 8);
        ByteBuffer b = header(8 + n, KIND_REJECT, MIN_VERSION);
        b.putShort(6, (short) n).put(8, text, 0, n);
        return b.array();
    }

    /** A reject's reason, or {@code null} when the data is not a jndk perf reject. */
    static String decodeReject(byte[] pd, int length) {
        try {
            ByteBuffer b = check(pd, length, KIND_REJECT, 8);
            int n = Math.min(b.getShort(6) & 0xFFFF, length - 8);
            return new String(pd, 8, n, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static ByteBuffer header(int length, int kind, int version) {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0, MAGIC).put(4, (byte) version).put(5, (byte) kind);
        return b;
    }

    private static ByteBuffer check(byte[] pd, int length, int kind, int minLength) {
        if (pd == null || length < 6 || length > pd.length) {
            throw new IllegalArgumentException("no jndk perf private data (" + length + " bytes)");
        }
        ByteBuffer b = ByteBuffer.wrap(pd, 0, length).order(ByteOrder.BIG_ENDIAN);
        if (b.getInt(0) != MAGIC) {
            throw new IllegalArgumentException(String.format("private data magic 0x%08X is not jndk perf", b.getInt(0)));
        }
        if (b.get(4) < MIN_VERSION || b.get(4) > VERSION) {
            throw new IllegalArgumentException("jndk perf protocol version " + b.get(4) + " (this side speaks " + MIN_VERSION
                    + " to " + VERSION + ")");
        }
        if (b.get(5) != kind || length < minLength) {
            throw new IllegalArgumentException("unexpected jndk perf message kind " + b.get(5) + " of " + length + " bytes");
        }
        return b;
    }

    /** The pattern's word {@code k} (a SplitMix64 finalizer over seed, size and index). */
    static long word(long seed, int size, long k) {
        long z = seed + size * 0x9E3779B97F4A7C15L + (k + 1) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Fills a whole buffer with the pattern of (seed, size). */
    static void fill(MemorySegment seg, long seed, int size) {
        long n = seg.byteSize();
        long k = 0;
        for (; k + 8 <= n; k += 8) {
            seg.set(BE_LONG, k, word(seed, size, k >>> 3));
        }
        for (; k < n; k++) {
            seg.set(ValueLayout.JAVA_BYTE, k, (byte) (word(seed, size, k >>> 3) >>> (56 - 8 * (k & 7))));
        }
    }

    static void putLong(MemorySegment seg, long offset, long value) {
        seg.set(BE_LONG, offset, value);
    }

    static long getLong(MemorySegment seg, long offset) {
        return seg.get(BE_LONG, offset);
    }
}
