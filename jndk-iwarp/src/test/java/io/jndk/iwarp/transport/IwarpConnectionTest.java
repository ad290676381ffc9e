package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.Term;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Two stream engines over real loopback sockets, each driving a fake verbs engine. */
@Timeout(60)
class IwarpConnectionTest {

    private static final int SERVER_STAG = 0x00123400;
    private static final int CLIENT_STAG = 0x00456700;

    static Stream<Arguments> variants() {
        List<Arguments> out = new ArrayList<>();
        for (boolean crc : new boolean[] {false, true}) {
            for (String mss : new String[] {"64", "72", "1448", null}) {
                for (int chunk : new int[] {7, 4096}) {
                    out.add(Arguments.of(crc, mss, chunk));
                }
            }
        }
        return out.stream();
    }

    private static Map<String, String> options(boolean crc, String mss) {
        return mss == null ? Map.of("crc", Boolean.toString(crc)) : Map.of("crc", Boolean.toString(crc), "mss", mss);
    }

    private static void fill(MemorySegment s, long seed) {
        Random r = new Random(seed);
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    @ParameterizedTest(name = "crc={0} mss={1} chunk={2}")
    @MethodSource("variants")
    void writeReadAndSendMoveEveryOctet(boolean crc, String mss, int chunk) throws Exception {
        moveEveryOctet(crc, mss, chunk, 5_003);
    }

    /**
     * Messages with segments of 8 KiB and more take the direct-placement path (payload read from the socket straight
     * into the target); a cursor of 7-octet pieces needs more views than a read takes and falls back to copying.
     */
    @ParameterizedTest(name = "crc={0} chunk={1}")
    @CsvSource({"false, 4096", "true, 4096", "false, 7", "true, 7"})
    void largeMessagesArePlacedDirectlyAndVerified(boolean crc, int chunk) throws Exception {
        moveEveryOctet(crc, null, chunk, 200_003);
    }

    private void moveEveryOctet(boolean crc, String mss, int chunk, int size) throws Exception {
        try (Pair p = Pair.open(options(crc, mss), chunk)) {
            assertThat(p.clientConnection.negotiated().crc()).isEqualTo(crc);
            MemorySegment target = p.server.region(SERVER_STAG, size + 16);
            MemorySegment source = p.client.region(CLIENT_STAG, size);
            fill(source, 1);
            // write at TO 16, spanning many FPDUs with a small MSS
            p.client.post(FakeQp.write("w1", p.client.cursor(source), SERVER_STAG, 16));
            assertThat(p.client.next()).isEqualTo("sent w1");
            // a send behind the write proves the write is placed (stream order)
            MemorySegment rbuf = p.server.region(0x00999900, 100);
            p.server.postReceive(rbuf);
            MemorySegment msg = p.client.region(0x00888800, 37);
            fill(msg, 2);
            p.client.post(FakeQp.send("s1", p.client.cursor(msg), false, null));
            assertThat(p.client.next()).isEqualTo("sent s1");
            assertThat(p.server.next()).isEqualTo("recv 37");
            assertThat(target.asSlice(16, size).mismatch(source)).isEqualTo(-1);
            assertThat(rbuf.asSlice(0, 37).mismatch(msg)).isEqualTo(-1);

            // read it back from the server into a fresh client buffer
            MemorySegment sink = p.client.region(0x00777700, size);
            p.client.post(FakeQp.read("r1", p.client.cursor(sink), SERVER_STAG, 16));
            assertThat(p.client.next()).isEqualTo("readDone r1"); // a read is never reported as sent
            assertThat(sink.mismatch(source)).isEqualTo(-1);
        }
    }

    @Test
    void severalReadsOutstandingCompleteInOrder() throws Exception {
        try (Pair p = Pair.open(Map.of("mss", "128"), 4096)) {
            MemorySegment src = p.server.region(SERVER_STAG, 4000);
            fill(src, 3);
            List<MemorySegment> sinks = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                MemorySegment sink = p.client.region(0x00010000 + (i << 8), 400);
                sinks.add(sink);
                p.client.post(FakeQp.read("r" + i, p.client.cursor(sink), SERVER_STAG, i * 400L));
            }
            int done = 0;
            while (done < 10) {
                String e = p.client.next();
                assertThat(e).doesNotStartWith("failed");
                if (e.startsWith("readDone")) {
                    assertThat(e).isEqualTo("readDone r" + done);
                    done++;
                }
            }
            for (int i = 0; i < 10; i++) {
                assertThat(sinks.get(i).mismatch(src.asSlice(i * 400L, 400))).isEqualTo(-1);
            }
        }
    }

