package io.jndk.jmh;

import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Whole FPDUs: encoding an RDMA Write (tagged) and a Send (untagged) of {@code payload} bytes with
 * {@link FpduEncoder}, and decoding the tagged one with {@link FpduDecoder}. With {@code crc} the encoder and
 * decoder compute MPA's CRC32c over the whole FPDU, so the difference between the two rows is the CRC's cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FpduBench {
    /** Payload octets; 65504 is about the largest that fits one FPDU (its length field is 16 bits). */
    @Param({"64", "1024", "65504"})
    int payload;

    @Param({"false", "true"})
    boolean crc;

    private final ByteBuffer frame = ByteBuffer.allocateDirect(70_000);
    private final ByteBuffer data = ByteBuffer.allocateDirect(65_536);
    private final ByteBuffer encoded = ByteBuffer.allocateDirect(70_000);
    private FpduEncoder encoder;
    private FpduDecoder decoder;
    private int encodedLength;

    /** Builds the encoder, the decoder (its listener feeds the blackhole) and the frame it decodes. */
    @Setup
    public void setUp(Blackhole sink) {
        encoder = new FpduEncoder(crc);
        decoder = new FpduDecoder(new FpduListener() {
            @Override
            public void onHeader(FpduHeaderView header) {
                sink.consume(header);
            }

            @Override
            public void onPayload(ByteBuffer buffer, int index, int length) {
                sink.consume(length);
            }

            @Override
            public void onFrameEnd(FpduHeaderView header, CrcVerdict verdict) {
                sink.consume(verdict);
            }
        }, crc);
        encodedLength = encoder.tagged(encoded, 0, RdmapOpcode.RDMA_WRITE, true, 0x1234_5601, 4096, data, 0, payload);
        if (decodeTagged() != FpduError.NONE || decoder.framesDecoded() != 1) {
            throw new IllegalStateException("the decoder rejects the encoded frame: " + decoder.error());
        }
    }

    /** Encodes an RDMA Write FPDU (tagged) of {@code payload} bytes. */
    @Benchmark
    public int encodeTagged() {
        return encoder.tagged(frame, 0, RdmapOpcode.RDMA_WRITE, true, 0x1234_5601, 4096, data, 0, payload);
    }

    /** Encodes a Send FPDU (untagged) of {@code payload} bytes. */
    @Benchmark
    public int encodeUntagged() {
        return encoder.untagged(frame, 0, RdmapOpcode.SEND, true, 0, 0, 7, 0, data, 0, payload);
    }

    /** Decodes one tagged FPDU of {@code payload} bytes (header checks, payload hand-over, CRC when on). */
    @Benchmark
    public FpduError decodeTagged() {
        encoded.clear().limit(encodedLength);
        return decoder.feed(encoded);
    }
}
