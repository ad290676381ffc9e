package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.kit.Failure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ./jndk rping -c} against a raw MPA responder on 127.0.0.1 that answers the MPA Request with one crafted frame:
 * the one line the client prints and its exit status name the reason (a rejection with the peer's words, which part of
 * the MPA negotiation failed, a Terminate, no answer), not "connection refused (nothing listens there)".
 */
@Timeout(120)
class ConnectFailureMessagesTest {

    private static final String REPLY_KEY = "4d504120494420526570204672616d65";
    private static final Duration RUN = Duration.ofSeconds(40);

    /** A responder that reads the MPA Request and answers {@code reply} (null: closes; empty: stays silent). */
    private static final class RawResponder implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        final CompletableFuture<byte[]> request = new CompletableFuture<>();
        final CompletableFuture<byte[]> afterReply = new CompletableFuture<>();
        private final Thread thread;

        RawResponder(byte[] reply) throws IOException {
            thread = Thread.ofVirtual().start(() -> serve(reply));
        }

        private void serve(byte[] reply) {
            try (Socket s = socket.accept()) {
                s.setSoTimeout(30_000);
                InputStream in = s.getInputStream();
                byte[] header = in.readNBytes(20);
                int pdLength = ((header[18] & 0xFF) << 8) | (header[19] & 0xFF);
                in.readNBytes(pdLength);
                request.complete(header);
                if (reply == null) {
                    return;
                }
                if (reply.length > 0) {
                    s.getOutputStream().write(reply);
                }
                ByteArrayOutputStream rest = new ByteArrayOutputStream();
                in.transferTo(rest); // until the client closes
                afterReply.complete(rest.toByteArray());
            } catch (IOException e) {
                request.completeExceptionally(e);
                afterReply.completeExceptionally(e);
            }
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private record Run(int exit, String line, RawResponder peer) {
    }

    private static Run rping(byte[] reply, String... extra) throws Exception {
        try (RawResponder peer = new RawResponder(reply)) {
            List<String> args = new java.util.ArrayList<>(List.of("rping", "-c", "-a", "127.0.0.1", "-p",
                "" + peer.port(), "-C", "1"));
            args.addAll(List.of(extra));
            try (JndkProcess client = JndkProcess.start(List.of(), args.toArray(String[]::new))) {
                Integer exit = client.await(RUN);
                assertThat(exit).as("client exit; output:%n%s", client.output()).isNotNull();
                assertThat(peer.request.get(5, TimeUnit.SECONDS)).as("the MPA Request").hasSize(20);
                String out = client.output().strip();
                assertThat(out).as("one line").doesNotContain("\n");
                String prefix = "[stderr] rping: client: ";
                assertThat(out).startsWith(prefix);
                return new Run(exit, out.substring(prefix.length()), peer);
            }
        }
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static void mpa(Run r, String... words) {
        assertThat(r.exit).as(r.line).isEqualTo(Failure.Kind.MPA.exit);
        assertThat(r.line).doesNotContain("nothing listens").contains(words);
    }

    @Test
    void aRejectPrintsThePeersPrivateData() throws Exception {
        Run r = rping(hex(REPLY_KEY + "3002000b 00010001" + HexFormat.of().formatHex("go away".getBytes())));
        assertThat(r.exit).as(r.line).isEqualTo(Failure.Kind.REJECTED.exit);
        assertThat(r.line).matches("the server at 127\\.0\\.0\\.1:\\d+ rejected the connection: go away");
    }

    @Test
    void aReplyThatDeclinesPeerToPeerModeSaysSo() throws Exception {
        Run r = rping(hex(REPLY_KEY + "10020004 00010001"));
        mpa(r, "no common way to start the connection", "declines peer-to-peer mode (A=0)");
    }

    @Test
    void aReplyWithNoMatchingRtrOptionSaysSo() throws Exception {
        mpa(rping(hex(REPLY_KEY + "10020004 80014001")), "no common way to start the connection",
            "no matching RTR option");
    }

    @Test
    void aCrcPolicyRejectSaysWhichSideWantsCrcs() throws Exception {
        mpa(rping(hex(REPLY_KEY + "70020004 00010001")), "disagree on MPA CRCs", "requires the MPA CRC", "--crc");
        mpa(rping(hex(REPLY_KEY + "30020004 00010001"), "--crc"), "disagree on MPA CRCs", "refuses the MPA CRC");
    }

    @Test
    void aReplyThatRequiresMarkersSaysSo() throws Exception {
        mpa(rping(hex(REPLY_KEY + "90020004 80018001")), "markers");
    }

    @Test
    void aReplyOfAnotherRevisionSaysSo() throws Exception {
        mpa(rping(hex(REPLY_KEY + "10030004 80018001")), "another MPA revision", "revision 3");
    }

    @Test
    void aReplyWithTooMuchPrivateDataSaysSo() throws Exception {
        byte[] reply = new byte[20 + 300];
        System.arraycopy(hex(REPLY_KEY + "1002012c"), 0, reply, 0, 20);
        mpa(rping(reply), "too much private data", "300 octets");
    }

    @Test
    void aTerminateDuringSetupSaysSo() throws Exception {
        mpa(rping(hex("0016 4147 00000000 00000002 00000001 00000000 20040000 00000000")), "ended the MPA negotiation",
            "Terminate", "LLP_INVALID_MPA_FRAME");
    }

    @Test
    void aPeerThatClosesDuringSetupSaysSo() throws Exception {
        mpa(rping(null), "the peer closed the connection during MPA negotiation");
    }

    @Test
    void aSilentPeerIsNoAnswerInTime() throws Exception {
        Run r = rping(new byte[0]);
        assertThat(r.exit).as(r.line).isEqualTo(Failure.Kind.UNREACHABLE.exit);
        assertThat(r.line).contains("no answer in time");
    }
}
