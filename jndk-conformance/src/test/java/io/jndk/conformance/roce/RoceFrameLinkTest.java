package io.jndk.conformance.roce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketError;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two roce adapters, 192.0.2.1 and 192.0.2.2, each on a frame link ({@code link=dgram:...}) whose far end is the
 * other's: the path the rxe interop takes, with jndk on both stations. ARP, the IPv4 and UDP headers and every ICRC
 * are jndk's own; the capture records each frame with the IPv4 identification it really carried, so the ICRC
 * recomputed from a captured frame is the one on the wire.
 */
class RoceFrameLinkTest {
    @TempDir
    Path dir;

    private static int freeUdpPort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    @Test
    void twoStationsOnFrameLinksConnectAndCaptureTheFramesTheySent() throws IOException {
        InetAddress one = InetAddress.getByName("192.0.2.1");
        InetAddress two = InetAddress.getByName("192.0.2.2");
        int p1 = freeUdpPort();
        int p2 = freeUdpPort();
        Path file = dir.resolve("frames.pcap");
        NdkAdapter a = Ndk.open(NdkOpenParameters.of("roce", one)
            .withOptions(Map.of("link", "dgram:" + p1 + ":" + p2, "pcap", file.toString(), "ack.timeout", Mode.ROCE_ACK_TIMEOUT)));
        NdkAdapter b = Ndk.open(NdkOpenParameters.of("roce", two)
            .withOptions(Map.of("link", "dgram:" + p2 + ":" + p1, "ack.timeout", Mode.ROCE_ACK_TIMEOUT)));
        World w = new World(new Mode("roce", false)); // its objects close first, then the adapters
        try {
            Conn.Peer pa = Conn.peer(w, a, "qpA");
            Conn.Peer pb = Conn.peer(w, b, "qpB");
            Conn.Listening l = Conn.listen(w, b, new InetSocketAddress(two, 0));
            Conn.establishFrom(w, pa, new InetSocketAddress(one, 0), l, pb, new byte[] {7});
            Conn.sendAndVerify(w, pa, pb, 30_000, 5);
            Conn.sendAndVerify(w, pb, pa, 64, 6);
        } finally {
            w.close();
            a.close();
            b.close();
        }
        ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(f.order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(0xA1B2C3D4);
        Icrc icrc = new Icrc();
        RocePacketDecoder decoder = new RocePacketDecoder();
        Set<Integer> sentIds = new HashSet<>();
        Set<Integer> receivedIds = new HashSet<>();
        int packets = 0;
        for (int at = 24; at < f.limit(); packets++) {
            int caplen = f.order(ByteOrder.LITTLE_ENDIAN).getInt(at + 8);
            ByteBuffer frame = ByteBuffer.wrap(f.array(), at + 16, caplen).slice().order(ByteOrder.BIG_ENDIAN);
            at += 16 + caplen;
            assertThat(frame.getShort(12)).as("IPv4").isEqualTo((short) 0x0800);
            int payload = 14 + 20 + 8;
            int length = (frame.getShort(14 + 20 + 4) & 0xFFFF) - 8;
            assertThat(decoder.decode(frame, payload, length)).as("packet %d decodes", packets)
                .isEqualTo(RocePacketError.NONE);
            assertThat(icrc.ipv4Frame(frame, 14)).as("packet %d: the ICRC of its frame", packets)
                .isEqualTo(Icrc.read(frame, payload, length));
            boolean sent = frame.get(14 + 12 + 3) == 1; // the source address's last octet
            (sent ? sentIds : receivedIds).add(frame.getShort(14 + 4) & 0xFFFF);
        }
        assertThat(packets).isGreaterThan(30);
        // the frame link numbers its datagrams: the capture holds those numbers, not one synthetic value
        assertThat(sentIds).hasSizeGreaterThan(10);
        assertThat(receivedIds).hasSizeGreaterThan(3);
    }
}
