package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.roce.mad.CmServiceId;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import io.jndk.roce.mad.GsiPacket;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An outside parser reads what the encoder builds: one packet of every opcode (and a CM REQ on QP1) in Ethernet,
 * IPv4 and UDP with the ICRC, written as a pcap and decoded by tshark's InfiniBand dissector ("RRoCE"), which must
 * report no malformed frame and the opcode, QPs, PSN, pad and header fields as encoded.
 *
 * <p>Assumption: tshark on the PATH (or /usr/bin); without it this test is skipped. tshark 4.0 does not check the
 * ICRC, so that is the capture tests' job.
 */
@Timeout(120)
class TsharkDecodeTest {

    private static final String FIELDS = "frame.number infiniband.bth.opcode infiniband.bth.destqp infiniband.bth.psn "
        + "infiniband.bth.padcnt infiniband.bth.a infiniband.reth.dmalen infiniband.aeth.msn infiniband.deth.srcqp infiniband.immdt "
        + "infiniband.ieth infiniband.atomiceth.swapdt infiniband.atomicacketh.origremdt infiniband.cm.req.serviceid.dport _ws.malformed";

    @Test
    void tsharkDecodesEveryOpcodeAsEncoded(@TempDir Path dir) throws IOException, InterruptedException {
        String tshark = findTshark();
        assumeTrue(tshark != null, "tshark is not installed: the outside decode check is skipped");
        RocePacketEncoder e = new RocePacketEncoder();
        Icrc icrc = new Icrc();
        List<byte[]> frames = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        int n = 0;
        for (RoceOpcode op : RoceOpcode.values()) {
            n++;
            ByteBuffer udp = ByteBuffer.allocate(1200);
            e.begin(udp, 0, op);
            // PSNs run past 0xFFFFFF: the BTH keeps the low 24 bits
            e.bth().destQp(0x100 + n).psn(0xFFFFF0 + n).ackRequest(op.position() == RoceOpcode.Position.LAST);
            fill(e, op, n);
            int payload = op.hasPayload() ? (op.position() == RoceOpcode.Position.FIRST || op.position() == RoceOpcode.Position.MIDDLE ? 256 : 13) : 0;
            e.payloadLength(payload);
            int length = e.finish();
            frames.add(frame(icrc, udp, length, n));
            expected.add(String.join("|", String.valueOf(n), String.valueOf(op.code()), hex24(0x100 + n), String.valueOf(Psn.add(0xFFFFF0, n)),
                String.valueOf(RocePacketEncoder.padFor(payload)), op.position() == RoceOpcode.Position.LAST ? "1" : "0",
                op.has(ExtensionHeader.RETH) ? String.valueOf(1000 + n) : "", op.has(ExtensionHeader.AETH) ? String.valueOf(n) : "",
                op.has(ExtensionHeader.DETH) ? hex24(0x20 + n) : "", op.has(ExtensionHeader.IMMDT) ? octets(0xABC00 + n) : "",
                op.has(ExtensionHeader.IETH) ? octets(0xDEF00 + n) : "", op.has(ExtensionHeader.ATOMIC_ETH) ? hex64(0x5000L + n) : "",
                op.has(ExtensionHeader.ATOMIC_ACK_ETH) ? hex64(0x6000L + n) : "", "", ""));
        }
        // a CM REQ to QP1
        n++;
        ByteBuffer udp = ByteBuffer.allocate(GsiPacket.LENGTH);
        int mad = GsiPacket.begin(e, udp, 0, n);
        ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(udp, mad);
        req.initialize(0x1234L);
        req.serviceId(CmServiceId.tcp(7174));
        frames.add(frame(icrc, udp, e.finish(), n));
        expected.add(String.join("|", String.valueOf(n), "100", hex24(1), String.valueOf(n), "0", "1", "", "", hex24(1), "", "", "", "", "7174",
            ""));

        Path file = dir.resolve("encoded.pcap");
        writePcap(file, frames);
        List<String> lines = run(tshark, file);
        List<String> normalized = lines.stream().map(TsharkDecodeTest::normalize).toList();
        System.out.println("tshark decoded " + lines.size() + " encoded frames, every opcode and a CM REQ");
        assertThat(normalized).containsExactlyElementsOf(expected.stream().map(TsharkDecodeTest::normalize).toList());
    }

