package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A frame fed in every possible split decodes identically. */
class SplitTest {

    static Object[][] fpdus() {
        return Vectors.fpdus();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fpdus")
    void everySingleSplitPointAndByteByByte(String name, byte[] fpdu) {
        for (boolean crc : new boolean[] {true, false}) {
            byte[] input = crc ? fpdu : Vectors.crcOff(fpdu);
            List<DecodedFrame> reference = Decoding.whole(input, crc).listener().contents();
            assertThat(reference).hasSize(1);
            for (int cut = 0; cut <= input.length; cut++) {
                Decoding.Result r = Decoding.split(input, crc, cut);
                assertThat(r.error()).as("%s crc=%s cut=%d", name, crc, cut).isEqualTo(FpduError.NONE);
                assertThat(r.listener().contents()).as("%s crc=%s cut=%d", name, crc, cut).isEqualTo(reference);
            }
            Decoding.Result bytes = Decoding.byteByByte(input, crc);
            assertThat(bytes.error()).isEqualTo(FpduError.NONE);
            assertThat(bytes.listener().contents()).as("%s byte by byte", name).isEqualTo(reference);
            // payload arrives in the pieces it came in: one octet per piece
            int payloadLength = reference.get(0).payload().isEmpty() ? 0 : (reference.get(0).payload().length() + 1) / 3;
            assertThat(bytes.frames().get(0).payloadPieces()).isEqualTo(payloadLength);
        }
    }

    @Test
    void everyPairOfSplitPointsOverAllVectorsConcatenated() {
        byte[] stream = Decoding.concat(Vectors.TV1, Vectors.TV2, Vectors.TV3, Vectors.TV4, Vectors.TV5,
            Vectors.TV7, Vectors.TV9A, Vectors.TV9B, Vectors.TV8);
        List<DecodedFrame> reference = Decoding.whole(stream, true).listener().contents();
        assertThat(reference).hasSize(9);
        for (int a = 0; a <= stream.length; a += 3) {
            for (int b = a; b <= stream.length; b += 7) {
                Decoding.Result r = Decoding.split(stream, true, a, b);
                assertThat(r.error()).as("cuts %d,%d", a, b).isEqualTo(FpduError.NONE);
                assertThat(r.listener().contents()).as("cuts %d,%d", a, b).isEqualTo(reference);
            }
        }
        Decoding.Result bytes = Decoding.byteByByte(stream, true);
        assertThat(bytes.listener().contents()).isEqualTo(reference);
        assertThat(bytes.decoder().framesDecoded()).isEqualTo(9);
        assertThat(bytes.decoder().bytesConsumed()).isEqualTo(stream.length);
    }

    @Test
    void directBuffersGiveTheSameResultAsHeapBuffers() {
        byte[] stream = Decoding.concat(Vectors.TV1, Vectors.TV2, Vectors.TV5, Vectors.TV7, Vectors.TV8);
        List<DecodedFrame> reference = Decoding.whole(stream, true).listener().contents();
        for (int chunk = 1; chunk <= stream.length; chunk += 5) {
            RecordingListener listener = new RecordingListener();
            FpduDecoder decoder = new FpduDecoder(listener, true);
            for (int from = 0; from < stream.length; from += chunk) {
                int n = Math.min(chunk, stream.length - from);
                java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(n + 8);
                direct.position(4);
                direct.put(stream, from, n);
                direct.flip().position(4);
                assertThat(decoder.feed(direct)).as("chunk %d", chunk).isEqualTo(FpduError.NONE);
                assertThat(direct.hasRemaining()).isFalse();
            }
            assertThat(listener.contents()).as("chunk %d", chunk).isEqualTo(reference);
        }
    }

    @Test
    void emptyChunksAreHarmless() {
        byte[] stream = Decoding.concat(Vectors.TV2, Vectors.TV6);
        Decoding.Result r = Decoding.split(stream, true, 0, 0, 5, 5, 5, 40, 40, stream.length, stream.length);
        assertThat(r.error()).isEqualTo(FpduError.NONE);
        assertThat(r.listener().contents()).isEqualTo(Decoding.whole(stream, true).listener().contents());
    }
}
