package io.jndk.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.kit.Failure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw}: a jndk server and a jndk client in this JVM over
 * the iwarp transport on 127.0.0.1 (real TCP), each with its own adapter; the table rows and exit codes.
 */
class PerftestToolsTest {
    static final String MB_COLUMNS = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";

    /** Output captured into memory; {@code ready} completes once the text contains {@code marker}. */
    static final class Capture extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        final String marker;

        Capture(String marker) {
            this.marker = marker;
        }

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            check();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            check();
        }

        private void check() {
            if (marker != null && !ready.isDone() && text().contains(marker)) {
                ready.complete(null);
            }
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    record Outcome(int exit, String out, String err) {
        String all() {
            return out + "\n[stderr]\n" + err;
        }
    }

    static Outcome execute(PerftestCommand cmd, Capture out, String... args) {
        Capture err = new Capture(null);
        cmd.out = new PrintStream(out, true, StandardCharsets.UTF_8);
        cmd.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        int rc = new CommandLine(cmd).execute(args);
        return new Outcome(rc, out.text(), err.text());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String[] args(List<String> common, String... more) {
        List<String> a = new ArrayList<>(common);
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    /**
     * Whether a TCP socket listens on 127.0.0.1:{@code port} (the kernel's table: a server printing nothing, as with
     * {@code --output}, is seen listening without anything connecting to it).
     */
    static boolean listening(int port) throws IOException {
        String local = String.format(":%04X ", port);
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/tcp"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 3 && (f[1] + " ").endsWith(local) && f[3].equals("0A")) {
                return true;
            }
        }
        return false;
    }

    /** Runs a server and, once it waits for clients, a client with the same options; returns {server, client}. */
    static Outcome[] pair(Supplier<PerftestCommand> tool, List<String> common, List<String> clientOnly) throws Exception {
        return pair(tool, common, List.of(), clientOnly);
    }

    /** {@link #pair(Supplier, List, List)} with options for the server alone. */
    static Outcome[] pair(Supplier<PerftestCommand> tool, List<String> common, List<String> serverOnly,
            List<String> clientOnly) throws Exception {
        int port = freePort();
        List<String> c = new ArrayList<>(common);
        c.addAll(List.of("-p", "" + port));
        List<String> sa = new ArrayList<>(c);
        sa.addAll(serverOnly);
        boolean quiet = common.stream().anyMatch(a -> a.startsWith("--output"));
        Capture serverOut = new Capture("Waiting for client to connect");
        CompletableFuture<Outcome> server = CompletableFuture.supplyAsync(() -> execute(tool.get(), serverOut, args(sa)),
                r -> Thread.ofPlatform().name("perftest-server").start(r));
        if (quiet) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!listening(port)) { // polls the kernel's table with a deadline; nothing else tells
                assertThat(System.nanoTime()).as("the quiet server never listened").isLessThan(deadline);
                assertThat(server.isDone()).as("the server ended: %s", server.getNow(null)).isFalse();
                Thread.onSpinWait();
            }
        } else {
            serverOut.ready.get(30, TimeUnit.SECONDS);
        }
        List<String> ca = new ArrayList<>(c);
        ca.addAll(clientOnly);
        ca.add("127.0.0.1");
        Outcome client = execute(tool.get(), new Capture(null), ca.toArray(String[]::new));
        Outcome s = server.get(60, TimeUnit.SECONDS);
        return new Outcome[] {s, client};
    }

    /** {@code -O udp.port=N} for a roce device on a UDP port free now (the tests' devices stay off the default 4791). */
    static String freeUdpPortOption() throws IOException {
        try (java.nio.channels.DatagramChannel c = java.nio.channels.DatagramChannel.open()
                .bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return "udp.port=" + ((java.net.InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    /**
     * The BTH of every packet in a roce capture ({@code --pcap}: Ethernet, IPv4, UDP, then the BTH): a view from the
     * BTH's first byte to the frame's end, one per captured frame in order.
     */
    static List<java.nio.ByteBuffer> capturedBths(java.nio.file.Path pcap) throws IOException {
        java.nio.ByteBuffer f = java.nio.ByteBuffer.wrap(java.nio.file.Files.readAllBytes(pcap))
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        List<java.nio.ByteBuffer> bths = new ArrayList<>();
        for (int at = 24; at < f.limit(); at += 16 + f.getInt(at + 8)) {
            int bth = at + 16 + 14 + 20 + 8;
            bths.add(f.slice(bth, at + 16 + f.getInt(at + 8) - bth));
        }
        return bths;
    }

    static Pattern rowFor(long size, long iters) {
        return Pattern.compile("(?m)^ " + size + " +" + iters + " +\\d+\\.\\d{2} +\\d+\\.\\d{2} *\\t\\t +\\d+\\.\\d{6}$");
    }

    static Supplier<PerftestCommand> tool(String name) {
        return switch (name) {
            case "write" -> IbWriteBwCommand::new;
            case "read" -> IbReadBwCommand::new;
            case "send" -> IbSendBwCommand::new;
            case "write_lat" -> IbWriteLatCommand::new;
            case "read_lat" -> IbReadLatCommand::new;
            default -> IbSendLatCommand::new;
        };
    }

    /** A latency row of perftest 4.5 (its tabs and padding) for {@code size} and {@code iters}. */
    static Pattern latRowFor(long size, long iters) {
        String f = "\\d+\\.\\d{2}";
        return Pattern.compile("(?m)^ " + size + " +" + iters + " +" + f + " +" + f + " +" + f + " +\\t +" + f + " +\\t" + f
                + " *\\t\\t" + f + " +\\t\\t" + f + " *$");
    }

    @ParameterizedTest(name = "ib_{0}_bw -s {1}")
    @CsvSource({"write, 64", "write, 65536", "read, 64", "read, 65536", "send, 64", "send, 65536"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void clientAndServerPrintPerftestsTable(String op, int size) throws Exception {
        Outcome[] r = pair(tool(op), List.of("-R", "-s", "" + size, "-n", "200"), List.of());
        Outcome server = r[0], client = r[1];
        assertThat(client.exit()).as("client:%n%s%nserver:%n%s", client.all(), server.all()).isZero();
        assertThat(server.exit()).as("server:%n%s", server.all()).isZero();
        String title = switch (op) {
            case "write" -> "RDMA_Write BW Test";
            case "read" -> "RDMA_Read BW Test";
            default -> "Send BW Test";
        };
        for (Outcome o : r) {
            assertThat(o.out()).contains(title).contains(MB_COLUMNS).contains("\tTransport type : IW")
                    .containsPattern(rowFor(size, 200)).contains(" local address: LID 0000 QPN ")
                    .contains(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:01");
            assertThat(o.err()).isEmpty();
        }
        assertThat(server.out()).contains("* Waiting for client to connect... *");
        // The BW peak is perftest's (the best run of operations, from the post of its first to the completion of its
        // last): at least the average, and not the figure of completions reaped in one batch (62 GB/s beside 0.4)
        String row = client.out().lines().filter(l -> rowFor(size, 200).matcher(l).matches()).findFirst().orElseThrow();
        String[] f = row.trim().split("\\s+");
        double peak = Double.parseDouble(f[2]), average = Double.parseDouble(f[3]);
        assertThat(peak).as(row).isGreaterThanOrEqualTo(average * 0.99).isLessThanOrEqualTo(Math.max(0.05, average * 50));
        if (op.equals("read")) {
            assertThat(client.out()).contains(" Outstand reads  : 128");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void allSizesWithSendGiveARowPerSizeOnBothSidesAndGbitsOnRequest() throws Exception {
        Outcome[] r = pair(IbSendBwCommand::new, List.of("-R", "-a", "-n", "5"), List.of("--report_gbits"));
        assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
        assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
        assertThat(r[1].out()).contains(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]");
        assertThat(r[0].out()).contains(MB_COLUMNS);
        for (int i = 1; i <= 23; i++) {
            assertThat(r[1].out()).containsPattern(rowFor(1L << i, 5));
            assertThat(r[0].out()).containsPattern(rowFor(1L << i, 5));
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void allSizesWithWriteReportTheLastSizeToTheServer() throws Exception {
        Outcome[] r = pair(IbWriteBwCommand::new, List.of("-R", "-a", "-n", "5", "-F"), List.of());
        assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
        assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
        for (int i = 1; i <= 23; i++) {
            assertThat(r[1].out()).containsPattern(rowFor(1L << i, 5));
        }
        // perftest's server prints only the client's final report: the last size
        assertThat(r[0].out()).containsPattern(rowFor(1L << 23, 5)).doesNotContainPattern(rowFor(1L << 22, 5));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void durationModeCountsWhatWentThrough() throws Exception {
        for (Supplier<PerftestCommand> t : List.<Supplier<PerftestCommand>>of(IbReadBwCommand::new, IbSendBwCommand::new)) {
            Outcome[] r = pair(t, List.of("-R", "-s", "4096", "-D", "1"), List.of());
            assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
            assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
            assertThat(r[1].out()).containsPattern("(?m)^ 4096 +[1-9]\\d* +\\d+\\.\\d{2}");
            assertThat(r[0].out()).containsPattern("(?m)^ 4096 +[1-9]\\d* +\\d+\\.\\d{2}");
        }
    }

    /**
     * Over roce ib_send_bw has no credits, as perftest on RoCE: with 4 receives and 64 Sends in flight the sender
     * runs past the receives, the server's device answers RNR NAKs (in its capture) and the Sends are retried until
     * every one of the 300 has landed.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void sendOverRoceRunsPastTheReceivesOnRnrRetriesWithoutCredits(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path pcap = dir.resolve("server.pcap");
        List<String> common = List.of("-R", "--transport", "roce", "-O", freeUdpPortOption(), "-s", "1024", "-n", "300",
            "-r", "4", "-t", "64");
        Outcome[] sc = pair(IbSendBwCommand::new, common, List.of("--pcap", pcap.toString()), List.of());
        Outcome s = sc[0], client = sc[1];
        assertThat(client.exit()).as("client:%n%s%nserver:%n%s", client.all(), s.all()).isZero();
        assertThat(s.exit()).as("server:%n%s", s.all()).isZero();
        assertThat(client.out()).contains("\tTransport type : IB").containsPattern(rowFor(1024, 300));
        assertThat(s.out()).containsPattern(rowFor(1024, 300));
        // RC ACKNOWLEDGE (opcode 0x11) whose AETH syndrome is an RNR NAK (0b001xxxxx), and no RDMA Write (credits)
        int rnrNaks = 0, writes = 0;
        for (java.nio.ByteBuffer bth : capturedBths(pcap)) {
            int opcode = bth.get(0) & 0xFF;
            if (opcode == 0x11 && (bth.get(12) & 0xE0) == 0x20) {
                rnrNaks++;
            } else if (opcode >= 0x06 && opcode <= 0x0B) {
                writes++;
            }
        }
        assertThat(rnrNaks).as("RNR NAKs from the server").isPositive();
        assertThat(writes).as("RDMA Writes (credits)").isZero();
    }

    /**
     * perftest's default mode over roce (no {@code -R}), every tool: the parameters go over a TCP connection (ASCII
     * address keys) and the data QPs connect on the numbers exchanged there, without a CM. The server's capture holds
     * the traffic and not one CM MAD (UD Send on QP 1); both sides print "rdma_cm QPs : OFF" and "Data ex. method :
     * Ethernet" and no warning, the server none of rdma_cm's waiting lines; the client prints perftest's row (the
     * latency row for the latency tools).
     */
    @ParameterizedTest(name = "ib_{0} over roce without -R")
    @CsvSource({"write_bw, 4096, 201", "read_bw, 4096, 201", "send_bw, 4096, 201", "write_lat, 64, 200",
        "read_lat, 64, 200", "send_lat, 64, 200"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void overRoceWithoutRdmaCmTheExchangeGoesOverTcpAndTheQpsConnectWithoutACm(String test, int size, int minPackets,
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path pcap = dir.resolve("server.pcap");
        List<String> common = List.of("--transport", "roce", "-O", freeUdpPortOption(), "-s", "" + size, "-n", "200");
        Outcome[] sc = pair(tool(test.replace("_bw", "")), common, List.of("--pcap", pcap.toString()), List.of());
        Outcome s = sc[0], client = sc[1];
        assertThat(client.exit()).as("client:%n%s%nserver:%n%s", client.all(), s.all()).isZero();
        assertThat(s.exit()).as("server:%n%s", s.all()).isZero();
        assertThat(client.out()).contains(" rdma_cm QPs\t : OFF", " Data ex. method : Ethernet")
            .containsPattern(test.endsWith("_lat") ? latRowFor(size, 200) : rowFor(size, 200));
        assertThat(client.err()).as("client's warnings").isEmpty();
        assertThat(s.out()).contains(" rdma_cm QPs\t : OFF", " Data ex. method : Ethernet")
            .doesNotContain("Waiting for client rdma_cm QP");
        assertThat(s.err()).as("server's warnings").isEmpty();
        List<java.nio.ByteBuffer> bths = capturedBths(pcap);
        assertThat(bths).as("packets captured").hasSizeGreaterThanOrEqualTo(minPackets);
        assertThat(bths.stream().filter(bth -> (bth.get(0) & 0xFF) == 0x64).count()).as("CM MADs (UD Sends to QP 1)")
            .isZero();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withoutRdmaCmItIsAUsageErrorAndWithoutAServerItSaysRefused() throws Exception {
        Outcome noR = execute(new IbWriteBwCommand(), new Capture(null), "127.0.0.1");
        assertThat(noR.exit()).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(noR.err()).contains("add -R");
        Outcome nobody = execute(new IbSendBwCommand(), new Capture(null), "-R", "-p", "" + freePort(), "127.0.0.1");
        assertThat(nobody.exit()).as(nobody.all()).isEqualTo(Failure.Kind.REFUSED.exit);
        assertThat(nobody.err()).contains("Unable to connect the control connection").contains("connection refused");
    }

    @ParameterizedTest(name = "ib_{0} -s {1}")
    @CsvSource({"write_lat, 64", "read_lat, 64", "send_lat, 64", "write_lat, 4096", "send_lat, 1"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void latencyToolsPrintPerftestsLatencyRow(String op, int size) throws Exception {
        Outcome[] r = pair(tool(op), List.of("-R", "-s", "" + size, "-n", "200"), List.of());
        Outcome server = r[0], client = r[1];
        assertThat(client.exit()).as("client:%n%s%nserver:%n%s", client.all(), server.all()).isZero();
        assertThat(server.exit()).as("server:%n%s", server.all()).isZero();
        String title = switch (op) {
            case "write_lat" -> "RDMA_Write Latency Test";
            case "read_lat" -> "RDMA_Read Latency Test";
            default -> "Send Latency Test";
        };
        assertThat(client.out()).contains(title).contains(PerftestWire.LAT_COLUMNS).containsPattern(latRowFor(size, 200))
                .contains(" TX depth        : 1");
        assertThat(client.err()).isEmpty();
        if (op.equals("read_lat")) {
            // perftest's Read server only lends its buffer: addresses, no table
            assertThat(server.out()).contains(title).doesNotContain("#bytes");
        } else {
            assertThat(server.out()).contains(title).containsPattern(latRowFor(size, 200));
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void latencyToolsRunEverySizeWithMinusA() throws Exception {
        for (String op : List.of("write_lat", "send_lat")) {
            Outcome[] r = pair(tool(op), List.of("-R", "-a", "-n", "5"), List.of());
            assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
            assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
            for (int i = 1; i <= 23; i++) {
                assertThat(r[1].out()).containsPattern(latRowFor(1L << i, 5));
                assertThat(r[0].out()).containsPattern(latRowFor(1L << i, 5));
            }
        }
    }

    @ParameterizedTest(name = "ib_{0}_bw -b")
    @CsvSource({"write", "read", "send"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void bidirectionalRunsBothWaysAndBothSidesPrintTheSum(String op) throws Exception {
        Outcome[] r = pair(tool(op), List.of("-R", "-b", "-s", "4096", "-n", "300"), List.of());
        Outcome server = r[0], client = r[1];
        assertThat(client.exit()).as("client:%n%s%nserver:%n%s", client.all(), server.all()).isZero();
        assertThat(server.exit()).as("server:%n%s", server.all()).isZero();
        for (Outcome o : r) {
            assertThat(o.out()).contains("Bidirectional BW Test").containsPattern(rowFor(4096, 300));
        }
        Pattern row = rowFor(4096, 300);
        String clientRow = client.out().lines().filter(l -> row.matcher(l).matches()).findFirst().orElseThrow();
        String serverRow = server.out().lines().filter(l -> row.matcher(l).matches()).findFirst().orElseThrow();
        assertThat(serverRow).as("both print this side's report plus the peer's").isEqualTo(clientRow);
    }

    @ParameterizedTest(name = "ib_{0}_bw -q 4")
    @CsvSource({"write", "read", "send"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void severalQpsEachOnItsOwnConnectionCountTogether(String op) throws Exception {
        Outcome[] r = pair(tool(op), List.of("-R", "-q", "4", "-s", "4096", "-n", "100"), List.of());
        assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
        assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
        for (Outcome o : r) {
            assertThat(o.out()).contains(" Number of qps   : 4\t\tTransport type : IW").containsPattern(rowFor(4096, 400));
            assertThat(o.out().lines().filter(l -> l.startsWith(" local address: "))).hasSize(4);
            assertThat(o.out().lines().filter(l -> l.startsWith(" remote address: "))).hasSize(4);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void outputPrintsOneNumberAndNothingElse() throws Exception {
        Outcome[] bw = pair(IbWriteBwCommand::new, List.of("-R", "-s", "4096", "-n", "100", "--output=bandwidth"), List.of());
        Outcome[] lat = pair(IbSendLatCommand::new, List.of("-R", "-s", "64", "-n", "100", "--output=latency"), List.of());
        for (Outcome o : List.of(bw[0], bw[1], lat[0], lat[1])) {
            assertThat(o.exit()).as(o.all()).isZero();
            assertThat(o.out()).as(o.all()).matches("\\d+\\.\\d{6}\\n");
        }
        Outcome bad = execute(new IbWriteBwCommand(), new Capture(null), "-R", "--output=latency", "127.0.0.1");
        assertThat(bad.exit()).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(bad.err()).contains("Output verbosity level for BW can be: bandwidth, message_rate");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void inlineSizeAndTheHardwareFlags() throws Exception {
        Outcome[] r = pair(IbWriteBwCommand::new, List.of("-R", "-s", "64", "-n", "100", "-I", "128", "-x", "0", "-m", "4096",
                "-c", "RC"), List.of());
        assertThat(r[1].exit()).as(r[1].all()).isZero();
        assertThat(r[1].out()).contains(" Max inline data : 128[B]").contains(" Mtu             : 1024[B]")
                .containsPattern(rowFor(64, 100));
        String[][] refused = {{"-c", "UC", "UC is not supported in librdmacm"}, {"-c", "XRC", "XRC does not support RDMA_CM"},
                {"-x", "3", "jndk0 has one GID"}, {"-m", "999", "Invalid MTU - 999"}, {"-I", "500", "the largest inline size"}};
        for (String[] a : refused) {
            Outcome o = execute(new IbWriteBwCommand(), new Capture(null), "-R", a[0], a[1], "127.0.0.1");
            assertThat(o.exit()).as(o.all()).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(o.err()).startsWith(" ib_write_bw: ").contains(a[2]);
        }
        Outcome ud = execute(new IbReadLatCommand(), new Capture(null), "-R", "-c", "UD", "127.0.0.1");
        assertThat(ud.err()).contains("UD connection only possible in SEND verb");
    }
}