    @Test
    void sendVariantsAndZeroLengthOperations() throws Exception {
        try (Pair p = Pair.open(Map.of("crc", "true", "mss", "64"), 4096)) {
            MemorySegment empty = p.client.region(0x00050000, 0);
            MemorySegment payload = p.client.region(0x00060000, 9);
            fill(payload, 4);
            p.server.region(0x0000AB00, 8); // to be invalidated
            for (int i = 0; i < 4; i++) {
                p.server.postReceive(p.server.region(0x00070000 + (i << 8), 16));
            }
            p.client.post(FakeQp.write("w0", p.client.cursor(empty), 0x00DEAD00, 0)); // zero length: no lookup
            p.client.post(FakeQp.send("s0", p.client.cursor(empty), false, null));
            p.client.post(FakeQp.send("s1", p.client.cursor(payload), true, null));
            p.client.post(FakeQp.send("s2", p.client.cursor(payload), false, 0x0000AB00));
            p.client.post(FakeQp.read("r0", p.client.cursor(empty), 0x00DEAD00, 0));
            assertThat(p.server.next()).isEqualTo("recv 0");
            assertThat(p.server.next()).isEqualTo("recv 9 se");
            assertThat(p.server.next()).isEqualTo("recv 9 inv ab00");
            List<String> c = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                c.add(p.client.next());
            }
            assertThat(c).containsExactly("sent w0", "sent s0", "sent s1", "sent s2", "readDone r0");
        }
    }

    @Test
    void writeToAnUnknownStagTerminatesBothSides() throws Exception {
        try (Pair p = Pair.open(Map.of(), 4096)) {
            MemorySegment src = p.client.region(CLIENT_STAG, 100);
            p.client.post(FakeQp.write("w", p.client.cursor(src), 0x00BAD000, 0));
            int term = Term.DDP_TAGGED_INVALID_STAG;
            assertThat(p.server.next()).isEqualTo("failed " + Integer.toHexString(NtStatus.STATUS_CANCELLED) + " "
                + Term.describe(term) + " sent=true reason=" + DisconnectReason.TERMINATE_SENT);
            assertThat(p.client.next()).isEqualTo("sent w");
            assertThat(p.client.next()).isEqualTo("failed " + Integer.toHexString(NtStatus.STATUS_REMOTE_RESOURCES)
                + " " + Term.describe(term) + " sent=false reason=" + DisconnectReason.TERMINATE_RECEIVED);
            p.awaitClosed();
        }
    }

    @Test
    void readOfAnUnknownSourceTerminates() throws Exception {
        try (Pair p = Pair.open(Map.of("crc", "true"), 4096)) {
            MemorySegment sink = p.client.region(CLIENT_STAG, 100);
            p.client.post(FakeQp.read("r", p.client.cursor(sink), 0x00BAD000, 0));
            int term = Term.RDMAP_INVALID_STAG;
            assertThat(p.server.next()).contains(Term.describe(term), "sent=true");
            assertThat(p.client.next()).contains(Term.describe(term), "sent=false");
            p.awaitClosed();
        }
    }

    @Test
    void sendLongerThanTheReceiveOverflows() throws Exception {
        try (Pair p = Pair.open(Map.of("mss", "64"), 4096)) {
            p.server.postReceive(p.server.region(0x00070000, 8));
            MemorySegment msg = p.client.region(CLIENT_STAG, 100);
            p.client.post(FakeQp.send("s", p.client.cursor(msg), false, null));
            assertThat(p.server.next()).isEqualTo("failReceive " + Integer.toHexString(NtStatus.STATUS_BUFFER_OVERFLOW)
                + " " + Term.describe(Term.DDP_UNTAGGED_TOO_LONG));
            assertThat(p.server.next()).contains(Term.describe(Term.DDP_UNTAGGED_TOO_LONG), "sent=true");
            String e = p.client.next();
            if (e.equals("sent s")) {
                e = p.client.next();
            }
            assertThat(e).contains(Term.describe(Term.DDP_UNTAGGED_TOO_LONG), "sent=false");
            p.awaitClosed();
        }
    }

    @Test
    void sendWithoutReceiveAndFailedInvalidate() throws Exception {
        try (Pair p = Pair.open(Map.of(), 4096)) {
            p.server.postReceive(p.server.region(0x00070000, 8));
            MemorySegment msg = p.client.region(CLIENT_STAG, 4);
            p.client.post(FakeQp.send("s", p.client.cursor(msg), false, 0x00FFFF00));
            assertThat(p.server.next()).isEqualTo("recv 4 fail-invalidate ffff00");
            assertThat(p.server.next()).contains(Term.describe(Term.RDMAP_CANNOT_INVALIDATE), "sent=true");
            assertThat(p.client.next()).isEqualTo("sent s");
            assertThat(p.client.next()).contains(Term.describe(Term.RDMAP_CANNOT_INVALIDATE), "sent=false");
            p.awaitClosed();
        }
    }

    @Test
    void gracefulCloseFromEitherSide() throws Exception {
        try (Pair p = Pair.open(Map.of(), 4096)) {
            MemorySegment src = p.client.region(CLIENT_STAG, 3000);
            p.server.region(SERVER_STAG, 3000);
            p.client.post(FakeQp.write("w", p.client.cursor(src), SERVER_STAG, 0));
            p.clientConnection.disconnect();
            assertThat(p.client.next()).isEqualTo("sent w");
            assertThat(p.server.next()).isEqualTo("peerClosed");
            p.serverConnection.disconnect();
            p.awaitClosed();
            assertThat(p.client.events).isEmpty();
            assertThat(p.serverTransport.openConnections()).isZero();
            assertThat(p.clientTransport.openConnections()).isZero();
        }
    }

    @Test
    void resetIsSeenAsConnectionReset() throws Exception {
        try (Pair p = Pair.open(Map.of(), 4096)) {
            p.clientConnection.reset();
            assertThat(p.server.next()).isEqualTo("failed " + Integer.toHexString(NtStatus.STATUS_CONNECTION_RESET)
                + " " + Term.describe(0) + " sent=false reason=" + DisconnectReason.CONNECTION_RESET);
            p.awaitClosed();
        }
    }

    @Test
    void abortSendsTheTerminate() throws Exception {
        try (Pair p = Pair.open(Map.of("crc", "true"), 4096)) {
            p.clientConnection.abort(Term.RDMAP_CATASTROPHIC);
            assertThat(p.server.next()).contains(Term.describe(Term.RDMAP_CATASTROPHIC), "sent=false",
                "reason=" + DisconnectReason.TERMINATE_RECEIVED);
            p.awaitClosed();
            assertThat(p.client.events).isEmpty();
        }
    }
}
