package io.jndk.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.tools.perf.PerfProtocol.Accept;
import io.jndk.tools.perf.PerfProtocol.Op;
import io.jndk.tools.perf.PerfProtocol.Request;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The perf private data and the data pattern, without sockets. */
class PerfProtocolTest {
    @Test
    void requestAndAcceptSurviveTheirEncoding() {
        Request r = new Request(Op.SEND, 4096, 1000, 500, 16, 8, -42L, 0x7F00_1234_5000L, 0xCAFEF00D, 65536);
        byte[] b = r.encode();
        assertThat(b).hasSize(PerfProtocol.REQUEST_LENGTH);
        assertThat(Arrays.copyOf(b, 4)).containsExactly(0x4A, 0x4E, 0x44, 0x50);
        assertThat(Request.decode(b, b.length)).isEqualTo(r);
        Accept a = new Accept(32, 4, 0x1000L, 7, 1 << 20);
        byte[] c = a.encode(PerfProtocol.VERSION);
        assertThat(c.length).isLessThanOrEqualTo(252);
        assertThat(Accept.decode(c, c.length)).isEqualTo(a);
    }

    @Test
    void version2CarriesTheLatencyModeAndVersion1IsStillUnderstood() {
        Request lat = new Request(Op.WRITE, 64, 1000, 0, 1, 1, 5L, 0x2000L, 9, 64, true, PerfProtocol.VERSION);
        byte[] b = lat.encode();
        assertThat(b[4]).isEqualTo((byte) 2);
        assertThat(b[7]).isEqualTo((byte) PerfProtocol.FLAG_LATENCY);
        assertThat(Request.decode(b, b.length)).isEqualTo(lat);
        // A version 1 client (reserved byte 7 = 0) asks for the bandwidth mode and gets its answer in version 1.
        Request v1 = new Request(Op.SEND, 8, 10, 10, 1, 1, 5L, 0, 0, 8, false, 1);
        byte[] old = v1.encode();
        assertThat(Request.decode(old, old.length)).isEqualTo(v1);
        byte[] accept = new Accept(4, 2, 0, 0, 8).encode(Request.decode(old, old.length).version());
        assertThat(accept[4]).isEqualTo((byte) 1);
        old[7] = 1; // version 1 had no flags
        assertThatThrownBy(() -> Request.decode(old, old.length)).hasMessageContaining("flags 0x01");
        b[7] = 6;
        assertThatThrownBy(() -> Request.decode(b, b.length)).hasMessageContaining("flags 0x06");
    }

    @Test
    void foreignOrDamagedPrivateDataIsRefusedWithAReason() {
        byte[] b = new Request(Op.WRITE, 8, 1, 1, 1, 1, 1, 0, 0, 8).encode();
        assertThatThrownBy(() -> Accept.decode(b, b.length)).hasMessageContaining("kind");
        byte[] v = b.clone();
        v[4] = 9;
        assertThatThrownBy(() -> Request.decode(v, v.length)).hasMessageContaining("version 9");
        byte[] m = b.clone();
        m[0] = 0;
        assertThatThrownBy(() -> Request.decode(m, m.length)).hasMessageContaining("magic");
        byte[] big = new Request(Op.READ, PerfProtocol.MAX_SIZE, 1, 1, 2, 1, 1, 0, 0, 8).encode();
        assertThatThrownBy(() -> Request.decode(big, big.length)).hasMessageContaining("too large");
        assertThatThrownBy(() -> Request.decode(b, 10)).hasMessageContaining("10 bytes");
    }

    @Test
    void aRejectCarriesItsReasonWithinTheNdkLimit() {
        byte[] r = PerfProtocol.encodeReject("x".repeat(400));
        assertThat(r.length).isEqualTo(252);
        assertThat(PerfProtocol.decodeReject(r, r.length)).hasSize(244);
        byte[] s = PerfProtocol.encodeReject("size 0 outside 1..67108864");
        assertThat(PerfProtocol.decodeReject(s, s.length)).isEqualTo("size 0 outside 1..67108864");
        assertThat(PerfProtocol.decodeReject(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 8)).isNull();
    }

    @Test
    void thePatternIsAPureFunctionOfSeedSizeAndOffsetAndDiffersBetweenSlots() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(3 * 1001), b = arena.allocate(3 * 1001);
            PerfProtocol.fill(a, 7, 1001);
            PerfProtocol.fill(b, 7, 1001);
            assertThat(a.mismatch(b)).isEqualTo(-1);
            for (long o = 0; o < a.byteSize(); o++) {
                long w = PerfProtocol.word(7, 1001, o >>> 3);
                assertThat(a.get(ValueLayout.JAVA_BYTE, o)).isEqualTo((byte) (w >>> (56 - 8 * (o & 7))));
            }
            assertThat(a.asSlice(0, 1001).mismatch(a.asSlice(1001, 1001))).isNotEqualTo(-1);
            PerfProtocol.fill(b, 8, 1001);
            assertThat(a.mismatch(b)).isNotEqualTo(-1);
        }
    }
}
