package io.jndk.iwarp.cm;

import static io.jndk.iwarp.cm.CmTestSupport.ANY_LOOPBACK;
import static io.jndk.iwarp.cm.CmTestSupport.hex;
import static io.jndk.iwarp.cm.CmTestSupport.listen;
import static io.jndk.iwarp.cm.CmTestSupport.rawClient;
import static io.jndk.iwarp.cm.CmTestSupport.readUntilClose;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Raw TCP clients send malformed or hostile MPA Requests to a jndk listener: it answers like siw
 * (IWARP.md 1.5, 5.4 item 20) and keeps serving good connections afterwards.
 */
@Timeout(30)
class MpaListenerHostileTest {

    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final String REP_KEY = "4d504120494420526570204672616d65";

    private CmTestSupport.Accepting handler;
    private MpaListener listener;

    @BeforeEach
    void open() {
        handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, null));
        listener = listen(Duration.ofMillis(500), handler);
    }

    @AfterEach
    void close() {
        listener.close();
    }

    /** A good jndk connection still works, and the handler saw nothing of the bad ones before it. */
    private void stillServesAGoodConnection() throws Exception {
        MpaOutcome o = MpaInitiator.connect(ANY_LOOPBACK, listener.localAddress(), MpaParams.of(1, 1, null));
        assertThat(o).isInstanceOf(MpaOutcome.Accepted.class);
        ((MpaOutcome.Accepted) o).channel().close();
        handler.next().channel().close();
        assertThat(listener.requestsHandled()).isEqualTo(1);
    }

    private void assertPlainClose(byte[] sent) throws Exception {
        long dropped = listener.requestsDropped();
        try (Socket s = rawClient(listener.localAddress())) {
            s.getOutputStream().write(sent);
            assertThat(readUntilClose(s)).as("no answer, just a close").isEmpty();
        }
        assertThat(listener.requestsDropped()).isEqualTo(dropped + 1);
        stillServesAGoodConnection();
    }

    @Test
    void garbageIsClosed() throws Exception {
        assertPlainClose("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void replyKeyInARequestIsClosed() throws Exception {
        assertPlainClose(hex(REP_KEY + "10020004 00010001"));
    }

    @ParameterizedTest(name = "revision {0}")
    @ValueSource(strings = {"00", "03", "ff"})
    void unusableRevisionIsClosed(String revision) throws Exception {
        assertPlainClose(hex(REQ_KEY + "10" + revision + "0004 00010001"));
    }

    @Test
    void privateDataLength600IsClosed() throws Exception {
        assertPlainClose(hex(REQ_KEY + "10020258")); // PD_Length 600 announced, nothing follows
    }

    @Test
    void privateDataLength300IsClosedLikeSiw() throws Exception {
        assertPlainClose(hex(REQ_KEY + "1002012c")); // legal for RFC 5044, above siw's 256
    }

    @Test
    void markersAreRejectedWithAReason() throws Exception {
        try (Socket s = rawClient(listener.localAddress())) {
            s.getOutputStream().write(hex(REQ_KEY + "90020004 00010001"));
            byte[] reason = MpaListener.REASON_MARKERS.getBytes(StandardCharsets.US_ASCII);
            String expected = REP_KEY + "30" + "02" + String.format("%04x", 4 + reason.length) + "00000000" + hex(reason);
            assertThat(hex(readUntilClose(s))).isEqualTo(expected);
        }
        assertThat(listener.requestsRejected()).isEqualTo(1);
        stillServesAGoodConnection();
    }

    @Test
    void markersWithCrcKeepCAndRevisionOne() throws Exception {
        try (Socket s = rawClient(listener.localAddress())) {
            s.getOutputStream().write(hex(REQ_KEY + "c0010000"));
            byte[] reason = MpaListener.REASON_MARKERS.getBytes(StandardCharsets.US_ASCII);
            String expected = REP_KEY + "60" + "01" + String.format("%04x", reason.length) + hex(reason);
            assertThat(hex(readUntilClose(s))).isEqualTo(expected);
        }
    }

    @Test
    void enhancedWithoutRoomForTheWordIsRejected() throws Exception {
        try (Socket s = rawClient(listener.localAddress())) {
            s.getOutputStream().write(hex(REQ_KEY + "10020002 0001"));
            byte[] reply = readUntilClose(s);
            assertThat(hex(reply)).startsWith(REP_KEY + "3002");
        }
        stillServesAGoodConnection();
    }

    @Test
    void halfARequestThenSilenceIsDroppedWithoutBlockingOthers() throws Exception {
        try (Socket half = rawClient(listener.localAddress())) {
            half.getOutputStream().write(hex(REQ_KEY + "1002")); // 18 of 24 octets, then nothing
            // while that one waits for the rest, a good connection is served
            stillServesAGoodConnection();
            assertThat(readUntilClose(half)).as("dropped after the request timeout").isEmpty();
        }
        assertThat(listener.requestsDropped()).isEqualTo(1);
    }

    @Test
    void announcedPrivateDataNeverArrivingIsDropped() throws Exception {
        try (Socket s = rawClient(listener.localAddress())) {
            s.getOutputStream().write(hex(REQ_KEY + "10020010 00010001")); // 16 announced, 4 sent
            assertThat(readUntilClose(s)).isEmpty();
        }
        stillServesAGoodConnection();
    }

    @Test
    void immediateCloseIsHarmless() throws Exception {
        try (Socket s = rawClient(listener.localAddress())) {
            s.shutdownOutput();
            assertThat(readUntilClose(s)).isEmpty();
        }
        stillServesAGoodConnection();
    }

    @Test
    void handlerFailureClosesTheConnection() throws Exception {
        try (MpaListener l = listen((r, c) -> {
            throw new IllegalStateException("handler bug");
        })) {
            MpaOutcome o = MpaInitiator.connect(ANY_LOOPBACK, l.localAddress(), MpaParams.of(1, 1, null));
            assertThat(o).isInstanceOf(MpaOutcome.Failed.class);
            assertThat(((MpaOutcome.Failed) o).reason()).isEqualTo(MpaFailure.PEER_CLOSED);
            assertThat(l.pendingCount()).isZero();
        }
    }

    @Test
    void manyBadClientsAtOnce() throws Exception {
        Socket[] sockets = new Socket[20];
        try {
            for (int i = 0; i < sockets.length; i++) {
                sockets[i] = rawClient(listener.localAddress());
                sockets[i].getOutputStream().write(hex(i % 2 == 0 ? REQ_KEY + "1003" : REP_KEY));
            }
            stillServesAGoodConnection();
            for (Socket s : sockets) {
                assertThat(readUntilClose(s)).isEmpty();
            }
        } finally {
            for (Socket s : sockets) {
                closeQuietly(s);
            }
        }
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // test cleanup
            }
        }
    }
}
