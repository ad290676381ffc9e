package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.RawPeer.REPLY_KEY;
import static io.jndk.iwarp.hostile.RawPeer.REQUEST_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.cm.CmTestSupport;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Raw TCP clients send hostile MPA Requests to a jndk listener (an adapter's {@code NdkListener} over the iwarp
 * transport, MPA timeout {@value HostileKit#MPA_TIMEOUT_MS} ms). Each is closed without an answer, or answered with
 * an MPA Reject and closed (IWARP.md 1.5); the consumer's connect callback never runs for them; the same listener
 * then serves a valid connection; closing returns sockets and threads.
 */
@Timeout(60)
class HostileListenerTest {

    private HostileKit kit;

    @BeforeEach
    void open() {
        kit = new HostileKit();
    }

    @AfterEach
    void close() throws Exception {
        try {
            assertThat(kit.connectEvents).as("connect callbacks for hostile requests").hasValue(0);
            kit.servesAValidConnection();
            assertThat(kit.connectEvents).hasValue(1);
        } finally {
            kit.close();
        }
    }

    /** Sends {@code octets} and returns what the listener answered before closing. */
    private byte[] answer(byte[] octets) throws Exception {
        try (Socket s = RawPeer.connect(kit.address)) {
            s.getOutputStream().write(octets);
            return CmTestSupport.readUntilClose(s);
        }
    }

    private void closedWithoutAnswer(byte[] octets) throws Exception {
        assertThat(answer(octets)).as("no answer, just a close").isEmpty();
    }

    @Test
    void garbage() throws Exception {
        closedWithoutAnswer("GET / HTTP/1.1\r\nHost: jndk\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void wrongKey() throws Exception {
        closedWithoutAnswer(CmTestSupport.hex(REPLY_KEY + "10020004 80014000"));
    }

    @ParameterizedTest(name = "revision {0}")
    @ValueSource(strings = {"00", "03", "ff"})
    void badRevision(String revision) throws Exception {
        closedWithoutAnswer(CmTestSupport.hex(REQUEST_KEY + "10" + revision + "0004 80014000"));
    }

    @Test
    void markersRequestedAreRejectedWithAReason() throws Exception {
        byte[] reply = answer(CmTestSupport.hex(REQUEST_KEY + "90020004 80014000"));
        String hex = HexFormat.of().formatHex(reply);
        assertThat(hex).as("an MPA Reply with R = 1, M = 0").startsWith(REPLY_KEY + "30" + "02");
        assertThat(new String(reply, 24, reply.length - 24, StandardCharsets.US_ASCII)).contains("markers");
    }

    @Test
    void privateDataOverTheLimit() throws Exception {
        byte[] request = new byte[20 + 300];
        System.arraycopy(CmTestSupport.hex(REQUEST_KEY + "1002012c"), 0, request, 0, 20); // 300 > siw's 256
        closedWithoutAnswer(request);
    }

    @Test
    void privateDataAnnouncedButNeverSent() throws Exception {
        closedWithoutAnswer(CmTestSupport.hex(REQUEST_KEY + "10020040 80014000")); // 64 announced, 4 sent
    }

    @Test
    void halfARequestThenSilenceIsDroppedAfterTheMpaTimeout() throws Exception {
        try (Socket half = RawPeer.connect(kit.address)) {
            half.getOutputStream().write(CmTestSupport.hex(REQUEST_KEY + "1002")); // 18 of 24 octets
            assertThat(CmTestSupport.readUntilClose(half)).as("dropped after the MPA timeout").isEmpty();
        }
    }

    @Test
    void connectThenSilenceIsDroppedAfterTheMpaTimeout() throws Exception {
        try (Socket silent = RawPeer.connect(kit.address)) {
            assertThat(CmTestSupport.readUntilClose(silent)).isEmpty();
        }
    }
}
