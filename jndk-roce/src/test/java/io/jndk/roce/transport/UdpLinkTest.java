package io.jndk.roce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.Icrc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link UdpLink}'s two send paths over 127.0.0.1 between two links: a connected socket per peer address (an
 * ephemeral source port, which the ICRC covers and the receiver checks) and the device's own port; the cap on
 * connected peers; and an ICMP error on a connected socket turned into a counted drop instead of an exception.
 */
@Timeout(60)
class UdpLinkTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    @Test
    void aConnectedSocketSendsFromItsOwnPortAndTheReceiverChecksTheIcrcOverIt() throws IOException {
        int pa = freePort();
        int pb = freePort();
        try (UdpLink a = link(pa, pb, UdpLink.SendPath.CONNECTED); UdpLink b = link(pb, pa, UdpLink.SendPath.BOUND)) {
            ByteBuffer in = ByteBuffer.allocateDirect(65536);
            for (int i = 0; i < 3; i++) {
                ByteBuffer p = packet(i, 64 + 4 * i);
                assertThat(a.send(LO, 0xC000, p, 0, p.capacity())).isTrue();
                assertThat(a.sentSourcePort(0xC000)).isNotIn(pa, 0xC000, 0);
                assertThat(receive(b, in)).isEqualTo(p.capacity());
                assertThat(b.sourcePort()).isEqualTo(a.sentSourcePort(0));
                assertThat(in.slice(0, p.capacity())).isEqualTo(p.rewind());
            }
            assertThat(a.connectedPeers()).isEqualTo(1);
            assertThat(b.icrcGood()).isEqualTo(3);
            assertThat(b.icrcBad()).isZero();

            ByteBuffer back = packet(9, 32);
            assertThat(b.send(LO, 0xC000, back, 0, back.capacity())).isTrue();
            assertThat(b.sentSourcePort(0xC000)).isEqualTo(pb);
            assertThat(receive(a, in)).isEqualTo(32);
            assertThat(a.sourcePort()).isEqualTo(pb);
            assertThat(a.icrcGood()).isEqualTo(1);
        }
    }

    @Test
    void aPacketWhoseIcrcCoversAnotherSourcePortIsDroppedAsBad() throws IOException {
        int pa = freePort();
        int pb = freePort();
        try (UdpLink b = link(pb, pa, UdpLink.SendPath.BOUND);
                DatagramChannel raw = DatagramChannel.open().bind(new InetSocketAddress(LO, 0))) {
            // an ICRC written for source port pa, sent from another port: what a link that computed it for the
            // device's port but sent through a connected socket would send
            ByteBuffer q = packet(2, 48);
            Icrc.write(q, 0, 48, new Icrc().ipv4(0x7F000001, 0x7F000001, 0, Icrc.IPV4_DONT_FRAGMENT, pa, pb, q, 0, 48));
            raw.send(q, new InetSocketAddress(LO, pb));
            ByteBuffer in = ByteBuffer.allocateDirect(65536);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (b.icrcBad() == 0 && System.nanoTime() < deadline) {
                assertThat(b.receive(in)).isEqualTo(-1);
                Thread.onSpinWait();
            }
            assertThat(b.icrcBad()).isEqualTo(1);
            assertThat(b.icrcGood()).isZero();
        }
    }

    @Test
    void beyondTheCapFurtherPeersShareTheDevicesPort() throws IOException {
        int pa = freePort();
        try (UdpLink a = link(pa, freePort(), UdpLink.SendPath.CONNECTED)) {
            ByteBuffer p = packet(3, 40);
            for (int i = 0; i < UdpLink.MAX_CONNECTED; i++) {
                InetAddress to = InetAddress.getByAddress(new byte[] {127, 0, 1, (byte) (i + 1)});
                a.send(to, 0, p, 0, p.capacity());
                assertThat(a.sentSourcePort(0)).isNotEqualTo(pa);
            }
            assertThat(a.connectedPeers()).isEqualTo(UdpLink.MAX_CONNECTED);
            a.send(InetAddress.getByAddress(new byte[] {127, 0, 2, 1}), 0, p, 0, p.capacity());
            assertThat(a.sentSourcePort(0)).isEqualTo(pa);
            assertThat(a.connectedPeers()).isEqualTo(UdpLink.MAX_CONNECTED);
            a.send(InetAddress.getByAddress(new byte[] {127, 0, 1, 1}), 0, p, 0, p.capacity());
            assertThat(a.sentSourcePort(0)).isNotEqualTo(pa); // the first peer keeps its socket
        }
    }

    @Test
    void anIcmpPortUnreachableOnAConnectedSocketIsACountedDropNotAnException() throws IOException {
        int nobody = freePort(); // nothing listens there: each packet brings back ICMP port unreachable
        try (UdpLink a = link(freePort(), nobody, UdpLink.SendPath.CONNECTED)) {
            ByteBuffer p = packet(4, 40);
            int refused = 0;
            // the error comes back in the kernel's softirq, which a loaded machine may leave to ksoftirqd for a while
            long end = System.nanoTime() + 10_000_000_000L;
            for (int i = 0; i < 100_000 && a.sendDrops() == 0 && System.nanoTime() < end; i++) {
                if (!a.send(LO, 0, p, 0, p.capacity())) {
                    refused++;
                }
                Thread.yield();
            }
            assertThat(a.sendDrops()).isGreaterThan(0).isEqualTo(refused);
            assertThat(a.connectedPeers()).isEqualTo(1);
        }
    }

    @Test
    void theBoundPathSendsFromTheDevicesPort() throws IOException {
        int pa = freePort();
        int pb = freePort();
        try (UdpLink a = link(pa, pb, UdpLink.SendPath.BOUND); UdpLink b = link(pb, pa, UdpLink.SendPath.BOUND)) {
            ByteBuffer p = packet(5, 100);
            assertThat(a.send(LO, 0xC000, p, 0, p.capacity())).isTrue();
            ByteBuffer in = ByteBuffer.allocateDirect(65536);
            assertThat(receive(b, in)).isEqualTo(100);
            assertThat(b.sourcePort()).isEqualTo(pa);
            assertThat(a.connectedPeers()).isZero();
            assertThat(b.icrcGood()).isEqualTo(1);
        }
    }

    private static UdpLink link(int port, int peerPort, UdpLink.SendPath path) throws IOException {
        return new UdpLink(LO, port, peerPort, UdpLink.Ipv4Check.STRICT, 1 << 20, 1 << 20, path);
    }

    /** A random packet of {@code length} bytes (its last four, the ICRC field, written by the link). */
    private static ByteBuffer packet(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return ByteBuffer.wrap(b);
    }

    /** Waits (bounded) for one packet. */
    private static int receive(UdpLink link, ByteBuffer in) throws IOException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n = link.receive(in);
            if (n >= 0) {
                return n;
            }
            Thread.onSpinWait();
        }
        return -1;
    }

    private static int freePort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open().bind(new InetSocketAddress(LO, 0))) {
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }
}
