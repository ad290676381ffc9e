package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An initiator in siw's default client mode (MPA revision 2 without peer-to-peer, so no ready-to-receive frame)
 * gets its connection accepted as soon as the Reply is out: the passive NdkAccept must not wait for a first frame
 * that such a client sends only when its application does (perftest's data connection waits for the server).
 */
@Timeout(30)
class SiwStyleInitiatorTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    @Test
    void acceptCompletesAfterTheReplyWithoutAFirstFrame() throws Exception {
        try (NdkAdapter a = Ndk.open(NdkOpenParameters.of("iwarp", LO))) {
            Ref<NdkPd> pd = new Ref<>();
            Ref<NdkCq> cq = new Ref<>();
            Ref<NdkQp> qp = new Ref<>();
            Ref<NdkListener> listener = new Ref<>();
            assertThat(a.createPd(null, null, pd)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(a.createCq(16, null, null, null, null, null, cq)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(pd.get().createQp(cq.get(), cq.get(), "qp", 4, 4, 1, 1, 0, null, null, qp))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            CompletableFuture<Integer> accepted = new CompletableFuture<>();
            CompletableFuture<NdkConnector> connector = new CompletableFuture<>();
            assertThat(a.createListener((ctx, c) -> {
                connector.complete(c);
                int s = c.accept(qp.get(), 1, 1, null, null, null, (x, st) -> accepted.complete(st), null);
                if (s != NtStatus.STATUS_PENDING) {
                    accepted.complete(s);
                }
            }, null, null, null, listener)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(listener.get().listen(new InetSocketAddress(LO, 0), null, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Ref<InetSocketAddress> where = new Ref<>();
            listener.get().getLocalAddress(where, new IntRef(28));

            try (SocketChannel client = SocketChannel.open(where.get())) {
                // siw's rping Request: revision 2, S=1, IRD 1 / ORD 1, no peer-to-peer bits (IWARP.md 7.2)
                ByteBuffer request = ByteBuffer.allocate(24);
                request.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
                request.put(new byte[] {0x10, 0x02, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01}).flip();
                while (request.hasRemaining()) {
                    client.write(request);
                }
                ByteBuffer reply = ByteBuffer.allocate(24);
                while (reply.hasRemaining()) {
                    assertThat(client.read(reply)).isNotNegative();
                }
                assertThat(new String(reply.array(), 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Rep Frame");
                assertThat(reply.get(16) & 0x80).as("the R (reject) flag is clear").isZero();
                assertThat(accepted.get(10, TimeUnit.SECONDS)).as("accept without a first frame")
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            connector.get().close(null, null);
            qp.get().close(null, null);
            listener.get().close(null, null);
            cq.get().close(null, null);
            pd.get().close(null, null);
        }
    }
}
