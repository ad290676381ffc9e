package io.jndk.iwarp.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault proxy over real loopback TCP: what each fault does to the bytes the target receives. */
class FaultProxyTest {
    private ServerSocketChannel target;

    @BeforeEach
    void listen() throws IOException {
        target = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void close() throws IOException {
        target.close();
    }

    /** A proxy in front of the target and one connection through it. */
    private record Path(FaultProxy proxy, SocketChannel client, SocketChannel server) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (client; server) {
                proxy.close();
            }
        }
    }

    private Path open(FaultPlan plan) throws IOException {
        FaultProxy proxy = FaultProxy.start((InetSocketAddress) target.getLocalAddress(), plan);
        SocketChannel client = SocketChannel.open(proxy.address());
        return new Path(proxy, client, target.accept());
    }

    /** Sends {@code data} through a proxy with {@code plan}, closes the sending side, returns what arrived. */
    private byte[] through(FaultPlan plan, byte[] data) throws IOException {
        try (Path path = open(plan)) {
            SocketChannel client = path.client();
            SocketChannel server = path.server();
            client.write(ByteBuffer.wrap(data));
            client.shutdownOutput();
            return readToEnd(server);
        }
    }

    private static byte[] readToEnd(SocketChannel c) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(1 << 20);
        while (c.read(in) >= 0) {
            assertThat(in.hasRemaining()).as("more bytes than sent").isTrue();
        }
        return Arrays.copyOf(in.array(), in.position());
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void splitsAndDelaysDeliverEveryByteInOrder() throws IOException {
        byte[] data = random(200_000, 1);
        FaultPlan plan = new SeededFaultPlan(7, SeededFaultPlan.Rates.benign(0.4, 0.2, 2));
        assertThat(through(plan, data)).isEqualTo(data);
    }

    @Test
    void corruptionFlipsExactlyTheChosenBits() throws IOException {
        byte[] data = random(5000, 2);
        byte[] expected = data.clone();
        expected[4000] ^= 0x10;
        assertThat(through(FaultPlan.at(FaultDirection.TO_TARGET, 4000, FaultKind.CORRUPT, 0x10), data))
            .isEqualTo(expected);
    }

    @Test
    void dropLeavesBytesOut() throws IOException {
        byte[] data = random(5000, 3);
        byte[] expected = new byte[data.length - 3];
        System.arraycopy(data, 0, expected, 0, 100);
        System.arraycopy(data, 103, expected, 100, data.length - 103);
        assertThat(through(FaultPlan.at(FaultDirection.TO_TARGET, 100, FaultKind.DROP, 3), data)).isEqualTo(expected);
    }

    @Test
    void resetForwardsThePrefixThenResetsBothSides() throws IOException {
        try (Path path = open(FaultPlan.at(FaultDirection.TO_TARGET, 7, FaultKind.RESET, 0))) {
            FaultProxy proxy = path.proxy();
            SocketChannel client = path.client();
            SocketChannel server = path.server();
            client.write(ByteBuffer.wrap(random(20, 4)));
            ByteBuffer in = ByteBuffer.allocate(64);
            assertThatThrownBy(() -> {
                while (server.read(in) >= 0) {
                    assertThat(in.position()).isLessThanOrEqualTo(7);
                }
            }).as("a reset, not an orderly end of stream").isInstanceOf(IOException.class);
            assertThat(in.position()).isEqualTo(7);
            assertThat(proxy.injected(FaultKind.RESET)).isEqualTo(1);
            assertThat(proxy.destructive()).isEqualTo(1);
        }
    }

    @Test
    void theOtherDirectionPassesUntouchedAndCountsNothing() throws IOException {
        try (Path path = open(FaultPlan.at(FaultDirection.TO_TARGET, 0, FaultKind.CORRUPT, 1))) {
            FaultProxy proxy = path.proxy();
            SocketChannel client = path.client();
            SocketChannel server = path.server();
            byte[] data = random(3000, 5);
            server.write(ByteBuffer.wrap(data));
            server.shutdownOutput();
            assertThat(readToEnd(client)).isEqualTo(data);
            assertThat(proxy.destructive()).isZero();
            assertThat(proxy.connections()).isEqualTo(1);
        }
    }
}
