package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.ConnectFailure;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.WireConnection;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Two transports on 127.0.0.1 with one connection between them, each side bound to a {@link FakeQp}. */
final class Pair implements AutoCloseable {

    final IwarpTransport serverTransport;
    final IwarpTransport clientTransport;
    final FakeQp server;
    final FakeQp client;
    final IwarpConnection serverConnection;
    final IwarpConnection clientConnection;

    private Pair(Map<String, String> options, int chunk) throws Exception {
        serverTransport = new IwarpTransport(options);
        clientTransport = new IwarpTransport(options);
        server = new FakeQp(4, 4, chunk);
        client = new FakeQp(4, 4, chunk);
        CompletableFuture<WireConnection> established = new CompletableFuture<>();
        CompletableFuture<WireConnection> replied = new CompletableFuture<>();
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        int s = serverTransport.listen(any, request -> request.accept(new byte[] {1, 2}, 4, 4, server,
            new PassiveHandler() {
                @Override
                public void onEstablished(WireConnection connection) {
                    server.connection = connection;
                    established.complete(connection);
                }

                @Override
                public void onFailed(int status) {
                    established.completeExceptionally(new AssertionError("passive failed " + Integer.toHexString(status)));
                }
            }));
        assertThat(s).isZero();
        clientTransport.connect(null, serverTransport.boundAddress(any), false,
            new ConnectRequest(new byte[] {3}, 4, 4, 5_000), new ActiveHandler() {
                @Override
                public void onReply(WireConnection connection, InetSocketAddress local, byte[] privateData,
                                    int peerIrd, int peerOrd) {
                    client.connection = connection;
                    connection.start(client);
                    replied.complete(connection);
                }

                @Override
                public void onRejected(byte[] privateData, ConnectFailure.Reason reason, String detail) {
                    replied.completeExceptionally(new AssertionError("rejected"));
                }

                @Override
                public void onFailed(int status, ConnectFailure.Reason reason, String detail) {
                    replied.completeExceptionally(new AssertionError("failed " + Integer.toHexString(status)));
                }
            });
        clientConnection = (IwarpConnection) replied.get(FakeQp.GUARD_SECONDS, TimeUnit.SECONDS);
        serverConnection = (IwarpConnection) established.get(FakeQp.GUARD_SECONDS, TimeUnit.SECONDS);
        serverTransport.unlisten(any);
    }

    static Pair open(Map<String, String> options, int chunk) throws Exception {
        return new Pair(options, chunk);
    }

    void awaitClosed() throws InterruptedException {
        assertThat(clientConnection.awaitClosed(FakeQp.GUARD_SECONDS * 1000)).isTrue();
        assertThat(serverConnection.awaitClosed(FakeQp.GUARD_SECONDS * 1000)).isTrue();
    }

    @Override
    public void close() {
        clientConnection.reset();
        serverConnection.reset();
        try {
            clientConnection.awaitClosed(FakeQp.GUARD_SECONDS * 1000);
            serverConnection.awaitClosed(FakeQp.GUARD_SECONDS * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        clientTransport.shutdown();
        serverTransport.shutdown();
        client.close();
        server.close();
    }
}
