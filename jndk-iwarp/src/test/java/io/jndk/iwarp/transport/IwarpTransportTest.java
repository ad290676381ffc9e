package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.ConnectFailure;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.WireConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Connection setup through the transport: status mapping, reject, and the passive side's wait for the first FPDU. */
@Timeout(60)
class IwarpTransportTest {

    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    /** Records the one outcome of an active connect. */
    private static final class Outcome implements ActiveHandler {
        final CompletableFuture<String> result = new CompletableFuture<>();

        @Override
        public void onReply(WireConnection connection, InetSocketAddress local, byte[] privateData, int peerIrd,
                            int peerOrd) {
            connection.reject();
            result.complete("reply");
        }

        @Override
        public void onRejected(byte[] privateData, ConnectFailure.Reason reason, String detail) {
            result.complete("rejected " + new String(privateData, java.nio.charset.StandardCharsets.US_ASCII));
        }

        @Override
        public void onFailed(int status, ConnectFailure.Reason reason, String detail) {
            result.complete("failed " + Integer.toHexString(status));
        }

        String get() throws Exception {
            return result.get(FakeQp.GUARD_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void listeningOnAnAddressInUseIsASharingViolation() throws Exception {
        IwarpTransport t = new IwarpTransport(Map.of());
        try (ServerSocket taken = new ServerSocket(0, 1, ANY.getAddress())) {
            int s = t.listen(new InetSocketAddress(ANY.getAddress(), taken.getLocalPort()), r -> r.refuse());
            assertThat(s).isEqualTo(NtStatus.STATUS_SHARING_VIOLATION);
        } finally {
            t.shutdown();
        }
    }

    @Test
    void nothingListeningIsRefused() throws Exception {
        IwarpTransport t = new IwarpTransport(Map.of());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, ANY.getAddress())) {
            port = s.getLocalPort();
        }
        Outcome o = new Outcome();
        t.connect(null, new InetSocketAddress(ANY.getAddress(), port), false,
            new ConnectRequest(new byte[0], 1, 1, 5_000), o);
        assertThat(o.get()).isEqualTo("failed " + Integer.toHexString(NtStatus.STATUS_CONNECTION_REFUSED));
        t.shutdown();
    }

    @Test
    void rejectCarriesPrivateData() throws Exception {
        IwarpTransport server = new IwarpTransport(Map.of());
        IwarpTransport client = new IwarpTransport(Map.of());
        assertThat(server.listen(ANY, r -> r.reject("no".getBytes(java.nio.charset.StandardCharsets.US_ASCII))))
            .isZero();
        Outcome o = new Outcome();
        client.connect(null, server.boundAddress(ANY), false, new ConnectRequest(new byte[0], 1, 1, 5_000), o);
        assertThat(o.get()).isEqualTo("rejected no");
        server.shutdown();
        client.shutdown();
    }

    @Test
    void activeRejectAfterReplyAbortsThePassiveSide() throws Exception {
        IwarpTransport server = new IwarpTransport(Map.of());
        IwarpTransport client = new IwarpTransport(Map.of());
        FakeQp qp = new FakeQp(1, 1, 4096);
        CompletableFuture<Integer> passive = new CompletableFuture<>();
        assertThat(server.listen(ANY, r -> r.accept(new byte[0], 1, 1, qp, new PassiveHandler() {
            @Override
            public void onEstablished(WireConnection connection) {
                passive.complete(0);
            }

            @Override
            public void onFailed(int status) {
                passive.complete(status);
            }
        }))).isZero();
        Outcome o = new Outcome();
        client.connect(null, server.boundAddress(ANY), false, new ConnectRequest(new byte[0], 1, 1, 5_000), o);
        assertThat(o.get()).isEqualTo("reply");
        assertThat(passive.get(FakeQp.GUARD_SECONDS, TimeUnit.SECONDS)).isEqualTo(NtStatus.STATUS_CONNECTION_ABORTED);
        assertThat(qp.events).isEmpty();
        server.shutdown();
        client.shutdown();
        qp.close();
    }

    @Test
    void silentInitiatorTimesOutThePassiveSide() throws Exception {
        IwarpTransport server = new IwarpTransport(Map.of("accept.timeout.ms", "200"));
        FakeQp qp = new FakeQp(1, 1, 4096);
        CompletableFuture<Integer> passive = new CompletableFuture<>();
        assertThat(server.listen(ANY, r -> r.accept(new byte[0], 1, 1, qp, new PassiveHandler() {
            @Override
            public void onEstablished(WireConnection connection) {
                passive.complete(0);
            }

            @Override
            public void onFailed(int status) {
                passive.complete(status);
            }
        }))).isZero();
        // a raw initiator: MPA Request (rev 2, S, IRD 1, ORD 1, A + Write RTR offered), then silence
        try (Socket s = new Socket(ANY.getAddress(), server.boundAddress(ANY).getPort())) {
            byte[] request = java.util.HexFormat.of().parseHex(
                "4d504120494420526571204672616d65" + "10020004" + "80018001");
            s.getOutputStream().write(request);
            assertThat(passive.get(FakeQp.GUARD_SECONDS, TimeUnit.SECONDS)).isEqualTo(NtStatus.STATUS_IO_TIMEOUT);
        }
        server.shutdown();
        qp.close();
    }
}
