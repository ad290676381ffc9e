package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FpduEncoder#header} and {@link FpduEncoder#trailer}, the two-part framing of a gathering sender, give the
 * octets of the one-piece {@link FpduEncoder#tagged} and {@link FpduEncoder#untagged}: with the payload copied
 * behind the header, and with the payload in views of other memory (written as header, views, trailer).
 */
class EncoderFramingTest {

    private static final RdmapOpcode[] DATA = {
        RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_READ_RESPONSE, RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE,
        RdmapOpcode.SEND_WITH_SE, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE,
    };

    static LongStream seeds() {
        return LongStream.range(0, 12).map(i -> 0xF4A3_0000L + i * 7919);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void twoPartFramingEqualsTheWholeFpdu(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 300; i++) {
            String as = "seed=" + seed + " case=" + i;
            boolean crc = random.nextBoolean();
            RdmapOpcode op = DATA[random.nextInt(DATA.length)];
            boolean last = random.nextBoolean();
            int key = random.nextInt();
            long to = random.nextLong();
            int msn = random.nextInt();
            int mo = random.nextInt();
            // every pad length, and now and then a payload of several views
            int length = random.nextInt(4) == 0 ? random.nextInt(3000) : random.nextInt(12);
            byte[] payload = new byte[length];
            random.nextBytes(payload);

            ByteBuffer whole = ByteBuffer.allocate(FpduFlyweight.fpduLength(op.headerLength() + length));
            FpduEncoder encoder = new FpduEncoder(crc);
            int wholeLength = op.tagged()
                ? encoder.tagged(whole, 0, op, last, key, to, ByteBuffer.wrap(payload), 0, length)
                : encoder.untagged(whole, 0, op, last, key, op.queueNumber(), msn, mo, ByteBuffer.wrap(payload), 0,
                    length);
            byte[] expected = Arrays.copyOf(whole.array(), wholeLength);

            assertThat(copied(encoder, op, last, key, to, msn, mo, payload, random)).as(as).isEqualTo(expected);
            assertThat(gathered(encoder, op, last, key, to, msn, mo, payload, random)).as(as).isEqualTo(expected);
        }
    }

    /** Header, payload copied behind it, trailer: one piece of a direct buffer at a random index. */
    private static byte[] copied(FpduEncoder encoder, RdmapOpcode op, boolean last, int key, long to, int msn, int mo,
                                 byte[] payload, Random random) {
        int at = random.nextInt(9);
        ByteBuffer dst = ByteBuffer.allocateDirect(at + FpduFlyweight.fpduLength(op.headerLength() + payload.length));
        int position = random.nextInt(dst.capacity());
        dst.position(position);
        int headerLength = encoder.header(dst, at, op, last, key, to, msn, mo, payload.length);
        assertThat(headerLength).isEqualTo(op.fpduHeaderLength());
        dst.put(at + headerLength, payload);
        int end = at + headerLength + payload.length;
        int n = end - at + encoder.trailer(dst, at, end, null, 0, 0);
        assertThat(dst.position()).isEqualTo(position);
        byte[] out = new byte[n];
        dst.get(at, out);
        return out;
    }

    /** Header and trailer in a buffer of their own, the payload in views between them (as a gathering write). */
    private static byte[] gathered(FpduEncoder encoder, RdmapOpcode op, boolean last, int key, long to, int msn,
                                   int mo, byte[] payload, Random random) {
        int at = random.nextInt(9);
        ByteBuffer stage = ByteBuffer.allocateDirect(at + op.fpduHeaderLength() + 3 + FpduFlyweight.CRC_LENGTH);
        int headerLength = encoder.header(stage, at, op, last, key, to, msn, mo, payload.length);
        // the payload as views of a larger buffer, each a window (position..limit) of it
        ByteBuffer memory = ByteBuffer.allocateDirect(payload.length + 32);
        memory.put(16, payload);
        ByteBuffer[] views = new ByteBuffer[2 + payload.length / 64 + 8];
        int first = 1 + random.nextInt(2);
        int count = 0;
        for (int done = 0; done < payload.length; count++) {
            int piece = Math.min(payload.length - done, 1 + random.nextInt(200));
            views[first + count] = memory.duplicate().limit(16 + done + piece).position(16 + done);
            done += piece;
        }
        int end = at + headerLength;
        int trailerLength = encoder.trailer(stage, at, end, views, first, count);
        byte[] out = new byte[headerLength + payload.length + trailerLength];
        stage.get(at, out, 0, headerLength);
        int p = headerLength;
        for (int i = first; i < first + count; i++) {
            int remaining = views[i].remaining();
            views[i].get(views[i].position(), out, p, remaining); // the trailer left every view as it was
            p += remaining;
        }
        assertThat(p).isEqualTo(headerLength + payload.length);
        stage.get(end, out, p, trailerLength);
        return out;
    }
}
