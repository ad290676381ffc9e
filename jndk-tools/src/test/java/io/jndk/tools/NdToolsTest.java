package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jndk.tools.kit.Failure;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The NetworkDirect-style tools as separate processes on 127.0.0.1, and every tool's failure lines and exit codes. */
class NdToolsTest {
    static final Pattern LISTENING = Pattern.compile("nd\\w+: listening on ([0-9.]+):(\\d+)");
    static final Pattern ROW = Pattern.compile("\\s+(\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+)");
    static final Pattern JSON = Pattern.compile("\\{\"tool\":\"(nd\\w+)\",\"size\":(\\d+),\"iter\":(\\d+),\"latency_us\":"
            + "(\\d+\\.\\d\\d),\"cpu_pct\":(\\d+\\.\\d\\d),\"bytes_per_sec\":(\\d+)}");
    static final Duration RUN = Duration.ofSeconds(90);

    static int awaitListening(JndkProcess server) throws InterruptedException {
        for (String line; (line = server.nextLine(Duration.ofSeconds(20))) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.matches()) {
                return Integer.parseInt(m.group(2));
            }
        }
        throw new AssertionError("the server never said it listens; output:\n" + server.output());
    }

    /** Runs a server and a client of {@code tool}; returns the client's output. */
    static String pair(String tool, String... clientArgs) throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), tool, "-s", "127.0.0.1", "--port", "0")) {
            int port = awaitListening(server);
            List<String> args = new ArrayList<>(List.of(tool, "-c", "127.0.0.1", "--port", "" + port));
            args.addAll(List.of(clientArgs));
            String out;
            try (JndkProcess client = JndkProcess.start(List.of(), args.toArray(String[]::new))) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                out = client.output();
            }
            assertThat(server.await(RUN)).as("server exit (it serves one run); output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output() + out).doesNotContain("WARN").doesNotContain("Exception");
            return out;
        }
    }

    static int closedPort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort(); // closed again: nothing listens there
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void ndpingpongPrintsNetworkDirectsColumnsForEverySizeFromOneOctetToFourMiB() throws Exception {
        String out = pair("ndpingpong", "--iters", "5");
        List<String> lines = out.lines().toList();
        assertThat(lines).as(out).contains("      Size      Iter   Latency     CPU   Bytes/Sec");
        List<Long> sizes = new ArrayList<>();
        for (String l : lines) {
            Matcher m = ROW.matcher(l);
            if (m.matches()) {
                sizes.add(Long.parseLong(m.group(1)));
                assertThat(Integer.parseInt(m.group(2))).as(l).isBetween(1, 5);
                assertThat(Long.parseLong(m.group(5))).as(l).isPositive();
            }
        }
        List<Long> want = new ArrayList<>();
        for (long s = 1; s <= 4 << 20; s <<= 1) {
            want.add(s);
        }
        assertThat(sizes).as(out).isEqualTo(want);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ndping", "ndrping", "ndrpingpong", "ndwping", "ndwpingpong", "ndpingpong"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eachTransferToolRunsAndItsJsonParses(String tool) throws Exception {
        String out = pair(tool, "--iters", "20", "--max-size", "4096", "-q", "4", "-n", "2", "--json", "-b");
        List<String> records = out.lines().filter(l -> !l.isBlank()).toList();
        assertThat(records).as(out).hasSize(13);
        for (int i = 0; i < records.size(); i++) {
            Matcher m = JSON.matcher(records.get(i));
            assertThat(m.matches()).as(records.get(i)).isTrue();
            assertThat(m.group(1)).isEqualTo(tool);
            assertThat(Integer.parseInt(m.group(2))).isEqualTo(1 << i);
            assertThat(Integer.parseInt(m.group(3))).isEqualTo(20);
            assertThat(Long.parseLong(m.group(6))).isPositive();
        }
    }

    /**
     * ndping with its default -q 16 over every size to 1 MiB: a credit can come back before this side reaped the Sends
     * it covers, and the client still never has more than -q Sends posted (the send queue's depth; it used to stop
     * with "post send failed: STATUS_INSUFFICIENT_RESOURCES").
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void ndpingWithItsDefaultDepthStaysWithinItsSendQueue() throws Exception {
        String out = pair("ndping", "--iters", "200", "--max-size", "1048576", "--json");
        List<String> records = out.lines().filter(l -> !l.isBlank()).toList();
        assertThat(records).as(out).hasSize(21).allMatch(l -> JSON.matcher(l).matches());
        assertThat(out).doesNotContain("INSUFFICIENT_RESOURCES");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ndpingpong", "ndwpingpong", "ndrping", "ndrpingpong"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void verifyPassesOnGoodDataAndFailsWithExitNineOnOneSpoiledOctet(String tool) throws Exception {
        pair(tool, "--iters", "3", "--max-size", "2048", "-V", "-n", "3");
        try (JndkProcess server = JndkProcess.start(List.of(), tool, "-s", "127.0.0.1", "--port", "0", "--inject-fault")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), tool, "-c", "127.0.0.1", "--port", "" + port, "--iters", "3",
                    "--max-size", "2048", "-V", "--json")) {
                assertThat(client.await(RUN)).as(client.output()).isEqualTo(Failure.Kind.VERIFY.exit);
                List<String> lines = client.output().lines().toList();
                assertThat(lines).as(client.output()).hasSize(11); // sizes 1..512 passed
                assertThat(lines.get(10)).startsWith("[stderr] jndk " + tool + ": data mismatch at size 1024, iteration ")
                        .contains(": octet 1000 is 0xe0, expected 0x1f");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ndmrlat", "ndmrrate"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theRegistrationToolsPrintOneRecordPerSizeAlsoToTheLogFile(String tool, @TempDir Path dir) throws Exception {
        Path log = dir.resolve(tool + ".log");
        try (JndkProcess p = JndkProcess.start(List.of(), tool, "--iters", "3", "--max-size", "1024", "--json", "-l", log.toString())) {
            assertThat(p.await(RUN)).as(p.output()).isEqualTo(0);
            List<String> records = p.output().lines().filter(l -> !l.isBlank()).toList();
            assertThat(Files.readAllLines(log)).isEqualTo(p.output().lines().toList());
            assertThat(records).as(p.output()).hasSize(11);
            assertThat(records.get(10)).matches("\\{\"tool\":\"" + tool + "\",\"size\":1024,\"iter\":3,\"register_us\":\\d+\\.\\d\\d,"
                    + "\"deregister_us\":\\d+\\.\\d\\d,\"cpu_pct\":\\d+\\.\\d\\d" + (tool.equals("ndmrrate") ? ",\"regs_per_sec\":\\d+" : "")
                    + "}");
        }
    }

    /** Every client pointed at a port where nothing listens: one line with the reason, exit code 4, promptly. */
    @ParameterizedTest
    @ValueSource(strings = {"ndpingpong -c 127.0.0.1 --port P", "perf --client 127.0.0.1 --port P -s 8 --op write",
            "rping -c -a 127.0.0.1 -p P", "ndrping -c 127.0.0.1:P"})
    void aClientWithNothingListeningSaysSoInOneLine(String command) {
        int port = closedPort();
        String[] args = command.replace("P", "" + port).split(" ");
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (JndkProcess client = JndkProcess.start(List.of(), args)) {
                assertThat(client.await(Duration.ofSeconds(20))).as(client.output()).isEqualTo(Failure.Kind.REFUSED.exit);
                List<String> lines = client.output().lines().toList();
                assertThat(lines).as(client.output()).hasSize(1);
                assertThat(lines.get(0)).startsWith("[stderr] ").contains("127.0.0.1:" + port + ": connection refused")
                        .contains("check the address and port");
            }
        });
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aServerOfAnotherToolRejectsWithAReasonTheClientPrintsAndServesTheNextClient() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "ndpingpong", "-s", "127.0.0.1", "--port", "0")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "ndping", "-c", "127.0.0.1", "--port", "" + port)) {
                assertThat(client.await(RUN)).as(client.output()).isEqualTo(Failure.Kind.REJECTED.exit);
                assertThat(client.output().strip()).isEqualTo("[stderr] jndk ndping: the server at 127.0.0.1:" + port
                        + " rejected the connection: jndk ndpingpong: this is a ndpingpong server; the client runs ndping");
            }
            try (JndkProcess client = JndkProcess.start(List.of(), "ndpingpong", "-c", "127.0.0.1", "--port", "" + port, "--iters",
                    "3", "--max-size", "8", "--json")) {
                assertThat(client.await(RUN)).as(client.output()).isEqualTo(0);
                assertThat(client.output().lines()).hasSize(4);
            }
            assertThat(server.await(RUN)).as(server.output()).isEqualTo(0);
            assertThat(server.output()).contains("ndpingpong: rejected a client: this is a ndpingpong server; the client runs ndping");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aPeerThatNeverAnswersMpaIsAnUnreachableTimeout() throws Exception {
        // A plain TCP listener in this JVM: the handshake completes, but no MPA Reply ever comes.
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                JndkProcess client = JndkProcess.start(List.of(), "ndpingpong", "-c", "127.0.0.1:" + silent.getLocalPort())) {
            assertThat(client.await(Duration.ofSeconds(30))).as(client.output()).isEqualTo(Failure.Kind.UNREACHABLE.exit);
            assertThat(client.output().strip()).doesNotContain("\n")
                    .contains("cannot connect to 127.0.0.1:" + silent.getLocalPort() + ": no answer in time");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTakenPortIsAddressInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                JndkProcess server = JndkProcess.start(List.of(), "ndping", "-s", "127.0.0.1:" + taken.getLocalPort())) {
            assertThat(server.await(RUN)).as(server.output()).isEqualTo(Failure.Kind.ADDRESS_IN_USE.exit);
            assertThat(server.output()).contains("address in use");
        }
    }

    @Test
    void badArgumentsAreAUsageError() {
        CommandLine cl = Main.commandLine();
        cl.setErr(new java.io.PrintWriter(java.io.Writer.nullWriter()));
        assertThat(cl.execute("ndpingpong", "-s", "-c", "127.0.0.1")).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(cl.execute("ndpingpong", "-c")).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(cl.execute("ndping", "-q", "0", "-c", "127.0.0.1")).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(cl.execute("ndping", "-V", "-c", "127.0.0.1")).isEqualTo(Failure.Kind.USAGE.exit);
    }

    @Test
    void everyToolIsListedAndItsHelpHasAnExample() {
        CommandLine cl = Main.commandLine();
        String top = cl.getUsageMessage();
        assertThat(cl.getSubcommands()).containsKeys("ndping", "ndpingpong", "ndrping", "ndrpingpong", "ndwping", "ndwpingpong",
                "ndmrlat", "ndmrrate", "perf", "rping", "info");
        for (var e : cl.getSubcommands().entrySet()) {
            assertThat(top).contains("  " + e.getKey());
            assertThat(e.getValue().getUsageMessage()).as(e.getKey()).contains("Example");
        }
        for (Failure.Kind k : Failure.Kind.values()) {
            assertThat(top).contains("  " + k.exit + "  " + k.meaning);
        }
    }

    @Test
    void privateDataIsPrintedAsOnePrintableLine() {
        assertThat(Failure.printable(new byte[] {'o', 'k', '\n', 1, 0, 0}, 6)).isEqualTo("ok..");
        assertThat(Failure.printable(new byte[4], 4)).isNull();
        assertThat(Failure.printable(null, 0)).isNull();
    }
}
