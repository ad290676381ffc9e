package io.jndk.iwarp.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.ConnectFailure;
import io.jndk.api.IntRef;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.CmTestSupport;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every reason a connection setup fails reaches the consumer beside the NDKPI status: {@code NdkConnect} against a raw
 * MPA responder on 127.0.0.1 that answers the Request with one crafted frame (or none), then
 * {@link NdkConnector#connectFailure()}. The status stays NDKPI's ({@code STATUS_CONNECTION_REFUSED} for every refusal,
 * {@code STATUS_IO_TIMEOUT} for no answer); the reason and its detail say which refusal it was.
 */
@Timeout(60)
class ConnectFailureTest {

    private static final String REPLY_KEY = "4d504120494420526570204672616d65";

    /** One connect against a responder that answers with {@code reply} (null: closes; empty: stays silent). */
    private static Result connect(HostileKit kit, byte[] reply) throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> request = new CompletableFuture<>();
            Thread peer = Thread.ofVirtual().start(() -> answer(raw, reply, request));
            NdkConnector connector = kit.create(r -> kit.adapter.createConnector(null, null, r));
            NdkQp qp = kit.create(r -> kit.pd.createQp(kit.cq, kit.cq, "out", 1, 1, 1, 1, 0, null, null, r));
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<ConnectFailure> seenInCompletion = new CompletableFuture<>();
            int s = HostileKit.request(rc -> connector.connect(qp, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                0), to, 1, 1, null, (ctx, st) -> {
                    seenInCompletion.complete(connector.connectFailure().orElse(null));
                    rc.onCompleted(ctx, st);
                }, null));
            assertThat(request.get(HostileKit.WAIT_NANOS, TimeUnit.NANOSECONDS)).as("the MPA Request arrived").isNotEmpty();
            ConnectFailure f = connector.connectFailure().orElse(null);
            assertThat(f).as("a reason beside %s", NtStatus.name(s)).isNotNull();
            assertThat(seenInCompletion.get(HostileKit.WAIT_NANOS, TimeUnit.NANOSECONDS)).as("set before the completion")
                .isEqualTo(f);
            assertThat(f.status()).isEqualTo(s);
            byte[] data = new byte[256];
            IntRef length = new IntRef(data.length);
            int cd = connector.getConnectionData(null, null, data, length);
            byte[] connectionData = cd == NtStatus.STATUS_SUCCESS ? Arrays.copyOf(data, length.value) : null;
            kit.close(connector);
            kit.close(qp);
            peer.join(TimeUnit.NANOSECONDS.toMillis(HostileKit.WAIT_NANOS));
            return new Result(s, f, connectionData);
        }
    }

    private record Result(int status, ConnectFailure failure, byte[] connectionData) {
    }

    private static void answer(ServerSocket raw, byte[] reply, CompletableFuture<byte[]> request) {
        try (Socket s = raw.accept()) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            byte[] header = in.readNBytes(20);
            int pdLength = ((header[18] & 0xFF) << 8) | (header[19] & 0xFF);
            byte[] pd = in.readNBytes(pdLength);
            byte[] all = Arrays.copyOf(header, 20 + pd.length);
            System.arraycopy(pd, 0, all, 20, pd.length);
            request.complete(all);
            if (reply == null) {
                return; // closes at once
            }
            if (reply.length > 0) {
                s.getOutputStream().write(reply);
            }
            CmTestSupport.readUntilClose(s); // silent until the initiator gives up (a Terminate may come first)
        } catch (IOException e) {
            request.completeExceptionally(e);
        }
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static void refused(Result r, ConnectFailure.Reason reason, String... detail) {
        assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_CONNECTION_REFUSED");
        assertThat(r.failure.reason()).isEqualTo(reason);
        assertThat(r.failure.detail()).contains(detail);
    }

    @Test
    void aRejectCarriesThePeersPrivateData() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            // R = 1, S = 1, PD_Length 4 + 7: IRD/ORD word, then "go away"
            Result r = connect(kit, hex(REPLY_KEY + "3002000b 00010001" + HexFormat.of().formatHex("go away".getBytes())));
            refused(r, ConnectFailure.Reason.REJECTED, "rejected");
            assertThat(new String(r.failure.privateData())).isEqualTo("go away");
            assertThat(r.connectionData).as("GetConnectionData agrees").isEqualTo("go away".getBytes());
        }
    }

    @Test
    void aReplyThatDeclinesPeerToPeerModeIsAStartupMismatch() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            // S = 1, A = 0 in answer to jndk's A = 1 with a Write RTR offered
            refused(connect(kit, hex(REPLY_KEY + "10020004 00010001")), ConnectFailure.Reason.STARTUP_MISMATCH,
                "declines peer-to-peer mode");
            // A = 1 but only a Read RTR, which jndk did not offer
            refused(connect(kit, hex(REPLY_KEY + "10020004 80014001")), ConnectFailure.Reason.STARTUP_MISMATCH,
                "no matching RTR option");
        }
    }

    @Test
    void aRejectThatRefusesTheCrcPolicyIsACrcMismatch() throws Exception {
        try (HostileKit kit = new HostileKit()) { // jndk's default: no CRC (C = 0)
            Result r = connect(kit, hex(REPLY_KEY + "70020004 00010001")); // R = 1 with C = 1: "CRC required"
            refused(r, ConnectFailure.Reason.CRC_MISMATCH, "requires the MPA CRC");
        }
        try (HostileKit kit = new HostileKit(Map.of("crc", "true"))) {
            Result r = connect(kit, hex(REPLY_KEY + "30020004 00010001")); // R = 1 with C = 0: "CRC refused"
            refused(r, ConnectFailure.Reason.CRC_MISMATCH, "refuses the MPA CRC");
        }
    }

    @Test
    void aReplyThatRequiresMarkersIsAFramingMismatch() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            refused(connect(kit, hex(REPLY_KEY + "90020004 80018001")), ConnectFailure.Reason.FRAMING_MISMATCH,
                "markers");
        }
    }

    @Test
    void aReplyOfAnotherRevisionIsAVersionMismatch() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            refused(connect(kit, hex(REPLY_KEY + "10030004 80018001")), ConnectFailure.Reason.VERSION_MISMATCH,
                "revision 3");
            refused(connect(kit, hex(REPLY_KEY + "00010000")), ConnectFailure.Reason.VERSION_MISMATCH, "revision 1");
        }
    }

    @Test
    void aReplyWithTooMuchPrivateDataIsRefused() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            byte[] reply = new byte[20 + 300];
            System.arraycopy(hex(REPLY_KEY + "1002012c"), 0, reply, 0, 20);
            refused(connect(kit, reply), ConnectFailure.Reason.PRIVATE_DATA_TOO_LONG, "300");
        }
    }

    @Test
    void aTerminateDuringSetupIsThePeersError() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            // a Terminate FPDU (LLP/MPA 0x04, invalid MPA frame) where the Reply should be
            Result r = connect(kit, hex("0016 4147 00000000 00000002 00000001 00000000 20040000 00000000"));
            refused(r, ConnectFailure.Reason.PEER_TERMINATED, "Terminate", "LLP_INVALID_MPA_FRAME");
        }
    }

    @Test
    void aMalformedReplyIsAProtocolError() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            refused(connect(kit, hex("4d504120494420526571204672616d65 10020004 80018001")),
                ConnectFailure.Reason.PROTOCOL_ERROR, "wrong key");
        }
    }

    @Test
    void aPeerThatClosesWithoutAReplyIsPeerClosed() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            refused(connect(kit, null), ConnectFailure.Reason.PEER_CLOSED, "closed the TCP connection");
        }
    }

    @Test
    void aSilentPeerTimesOut() throws Exception {
        // the connect's deadline (the provider's, which is also the wait for the MPA Reply)
        try (HostileKit kit = new HostileKit(Map.of("connect.timeout.ms", "500"))) {
            Result r = connect(kit, new byte[0]);
            assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_IO_TIMEOUT");
            assertThat(r.failure.reason()).isEqualTo(ConnectFailure.Reason.TIMEOUT);
            assertThat(r.failure.detail()).contains("within 500 ms");
        }
    }

    @Test
    void nothingListeningIsNoListenerAndARetryClearsTheReason() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            int port;
            try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = gone.getLocalPort();
            }
            NdkConnector connector = kit.create(r -> kit.adapter.createConnector(null, null, r));
            NdkQp qp = kit.create(r -> kit.pd.createQp(kit.cq, kit.cq, "out", 1, 1, 1, 1, 0, null, null, r));
            InetSocketAddress from = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            assertThat(connector.connectFailure()).as("none before an attempt").isEmpty();
            int s = HostileKit.request(rc -> connector.connect(qp, from,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1, 1, null, rc, null));
            assertThat(NtStatus.name(s)).isEqualTo("STATUS_CONNECTION_REFUSED");
            assertThat(connector.connectFailure()).get().extracting(ConnectFailure::reason)
                .isEqualTo(ConnectFailure.Reason.NO_LISTENER);
            HostileKit.Accepting a = kit.prepare(1);
            int again = HostileKit.request(rc -> connector.connect(qp, from, kit.address, 1, 1, null, rc, null));
            assertThat(NtStatus.name(again)).isEqualTo("STATUS_SUCCESS");
            assertThat(connector.connectFailure()).as("cleared by the next attempt").isEmpty();
            assertThat(connector.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
            kit.close(connector);
            kit.close(qp);
        }
    }
}
