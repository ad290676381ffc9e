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

    /** Runs a server and, once it waits for clients, a client with the same options; returns {server, client}. */
    static Outcome[] pair(Supplier<PerftestCommand> tool, List<String> common, List<String> clientOnly) throws Exception {
        int port = freePort();
        List<String> c = new ArrayList<>(common);
        c.addAll(List.of("-p", "" + port));
        Capture serverOut = new Capture("Waiting for client to connect");
        CompletableFuture<Outcome> server = CompletableFuture.supplyAsync(() -> execute(tool.get(), serverOut, args(c)),
                r -> Thread.ofPlatform().name("perftest-server").start(r));
        serverOut.ready.get(30, TimeUnit.SECONDS);
        List<String> ca = new ArrayList<>(c);
        ca.addAll(clientOnly);
        ca.add("127.0.0.1");
        Outcome client = execute(tool.get(), new Capture(null), ca.toArray(String[]::new));
        Outcome s = server.get(60, TimeUnit.SECONDS);
        return new Outcome[] {s, client};
    }

    static Pattern rowFor(long size, long iters) {
        return Pattern.compile("(?m)^ " + size + " +" + iters + " +\\d+\\.\\d{2} +\\d+\\.\\d{2} *\\t\\t +\\d+\\.\\d{6}$");
    }

    static Supplier<PerftestCommand> tool(String name) {
        return switch (name) {
            case "write" -> IbWriteBwCommand::new;
            case "read" -> IbReadBwCommand::new;
            default -> IbSendBwCommand::new;
        };
    }

    @ParameterizedTest(name = "ib_{0}_bw -s {1}")
    @CsvSource({"write, 64", "write, 65536", "read, 64", "read, 65536", "send, 64", "send, 65536"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void clientAndServerPrintPerftestsTable(String op, int size) throws Exception {
        Outcome[] r = pair(tool(op), List.of("-R", "-s", "" + size, "-n", "200"), List.of());
        Outcome server = r[0], client = r[1];
        assertThat(client.exit()).as("client:%n%s", client.all()).isZero();
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
        if (op.equals("read")) {
            assertThat(client.out()).contains(" Outstand reads  : 128");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void allSizesWithSendGiveARowPerSizeOnBothSidesAndGbitsOnRequest() throws Exception {
        Outcome[] r = pair(IbSendBwCommand::new, List.of("-R", "-a", "-n", "4"), List.of("--report_gbits"));
        assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
        assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
        assertThat(r[1].out()).contains(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]");
        assertThat(r[0].out()).contains(MB_COLUMNS);
        for (int i = 1; i <= 23; i++) {
            assertThat(r[1].out()).containsPattern(rowFor(1L << i, 4));
            assertThat(r[0].out()).containsPattern(rowFor(1L << i, 4));
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void allSizesWithWriteReportTheLastSizeToTheServer() throws Exception {
        Outcome[] r = pair(IbWriteBwCommand::new, List.of("-R", "-a", "-n", "3", "-F"), List.of());
        assertThat(r[1].exit()).as("client:%n%s", r[1].all()).isZero();
        assertThat(r[0].exit()).as("server:%n%s", r[0].all()).isZero();
        for (int i = 1; i <= 23; i++) {
            assertThat(r[1].out()).containsPattern(rowFor(1L << i, 3));
        }
        // perftest's server prints only the client's final report: the last size
        assertThat(r[0].out()).containsPattern(rowFor(1L << 23, 3)).doesNotContainPattern(rowFor(1L << 22, 3));
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

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withoutRdmaCmTheExitCodeIsOneAndWithoutAServerItSaysRefused() throws Exception {
        Outcome noR = execute(new IbWriteBwCommand(), new Capture(null), "127.0.0.1");
        assertThat(noR.exit()).isEqualTo(1);
        assertThat(noR.err()).contains("add -R");
        Outcome nobody = execute(new IbSendBwCommand(), new Capture(null), "-R", "-p", "" + freePort(), "127.0.0.1");
        assertThat(nobody.exit()).as(nobody.all()).isEqualTo(Failure.Kind.REFUSED.exit);
        assertThat(nobody.err()).contains("Unable to connect the control connection").contains("connection refused");
    }
}
