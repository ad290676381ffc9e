package io.jndk.conformance.roce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.mad.ConnectReplyFlyweight;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code pcap=FILE} capture of a roce device: every packet of a connection's life (CM MADs on QP 1, Sends,
 * Writes, Reads, ACKs, the disconnect) is in it as an Ethernet/IPv4/UDP frame whose headers are the ones the ICRC was
 * computed over, so the ICRC recomputed from the frame matches the one carried, and every UDP payload decodes.
 */
class RoceCaptureTest {
    @TempDir
    Path dir;

    private static int freeUdpPort() throws IOException {
        try (java.nio.channels.DatagramChannel c = java.nio.channels.DatagramChannel.open()
                .bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))) {
            return ((java.net.InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    @Test
    void everyCapturedPacketDecodesAndCarriesTheIcrcOfItsFrame() throws IOException {
        Path file = dir.resolve("roce.pcap");
        try (World w = new World(new Mode("roce", false))) {
            // the capture option is the device's: a port of its own makes this adapter the one that opens it (both
            // adapters share the device, whose socket then carries both ends' packets)
            String port = "" + freeUdpPort();
            NdkAdapter a = w.adapter(Map.of("udp.port", port, "pcap", file.toString()));
            NdkAdapter b = w.adapter(Map.of("udp.port", port));
            Conn.Peer pa = Conn.peer(w, a, "qpA");
            Conn.Peer pb = Conn.peer(w, b, "qpB");
            Conn.Listening l = Conn.listen(w, b);
            World.Side bEvents = new World.Side();
            Conn.Link link = Conn.establish(w, pa, l, pb, null, bEvents);
            Conn.sendAndVerify(w, pa, pb, 70_000, 1);
            Conn.sendAndVerify(w, pb, pa, 100, 2);
            // a consumer that closes its connector right after NdkDisconnect, without waiting (as rping's client
            // does): the close must not turn the graceful end into a REJ
            java.util.concurrent.CompletableFuture<Integer> d = Kit.start((rc, c) -> link.active().disconnect(rc, c));
            Kit.close(link.active());
            assertThat(Kit.await(d)).isIn(NtStatus.STATUS_SUCCESS, NtStatus.STATUS_CANCELLED);
            Kit.awaitTrue("the passive side's disconnect event", () -> bEvents.disconnects.get() == 1);
        }
        ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(f.order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(0xA1B2C3D4);
        assertThat(f.getInt(20)).as("link type Ethernet").isEqualTo(1);
        Icrc icrc = new Icrc();
        RocePacketDecoder decoder = new RocePacketDecoder();
        Map<String, Integer> opcodes = new TreeMap<>();
        int at = 24;
        int packets = 0;
        // the Starting PSNs of the REQ and the REP, and the first request PSN sent to each side's QPN
        int reqQpn = -1, reqPsn = -1, repQpn = -1, repPsn = -1;
        Map<Integer, Integer> firstPsnTo = new TreeMap<>();
        java.util.List<Integer> cmAttributes = new java.util.ArrayList<>();
        while (at < f.limit()) {
            int caplen = f.order(ByteOrder.LITTLE_ENDIAN).getInt(at + 8);
            ByteBuffer frame = ByteBuffer.wrap(f.array(), at + 16, caplen).slice().order(ByteOrder.BIG_ENDIAN);
            assertThat(frame.getShort(12)).as("IPv4").isEqualTo((short) 0x0800);
            int udp = 14 + 20;
            assertThat(frame.getShort(udp + 2) & 0xFFFF).as("UDP destination port").isPositive();
            int payload = udp + 8;
            int length = (frame.getShort(udp + 4) & 0xFFFF) - 8;
            assertThat(decoder.decode(frame, payload, length)).as("packet %d decodes", packets)
                .isEqualTo(RocePacketError.NONE);
            assertThat(icrc.ipv4Frame(frame, 14)).as("packet %d: the ICRC of its frame", packets)
                .isEqualTo(Icrc.read(frame, payload, length));
            opcodes.merge(decoder.opcode().name(), 1, Integer::sum);
            if (decoder.bth().destQp() == 1 && length >= BTH_DETH + MAD_HEADER + 48) {
                int mad = payload + BTH_DETH;
                int attribute = frame.getShort(mad + 16) & 0xFFFF;
                int cm = mad + MAD_HEADER;
                cmAttributes.add(attribute);
                if (attribute == 0x0010 && reqQpn < 0) {
                    reqQpn = u24(frame, cm + ConnectRequestFlyweight.LOCAL_QPN);
                    reqPsn = u24(frame, cm + ConnectRequestFlyweight.STARTING_PSN);
                } else if (attribute == 0x0013 && repQpn < 0) {
                    repQpn = u24(frame, cm + ConnectReplyFlyweight.LOCAL_QPN);
                    repPsn = u24(frame, cm + ConnectReplyFlyweight.STARTING_PSN);
                }
            } else if (decoder.opcode().isRequest()) {
                firstPsnTo.putIfAbsent(decoder.bth().destQp(), decoder.bth().psn());
            }
            packets++;
            at += 16 + caplen;
        }
        System.out.println("roce capture: " + packets + " packets " + opcodes);
        assertThat(opcodes).containsKeys("UD_SEND_ONLY", "SEND_FIRST", "SEND_LAST", "SEND_ONLY", "ACKNOWLEDGE");
        // As Linux's ib_cm (and rxe, in the real capture pair_rping.pcap): a side's Starting PSN is the PSN it expects
        // first, so the active side's first request carries the REP's PSN and the passive side's the REQ's
        assertThat(firstPsnTo.get(repQpn)).as("the active side's first request PSN").isEqualTo(repPsn);
        assertThat(firstPsnTo.get(reqQpn)).as("the passive side's first request PSN").isEqualTo(reqPsn);
        // the disconnect is a DREQ (answered by a DREP), and closing the connectors after it sends no REJ: rxe's rping
        // server reports a REJ after the DREQ as a rejection and fails
        assertThat(cmAttributes).as("CM attributes in order").contains(0x0015, 0x0016).doesNotContain(0x0012);
    }

    private static final int BTH_DETH = 12 + 8;
    private static final int MAD_HEADER = 24;

    private static int u24(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 16 | (b.get(at + 1) & 0xFF) << 8 | b.get(at + 2) & 0xFF;
    }
}
