package io.jndk.iwarp.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.iwarp.cm.Rtr;
import io.jndk.iwarp.cm.RtrType;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.TerminateCode;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Captures of MPA setup and FPDUs: read back strictly, then (if installed) decoded by tshark. */
@Timeout(60)
class PcapWriterTest {

    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final String REP_KEY = "4d504120494420526570204672616d65";
    /** FPDUs per stream written by {@link #conversation}: 4 from the initiator, 3 from the responder. */
    private static final int FPDUS_PER_STREAM = 7;

    @TempDir
    Path dir;

    /** What one stream carried, per direction, as written. */
    private record Expected(byte[] fromInitiator, byte[] fromResponder, int records) {
    }

    /** Records a setup and a few FPDUs of every kind, some packed and some split. */
    private static Expected conversation(PcapWriter.TcpStream s, boolean crc) {
        ByteArrayOutputStream ini = new ByteArrayOutputStream();
        ByteArrayOutputStream res = new ByteArrayOutputStream();
        int[] records = {0};
        FpduEncoder enc = new FpduEncoder(crc);
        ByteBuffer b = ByteBuffer.allocate(4096);
        byte[] payload = new byte[1000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7);
        }
        ByteBuffer data = ByteBuffer.wrap(payload);

        String flags = crc ? "50" : "10";
        send(s, true, HexFormat.of().parseHex(REQ_KEY + flags + "020004" + "80018001"), ini, res, records);
        send(s, false, HexFormat.of().parseHex(REP_KEY + flags + "020004" + "80018001"), ini, res, records);
        send(s, true, bytes(Rtr.frame(RtrType.WRITE, crc)), ini, res, records);
        int n = enc.untagged(b, 0, RdmapOpcode.SEND, true, 0, 0, 1, 0, data, 0, 16);
        send(s, true, slice(b, 0, n), ini, res, records);
        // two FPDUs in one chunk
        n = enc.untagged(b, 0, RdmapOpcode.SEND, true, 0, 0, 1, 0, data, 16, 21);
        n += enc.readRequest(b, n, 1, 0x1111, 0x2000L, 100, 0x2222, 0x3000L);
        send(s, false, slice(b, 0, n), ini, res, records);
        // one FPDU in two chunks
        n = enc.tagged(b, 0, RdmapOpcode.RDMA_READ_RESPONSE, true, 0x1111, 0x2000L, data, 40, 100);
        send(s, true, slice(b, 0, 30), ini, res, records);
        send(s, true, slice(b, 30, n - 30), ini, res, records);
        n = enc.tagged(b, 0, RdmapOpcode.RDMA_WRITE, true, 0x3333, 0x10L, data, 0, 1000);
        send(s, true, slice(b, 0, n), ini, res, records);
        n = enc.terminate(b, 0, 1, TerminateCode.RDMAP_LOCAL_CATASTROPHIC, false, 0, null, 0, 0);
        send(s, false, slice(b, 0, n), ini, res, records);
        s.fin(true);
        s.fin(false);
        return new Expected(ini.toByteArray(), res.toByteArray(), records[0] + 2);
    }

    private static void send(PcapWriter.TcpStream s, boolean fromInitiator, byte[] chunk,
                             ByteArrayOutputStream ini, ByteArrayOutputStream res, int[] records) {
        if (fromInitiator) {
            s.fromInitiator(ByteBuffer.wrap(chunk));
            ini.writeBytes(chunk);
        } else {
            s.fromResponder(ByteBuffer.wrap(chunk));
            res.writeBytes(chunk);
        }
        records[0]++;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] slice(ByteBuffer b, int index, int length) {
        byte[] out = new byte[length];
        b.get(index, out);
        return out;
    }

    private static final InetSocketAddress INITIATOR_CRC = new InetSocketAddress("192.0.2.1", 40000);
    private static final InetSocketAddress RESPONDER_CRC = new InetSocketAddress("192.0.2.2", 18515);
    private static final InetSocketAddress INITIATOR_PLAIN = new InetSocketAddress("192.0.2.1", 40001);
    private static final InetSocketAddress RESPONDER_PLAIN = new InetSocketAddress("192.0.2.2", 4444);

    private Path writeCapture(Expected[] expected) throws IOException {
        Path file = dir.resolve("mpa.pcap");
        try (PcapWriter w = PcapWriter.create(file)) {
            expected[0] = conversation(w.stream(INITIATOR_CRC, RESPONDER_CRC, true), true);
            expected[1] = conversation(w.stream(INITIATOR_PLAIN, RESPONDER_PLAIN, true), false);
            assertThat(w.records()).isEqualTo(3 + expected[0].records() + 3 + expected[1].records());
            assertThat(w.droppedRecords()).isZero();
            assertThat(w.failure()).isNull();
            assertThat(Files.size(file)).isEqualTo(w.bytesWritten());
        }
        return file;
    }

    private static String key(InetSocketAddress from, InetSocketAddress to) {
        return from.getAddress().getHostAddress() + ":" + from.getPort() + ">" + to.getAddress().getHostAddress() + ":" + to.getPort();
    }

    @Test
    void readsBackWithValidHeadersChecksumsAndContiguousSequenceNumbers() throws IOException {
        Expected[] expected = new Expected[2];
        PcapFile pcap = PcapFile.read(writeCapture(expected));
        assertThat(pcap.problems).isEmpty();
        assertThat(pcap.linkType).isEqualTo(1);
        assertThat(pcap.stream(key(INITIATOR_CRC, RESPONDER_CRC))).isEqualTo(expected[0].fromInitiator());
        assertThat(pcap.stream(key(RESPONDER_CRC, INITIATOR_CRC))).isEqualTo(expected[0].fromResponder());
        assertThat(pcap.stream(key(INITIATOR_PLAIN, RESPONDER_PLAIN))).isEqualTo(expected[1].fromInitiator());
        assertThat(pcap.stream(key(RESPONDER_PLAIN, INITIATOR_PLAIN))).isEqualTo(expected[1].fromResponder());
        // handshake first: SYN, SYN-ACK acknowledging it, ACK
        PcapFile.Packet syn = pcap.packets.get(0);
        PcapFile.Packet synAck = pcap.packets.get(1);
        PcapFile.Packet ack = pcap.packets.get(2);
        assertThat(syn.flags()).isEqualTo(0x02);
        assertThat(synAck.flags()).isEqualTo(0x12);
        assertThat(synAck.ack()).isEqualTo((syn.seq() + 1) & 0xFFFFFFFFL);
        assertThat(ack.ack()).isEqualTo((synAck.seq() + 1) & 0xFFFFFFFFL);
        // every data packet acknowledges everything the other side sent before it
        assertThat(pcap.packets.get(3).payload()).hasSize(24);
        assertThat(pcap.packets.get(3).ack()).isEqualTo(ack.ack());
    }

    @Test
    void tsharkDecodesEveryFrameWithGoodCrcs() throws Exception {
        String tshark = findOnPath("tshark");
        assumeTrue(tshark != null, "tshark is not on PATH: the external dissector check is skipped");
        Expected[] expected = new Expected[2];
        Path file = writeCapture(expected);
        // iwarp_mpa is a TCP heuristic dissector (IWARP.md 8): no "decode as" for a port exists, it locks on
        // to the MPA Request; the RPC-over-RDMA heuristic is disabled so that test payloads are not misread
        String verbose = run(List.of(tshark, "-n", "-r", file.toString(), "-o", "tcp.try_heuristic_first:TRUE",
            "--enable-heuristic", "iwarp_mpa_tcp", "--disable-heuristic", "rpcrdma_iwarp",
            "--disable-heuristic", "smb_direct_iwarp", "-V"));
        assertThat(verbose).doesNotContain("Malformed").doesNotContain("Bad CRC32");
        assertThat(count(verbose, "Good CRC32")).as("every FPDU of the CRC stream verified").isEqualTo(FPDUS_PER_STREAM);
        String fields = run(List.of(tshark, "-n", "-r", file.toString(), "--disable-heuristic", "rpcrdma_iwarp",
            "--disable-heuristic", "smb_direct_iwarp", "-Y", "iwarp_mpa", "-T", "fields", "-E", "separator=;",
            "-e", "tcp.srcport", "-e", "iwarp_mpa.key.req", "-e", "iwarp_mpa.key.rep", "-e", "iwarp_rdma.opcode"));
        List<String> lines = fields.lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as(fields).anyMatch(l -> l.startsWith("40000;4d50"));
        assertThat(lines).anyMatch(l -> l.startsWith("18515;;4d50"));
        assertThat(lines).anyMatch(l -> l.startsWith("40001;4d50"));
        assertThat(lines).anyMatch(l -> l.startsWith("4444;;4d50"));
        List<String> opcodes = new ArrayList<>();
        for (String l : lines) {
            String[] f = l.split(";", -1);
            if (f.length > 3 && !f[3].isEmpty()) {
                opcodes.addAll(List.of(f[3].split(",")));
            }
        }
        // per stream: Write RTR, Send, Send, Read Request, Read Response, Write, Terminate
        assertThat(opcodes).as(fields).hasSize(2 * FPDUS_PER_STREAM);
        assertThat(opcodes.stream().filter(o -> o.equals("0x07")).count()).isEqualTo(2);
        assertThat(opcodes.stream().filter(o -> o.equals("0x01")).count()).isEqualTo(2);
    }

    @Test
    void concurrentWritersKeepEveryStreamIntact() throws Exception {
        Path file = dir.resolve("concurrent.pcap");
        int streams = 4;
        int chunks = 200;
        try (PcapWriter w = PcapWriter.create(file)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < streams; t++) {
                PcapWriter.TcpStream s = w.stream(new InetSocketAddress("198.51.100.1", 50000 + t),
                    new InetSocketAddress("198.51.100.2", 7174), false);
                byte[] chunk = ("stream " + t + " chunk ").getBytes(StandardCharsets.US_ASCII);
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < chunks; i++) {
                        s.record(i % 2 == 0, ByteBuffer.wrap(chunk), 0, chunk.length);
                    }
                }));
            }
            for (Thread t : threads) {
                assertThat(t.join(java.time.Duration.ofSeconds(30))).isTrue();
            }
            assertThat(w.records()).isEqualTo((long) streams * chunks);
        }
        PcapFile pcap = PcapFile.read(file);
        assertThat(pcap.problems).isEmpty();
        for (int t = 0; t < streams; t++) {
            String expected = ("stream " + t + " chunk ").repeat(chunks / 2);
            assertThat(new String(pcap.stream("198.51.100.1:" + (50000 + t) + ">198.51.100.2:7174"), StandardCharsets.US_ASCII))
                .isEqualTo(expected);
        }
    }

    @Test
    void sizeLimitDropsAndCountsButKeepsSequenceNumbers() throws IOException {
        Path file = dir.resolve("bounded.pcap");
        int packet = PcapWriter.RECORD_HEADER_LENGTH + 14 + 20 + 20 + 100;
        long limit = PcapWriter.FILE_HEADER_LENGTH + 3L * packet;
        try (PcapWriter w = PcapWriter.create(file, limit)) {
            PcapWriter.TcpStream s = w.stream(INITIATOR_PLAIN, RESPONDER_PLAIN, false);
            for (int i = 0; i < 10; i++) {
                s.record(true, ByteBuffer.allocate(100), 0, 100);
            }
            assertThat(w.records()).isEqualTo(3);
            assertThat(w.droppedRecords()).isEqualTo(7);
        }
        assertThat(Files.size(file)).isEqualTo(limit);
        PcapFile pcap = PcapFile.read(file);
        assertThat(pcap.problems).isEmpty();
        assertThat(pcap.packets).hasSize(3);
    }

    @Test
    void largeChunksAreSplitAndIpv6Works() throws IOException {
        Path file = dir.resolve("large.pcap");
        byte[] big = new byte[150_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) i;
        }
        try (PcapWriter w = PcapWriter.create(file)) {
            PcapWriter.TcpStream s = w.stream(new InetSocketAddress("::1", 1000), new InetSocketAddress("::1", 2000), true);
            s.fromInitiator(ByteBuffer.wrap(big));
            assertThat(w.records()).isEqualTo(3 + 3);
        }
        PcapFile pcap = PcapFile.read(file);
        assertThat(pcap.problems).isEmpty();
        assertThat(pcap.stream("0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1:1000>0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1:2000")).isEqualTo(big);
    }

    private static int count(String text, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static String findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            Path candidate = Path.of(d, name);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    private String run(List<String> command) throws Exception {
        Path output = Files.createTempFile(dir, "tshark", ".txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(p.waitFor(45, TimeUnit.SECONDS)).as("tshark finished").isTrue();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + text).isZero();
        return text;
    }
}
