package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;
import java.util.List;

/** Runs a decoder over a byte stream cut at given points. */
final class Decoding {

    /**
     * @param listener the recording listener
     * @param error the decoder's final error
     * @param decoder the decoder
     */
    record Result(RecordingListener listener, FpduError error, FpduDecoder decoder) {
        List<DecodedFrame> frames() {
            return listener.frames;
        }
    }

    private Decoding() {
    }

    static Result whole(byte[] stream, boolean crc) {
        return split(stream, crc, new int[0]);
    }

    /** Feeds {@code stream} in pieces that end at the ascending {@code cuts}. */
    static Result split(byte[] stream, boolean crc, int... cuts) {
        RecordingListener listener = new RecordingListener();
        FpduDecoder decoder = new FpduDecoder(listener, crc);
        FpduError error = FpduError.NONE;
        int from = 0;
        for (int i = 0; i <= cuts.length && error == FpduError.NONE; i++) {
            int to = i < cuts.length ? cuts[i] : stream.length;
            // a fresh buffer per chunk, with garbage around it, so that absolute indices are exercised
            byte[] padded = new byte[(to - from) + 6];
            System.arraycopy(stream, from, padded, 3, to - from);
            ByteBuffer chunk = ByteBuffer.wrap(padded, 3, to - from);
            error = decoder.feed(chunk);
            if (error == FpduError.NONE && chunk.hasRemaining()) {
                throw new AssertionError("decoder left " + chunk.remaining() + " octets unconsumed");
            }
            from = to;
        }
        return new Result(listener, error, decoder);
    }

    static Result byteByByte(byte[] stream, boolean crc) {
        int[] cuts = new int[Math.max(0, stream.length - 1)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        return split(stream, crc, cuts);
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
