package io.jndk.roce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.roce.cm.CmAgent;
import io.jndk.roce.cm.CmConfig;
import io.jndk.roce.cm.CmConnection;
import io.jndk.roce.cm.CmEvent;
import io.jndk.roce.cm.CmIdSource;
import io.jndk.roce.cm.CmStatus;
import io.jndk.roce.cm.ConnectParams;
import io.jndk.roce.cm.Gid;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import io.jndk.roce.mad.GsiPacket;
import io.jndk.roce.mad.MadHeaderFlyweight;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The frame link against the real rxe: with {@code JNDK_RXE_DGRAM=HOSTPORT:GUESTPORT} set (the ports of a guest
 * booted by {@code scripts/rxe-vm/boot.sh}; {@code scripts/rxe-vm/cm-proof.sh} does both), jndk plays 192.0.2.1 on
 * the guest's Ethernet through a {@link FrameLink}, sends a CM REQ with {@link CmAgent} to the {@code rping -s} on
 * 192.0.2.2:7174 ({@code JNDK_RXE_GUEST}, {@code JNDK_RXE_PORT} change them), waits for rxe's REP, and rejects it.
 * The REP arriving is the proof that rxe accepted the REQ's ICRC (it drops a wrong one silently) and that the link
 * checked rxe's. Skipped without the variable. The outcome goes to stdout and {@code target/rxe-cm-proof.txt}.
 */
class FrameRxeCmTest {

    @Test
    @Timeout(90)
    void rxeAnswersTheRequestWithAReply() throws Exception {
        String ports = System.getenv("JNDK_RXE_DGRAM");
        assumeTrue(ports != null && !ports.isBlank(), "JNDK_RXE_DGRAM=HOSTPORT:GUESTPORT not set: no rxe guest");
        InetAddress self = InetAddress.getByName("192.0.2.1");
        InetAddress guest = InetAddress.getByName(env("JNDK_RXE_GUEST", "192.0.2.2"));
        int port = Integer.parseInt(env("JNDK_RXE_PORT", "7174"));
        List<CmEvent> events = new ArrayList<>();
        List<String> log = new ArrayList<>();
        try (FrameLink link = FrameLink.open("dgram:" + ports, self); Selector selector = Selector.open()) {
            link.channel().register(selector, SelectionKey.OP_READ);
            RocePacketEncoder encoder = new RocePacketEncoder();
            ByteBuffer out = ByteBuffer.allocate(GsiPacket.LENGTH + 64);
            int[] psn = {0x10};
            CmAgent agent = new CmAgent(gid(self), CmConfig.rdmaCm(0x0200c0fffe000201L), System::nanoTime,
                CmIdSource.linuxStyle(new SplittableRandom(7)), (destination, mad) -> {
                    int at = GsiPacket.begin(encoder, out, 0, psn[0]++);
                    out.put(at, mad, 0, MadHeaderFlyweight.MAD_LENGTH);
                    int length = encoder.finish();
                    try {
                        link.send(addressOf(destination), GsiPacket.RXE_SOURCE_PORT, out, 0, length);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    log.add("sent MAD attribute 0x" + Integer.toHexString(mad.getShort(16) & 0xFFFF));
                });
            CmConnection c = agent.newConnection(event -> {
                events.add(event);
                log.add("event " + event);
                if (event instanceof CmEvent.ReplyReceived r) {
                    log.add("REP: remote QPN 0x" + Integer.toHexString(r.reply().remoteQpn()) + ", PSN 0x"
                        + Integer.toHexString(r.reply().startingPsn()) + ", reject " + r.connection().reject(null));
                }
            });
            CmStatus status = c.connect(new ConnectParams(gid(guest), 0xd80d, port, 0x123, 0x4567, 1, 1, null));
            assertThat(status).isEqualTo(CmStatus.OK);
            ByteBuffer in = ByteBuffer.allocate(65536);
            RocePacketDecoder decoder = new RocePacketDecoder();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline && events.stream().noneMatch(e -> e instanceof CmEvent.ReplyReceived
                || e instanceof CmEvent.Rejected || e instanceof CmEvent.TimedOut)) {
                selector.select(20);
                selector.selectedKeys().clear();
                for (int i = 0; i < 64; i++) {
                    int length = link.receive(in);
                    if (length < 0) {
                        break;
                    }
                    if (decoder.decode(in, 0, length) == RocePacketError.NONE && decoder.bth().destQp() == GsiPacket.QPN
                        && decoder.opcode() == RoceOpcode.UD_SEND_ONLY) {
                        agent.receive(gid(link.source()), in, decoder.payloadOffset(), MadHeaderFlyweight.MAD_LENGTH);
                    } else {
                        log.add("not a GSI datagram: " + length + " octets");
                    }
                }
                agent.tick();
            }
            // let the REJ leave and be answered by nothing more than silence
            long until = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < until) {
                selector.select(20);
                selector.selectedKeys().clear();
                link.receive(in);
            }
            StringBuilder s = new StringBuilder();
            log.forEach(l -> s.append(l).append('\n'));
            for (FrameCounter k : FrameCounter.values()) {
                if (link.counter(k) != 0) {
                    s.append(k.label()).append(": ").append(link.counter(k)).append('\n');
                }
            }
            s.append("guest MAC ").append(FrameLink.formatMac(link.neighbour(guest))).append('\n');
            System.out.print(s);
            Files.writeString(Path.of("target", "rxe-cm-proof.txt"), s);
            assertThat(events).as(s.toString()).anyMatch(e -> e instanceof CmEvent.ReplyReceived);
            assertThat(link.icrcGood()).isPositive();
            assertThat(link.icrcBad()).isZero();
        }
    }

    private static String env(String name, String otherwise) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? otherwise : v;
    }

    private static Gid gid(InetAddress a) {
        byte[] b = a.getAddress();
        return Gid.ipv4Mapped((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF);
    }

    private static InetAddress addressOf(Gid gid) {
        int v = gid.ipv4();
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
