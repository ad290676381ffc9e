package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Invalid input yields error values with the Terminate to send, never exceptions, and they latch. */
class DecoderErrorTest {

    /** Copies {@code fpdu}, applies {@code edit} and recomputes the CRC. */
    private static byte[] mutate(byte[] fpdu, int index, int value) {
        byte[] copy = fpdu.clone();
        copy[index] = (byte) value;
        new FpduFlyweight().wrap(ByteBuffer.wrap(copy), 0).seal(true, new CRC32C());
        return copy;
    }

    private static void assertError(byte[] input, FpduError expected, TerminateCode terminate) {
        Decoding.Result whole = Decoding.whole(input, true);
        assertThat(whole.error()).isEqualTo(expected);
        assertThat(expected.terminate()).isEqualTo(terminate);
        assertThat(whole.frames()).isEmpty();
        // same verdict for any split
        assertThat(Decoding.byteByByte(input, true).error()).isEqualTo(expected);
        // latched: later input is not consumed
        ByteBuffer more = ByteBuffer.wrap(Vectors.TV2);
        assertThat(whole.decoder().feed(more)).isEqualTo(expected);
        assertThat(more.position()).isZero();
        assertThat(whole.decoder().error()).isEqualTo(expected);
    }

    @Test
    void ddpVersionTaggedAndUntagged() {
        assertError(mutate(Vectors.TV1, 2, 0xC2), FpduError.DDP_VERSION_TAGGED, TerminateCode.DDP_TAGGED_INVALID_VERSION);
        assertError(mutate(Vectors.TV2, 2, 0x42), FpduError.DDP_VERSION_UNTAGGED, TerminateCode.DDP_UNTAGGED_INVALID_VERSION);
    }

    @Test
    void rdmapVersion() {
        assertError(mutate(Vectors.TV2, 3, 0x83), FpduError.RDMAP_VERSION, TerminateCode.RDMAP_INVALID_VERSION);
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 9, 10, 11, 12, 13, 14, 15})
    void unknownOpcodesBecomeUnexpectedOpcodeTerminates(int opcode) {
        assertThat(RdmapOpcode.fromCode(opcode)).isNull();
        assertError(mutate(Vectors.TV2, 3, 0x40 | opcode), FpduError.UNKNOWN_OPCODE, TerminateCode.RDMAP_UNEXPECTED_OPCODE);
    }

    @Test
    void opcodeLookupIsRangeChecked() {
        assertThat(RdmapOpcode.fromCode(-1)).isNull();
        assertThat(RdmapOpcode.fromCode(Integer.MAX_VALUE)).isNull();
        assertThat(RdmapOpcode.fromCode(7)).isEqualTo(RdmapOpcode.TERMINATE);
    }

    @Test
    void taggedBitMustMatchOpcode() {
        assertError(mutate(Vectors.TV2, 2, 0xC1), FpduError.BUFFER_MODEL_MISMATCH, TerminateCode.RDMAP_UNEXPECTED_OPCODE);
        assertError(mutate(Vectors.TV1, 2, 0x41), FpduError.BUFFER_MODEL_MISMATCH, TerminateCode.RDMAP_UNEXPECTED_OPCODE);
    }

    @Test
    void queueNumberMustMatchOpcodeAndDdpHeaderCanBeCopied() {
        byte[] bad = mutate(Vectors.TV2, 11, 5);
        assertError(bad, FpduError.INVALID_QUEUE_NUMBER, TerminateCode.DDP_UNTAGGED_INVALID_QN);
        Decoding.Result r = Decoding.whole(bad, true);
        ByteBuffer copy = ByteBuffer.allocate(18);
        assertThat(r.decoder().copyDdpHeader(copy, 0)).isEqualTo(18);
        assertThat(Hex.of(copy.array())).isEqualTo(Hex.of(bad, 2, 20));
        assertError(mutate(Vectors.TV4, 11, 0), FpduError.INVALID_QUEUE_NUMBER, TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertError(mutate(Vectors.TV6, 11, 1), FpduError.INVALID_QUEUE_NUMBER, TerminateCode.DDP_UNTAGGED_INVALID_QN);
    }

    @Test
    void ulpduShorterThanHeader() {
        assertError(mutate(Vectors.TV3, 1, 13), FpduError.ULPDU_TOO_SHORT, TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        assertError(mutate(Vectors.TV2, 1, 17), FpduError.ULPDU_TOO_SHORT, TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        assertError(mutate(Vectors.TV4, 1, 45), FpduError.ULPDU_TOO_SHORT, TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        assertThat(Decoding.whole(new byte[] {0, 0, (byte) 0xC1, 0x40}, true).error()).isEqualTo(FpduError.ULPDU_TOO_SHORT);
    }

    @Test
    void readRequestWithPayload() {
        byte[] longer = new byte[FpduFlyweight.fpduLength(50)];
        System.arraycopy(Vectors.TV4, 0, longer, 0, 48);
        longer[1] = 50;
        new FpduFlyweight().wrap(ByteBuffer.wrap(longer), 0).seal(true, new CRC32C());
        assertError(longer, FpduError.READ_REQUEST_WITH_PAYLOAD, TerminateCode.RDMAP_CATASTROPHIC_STREAM);
    }

    @Test
    void malformedTerminateIsNeverAnswered() {
        assertError(mutate(Vectors.TV6, 1, 21), FpduError.MALFORMED_TERMINATE, null);
        byte[] huge = new byte[FpduFlyweight.fpduLength(71)];
        System.arraycopy(Vectors.TV6, 0, huge, 0, 24);
        huge[1] = 71;
        assertError(huge, FpduError.MALFORMED_TERMINATE, null);
    }

    @Test
    void badCrcIsReportedAfterTheFrameAndLatches() {
        byte[] bad = Vectors.TV1.clone();
        bad[20] ^= 1;
        Decoding.Result r = Decoding.whole(Decoding.concat(Vectors.TV2, bad, Vectors.TV3), true);
        assertThat(r.error()).isEqualTo(FpduError.CRC_MISMATCH);
        assertThat(r.frames()).extracting(DecodedFrame::verdict).containsExactly(CrcVerdict.VALID, CrcVerdict.MISMATCH);
        r.decoder().reset();
        assertThat(r.decoder().feed(ByteBuffer.wrap(Vectors.TV3))).isEqualTo(FpduError.NONE);
    }

    @Test
    void garbageNeverThrows() {
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[random.nextInt(200)];
            random.nextBytes(junk);
            for (boolean crc : new boolean[] {true, false}) {
                Decoding.Result r = Decoding.split(junk, crc, junk.length / 2);
                assertThat(r.error()).as("case %d", i).isNotNull();
            }
        }
    }
}
