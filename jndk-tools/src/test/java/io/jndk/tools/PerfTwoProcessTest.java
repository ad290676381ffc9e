package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.kit.Failure;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code jndk perf --server} and {@code --client} as two JVM processes over iwarp on 127.0.0.1. */
class PerfTwoProcessTest {
    static final Pattern LISTENING = Pattern.compile("listening on ([0-9.]+):(\\d+) .*");
    static final Duration STARTUP = Duration.ofSeconds(20);
    static final Duration RUN = Duration.ofSeconds(40);

    /** Starts a server and returns its port, read from its first line. */
    static int awaitListening(JndkProcess server) throws InterruptedException {
        String first = server.nextLine(STARTUP);
        assertThat(first).as("server's first line; output so far:%n%s", server.output()).isNotNull();
        Matcher m = LISTENING.matcher(first);
        assertThat(m.matches()).as("first line '%s'", first).isTrue();
        return Integer.parseInt(m.group(2));
    }

    static void assertVerifiedRows(String out, int rows) {
        long verified = out.lines().filter(l -> l.matches("\\s*\\d+\\s+(write|read|send)\\s.*\\sverified")).count();
        assertThat(verified).as("verified rows in:%n%s", out).isEqualTo(rows);
        assertThat(out).doesNotContain("FAILED").contains("All data verified");
    }

    /**
     * Over roce: the server's device on 127.0.0.1, the client's on 127.0.0.2 (each binds its address's UDP port
     * 4791); Write, Read and Send of 4 KiB and 64 KiB, every byte verified.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void writeReadAndSendOverRoceBetweenTwoProcessesOnTwoAddresses() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--transport", "roce", "--port", "0",
                "--connections", "6")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--bind", "127.0.0.2",
                    "--transport", "roce", "--port", "" + port, "--op", "write,read,send", "-s", "4096,65536", "-n", "200")) {
                assertThat(client.await(Duration.ofSeconds(90))).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                assertVerifiedRows(client.output(), 6);
                assertThat(client.output()).contains("jndk perf: roce transport, client 127.0.0.2 of the server at 127.0.0.1");
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output()).contains("(roce)").contains("400 messages of 65536 B checked: 400 good, 0 bad");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void writeReadAndSendBetweenTwoProcessesVerifyEveryByte() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--port", "0", "--connections", "7")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port,
                    "--op", "write,read,send", "-s", "4096,65536", "-n", "300")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                assertVerifiedRows(client.output(), 6);
            }
            // Odd size (not a whole number of pattern words) with MPA CRC on every FPDU, the client sleeping on its CQs.
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port,
                    "--op", "send", "-s", "1001", "-n", "200", "--depth", "3", "--crc", "--block")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                assertVerifiedRows(client.output(), 1);
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output()).contains("300 + 300 iterations").contains("600 messages of 4096 B checked: 600 good, 0 bad")
                    .contains("400 messages of 1001 B checked: 400 good, 0 bad");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void latencyModePingPongsBetweenTwoProcessesOnTwoConnectionsAtOnceInlineWhereItFits() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--port", "0", "--connections", "12")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port,
                    "--mode", "lat", "--qps", "2", "--inline", "-s", "200,1001", "-n", "300", "--csv")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                List<String> rows = client.stdout().lines().skip(1).toList();
                assertThat(rows).as(client.output()).hasSize(6).allMatch(l -> l.startsWith("iwarp,lat,")
                        && l.contains(",600,2,") && l.endsWith(",true"));
                // The adapter's inline limit is 256 bytes; Reads never go inline.
                assertThat(rows.stream().filter(l -> l.endsWith(",true,true")).map(l -> l.split(",")[2] + l.split(",")[3]))
                        .containsExactlyInAnyOrder("200write", "200send");
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            String out = server.output();
            assertThat(out).contains("write, 1001 B, 300 round trips (latency mode)");
            assertThat(out.lines().filter(l -> l.endsWith("300 writes of 1001 B answered"))).hasSize(2);
            assertThat(out.lines().filter(l -> l.endsWith("300 messages of 200 B checked: 300 good, 0 bad"))).hasSize(2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oneWrongByteFailsTheRowAndTheExitStatus() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--port", "0", "--connections", "2",
                "--inject-fault")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port,
                    "--op", "read,send", "-s", "4096", "-n", "50")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(Failure.Kind.VERIFY.exit);
                String out = client.output();
                assertThat(out.lines().filter(l -> l.matches("\\s*4096\\s+(read|send)\\s.*\\sFAILED"))).as(out).hasSize(2);
                // 16 slots of 4096 B: the wrong byte sits in slot 8, which messages 8, 24, 40, 56, 72 and 88 carry.
                assertThat(out).contains("DATA MISMATCH").contains("the server reports 94 good and 6 bad of 100 messages");
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aSilentPeerIsGivenUpWithinTheConnectBound() throws Exception {
        // A plain TCP listener in this JVM: the handshake completes, but no MPA Reply ever comes.
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port",
                        "" + silent.getLocalPort(), "-s", "8", "--op", "send")) {
            Integer exit = client.await(Duration.ofSeconds(20));
            assertThat(exit).as("client exit; output:%n%s", client.output()).isEqualTo(Failure.Kind.UNREACHABLE.exit);
            assertThat(client.output()).contains("cannot connect to 127.0.0.1:" + silent.getLocalPort() + ": no answer in time");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aClientWithNoServerSaysSoAndFails() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port, "-s",
                "8", "--op", "write")) {
            Integer exit = client.await(Duration.ofSeconds(20));
            assertThat(exit).as("client exit; output:%n%s", client.output()).isEqualTo(Failure.Kind.REFUSED.exit);
            assertThat(client.output()).contains("cannot connect to 127.0.0.1:" + port + ": connection refused");
        }
    }
}