    private static void fill(RocePacketEncoder e, RoceOpcode op, int n) {
        if (op.has(ExtensionHeader.DETH)) {
            e.deth().qkey(0x11111111).srcQp(0x20 + n);
        }
        if (op.has(ExtensionHeader.RETH)) {
            e.reth().virtualAddress(0x7f0000000000L + n).rkey(0x1234).dmaLength(1000 + n);
        }
        if (op.has(ExtensionHeader.ATOMIC_ETH)) {
            e.atomicEth().virtualAddress(0x7f0000000000L).rkey(0x99).swapOrAdd(0x5000L + n).compare(7);
        }
        if (op.has(ExtensionHeader.AETH)) {
            e.aeth().syndrome(0x1F).msn(n);
        }
        if (op.has(ExtensionHeader.ATOMIC_ACK_ETH)) {
            e.atomicAckEth().originalData(0x6000L + n);
        }
        if (op.has(ExtensionHeader.IMMDT)) {
            e.immDt().immediate(0xABC00 + n);
        }
        if (op.has(ExtensionHeader.IETH)) {
            e.ieth().rkey(0xDEF00 + n);
        }
    }

    /** Ethernet II, IPv4 (DF, TTL 64, header checksum), UDP (checksum 0) to 4791, the UDP payload with its ICRC. */
    private static byte[] frame(Icrc icrc, ByteBuffer udpPayload, int length, int id) {
        int src = 0xC000020B;
        int dst = 0xC000020A;
        int sport = 0xC000 + id;
        Icrc.write(udpPayload, 0, length, icrc.ipv4(src, dst, id, Icrc.IPV4_DONT_FRAGMENT, sport, Icrc.ROCE_V2_PORT, udpPayload, 0, length));
        ByteBuffer f = ByteBuffer.allocate(14 + 20 + 8 + length);
        f.put(Hex.bytes("5254000002 0a 5254000002 0b 0800"));
        int ip = 14;
        f.put(ip, (byte) 0x45).putShort(ip + 2, (short) (28 + length)).putShort(ip + 4, (short) id).putShort(ip + 6, (short) 0x4000)
            .put(ip + 8, (byte) 64).put(ip + 9, (byte) 17).putInt(ip + 12, src).putInt(ip + 16, dst);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += f.getShort(ip + i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        f.putShort(ip + 10, (short) ~((sum & 0xFFFF) + (sum >>> 16)));
        f.putShort(34, (short) sport).putShort(36, (short) Icrc.ROCE_V2_PORT).putShort(38, (short) (8 + length));
        f.put(42, udpPayload, 0, length);
        assertThat(icrc.ipv4Frame(f, ip)).isEqualTo(Icrc.read(f, 42, length));
        return f.array();
    }

    private static void writePcap(Path file, List<byte[]> frames) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        out.write(h.array());
        int t = 0;
        for (byte[] f : frames) {
            ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            r.putInt(1_700_000_000).putInt(t++).putInt(f.length).putInt(f.length);
            out.write(r.array());
            out.write(f);
        }
        Files.write(file, out.toByteArray());
    }

    private static List<String> run(String tshark, Path file) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString(), "-d", "udp.port==4791,infiniband", "-T",
            "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String field : FIELDS.split(" ")) {
            cmd.add("-e");
            cmd.add(field);
        }
        Path out = file.resolveSibling("tshark.out");
        Path err = file.resolveSibling("tshark.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("tshark finished").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("tshark: %s", Files.readString(err, StandardCharsets.UTF_8)).isZero();
        assertThat(text).doesNotContainIgnoringCase("malformed");
        return text.lines().filter(l -> !l.isBlank()).toList();
    }

    /** Numbers as tshark prints them (decimal, 0x-hex, or the octets of a bytes field in hex) become decimal. */
    private static String normalize(String line) {
        List<String> out = new ArrayList<>();
        for (String f : line.split("\\|", -1)) {
            boolean octets = f.length() > 1 && f.startsWith("0") && !f.startsWith("0x");
            out.add(f.isEmpty() ? "" : String.valueOf(octets ? Long.parseUnsignedLong(f, 16) : Long.decode(f)));
        }
        return String.join("|", out);
    }

    private static String hex24(int v) {
        return String.format("0x%06x", v);
    }

    private static String octets(int v) {
        return String.format("%08x", v);
    }

    private static String hex64(long v) {
        return String.format("0x%016x", v);
    }

    private static String findTshark() {
        for (String d : (System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "tshark"))) {
                return Path.of(d, "tshark").toString();
            }
        }
        return null;
    }
}
