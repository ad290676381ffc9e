package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.kit.Failure;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code jndk rping -s} and {@code -c} as two JVM processes over iwarp on 127.0.0.1. */
class RpingTwoProcessTest {
    static final Pattern LISTENING = Pattern.compile("listening on ([0-9.]+):(\\d+)");
    static final Duration STARTUP = Duration.ofSeconds(20);
    static final Duration RUN = Duration.ofSeconds(60);

    /** Waits for the server's "listening on" debug line and returns its port. */
    static int awaitListening(JndkProcess server) throws InterruptedException {
        for (String line; (line = server.nextLine(STARTUP)) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.matches()) {
                return Integer.parseInt(m.group(2));
            }
        }
        throw new AssertionError("the server never said it listens; output:\n" + server.output());
    }

    /** What rping's client prints with -v for ping {@code ping} of {@code size} octets. */
    static String pingLine(String prefix, int ping, int size) {
        StringBuilder b = new StringBuilder(prefix).append("rdma-ping-").append(ping).append(": ");
        int head = b.length() - prefix.length();
        int c = 'A' + ping % 58;
        for (int i = head; i < size - 1; i++) {
            b.append((char) c);
            c = c == 'z' ? 'A' : c + 1;
        }
        return b.toString();
    }

    private static void runPair(int size, boolean serverCrc, boolean clientCrc) throws Exception {
        List<String> s = new ArrayList<>(List.of("rping", "-s", "-a", "127.0.0.1", "-p", "0", "-S", "" + size, "-d", "-v"));
        if (serverCrc) {
            s.add("--crc");
        }
        try (JndkProcess server = JndkProcess.start(List.of(), s.toArray(String[]::new))) {
            int port = awaitListening(server);
            List<String> c = new ArrayList<>(List.of("rping", "-c", "-a", "127.0.0.1", "-p", "" + port, "-C", "10", "-S", "" + size,
                    "-V", "-v"));
            if (clientCrc) {
                c.add("--crc");
            }
            try (JndkProcess client = JndkProcess.start(List.of(), c.toArray(String[]::new))) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                List<String> lines = client.output().lines().filter(l -> l.startsWith("ping data: ")).toList();
                assertThat(lines).hasSize(10);
                for (int i = 0; i < 10; i++) {
                    assertThat(lines.get(i)).isEqualTo(pingLine("ping data: ", i, size));
                }
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output()).contains(pingLine("server ping data: ", 9, size) + "\n")
                    .contains(": 10 pings, " + 2L * 10 * size + " octets read and written");
        }
    }

    /**
     * Over roce: each process's device binds its address's UDP port 4791, so the client connects from 127.0.0.2 (lo
     * answers for all of 127/8); a hundred verified pings of 1 KiB, and --crc (MPA's) refused on roce.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHundredVerifiedPingsOverRoceFromASecondAddress() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-S", "1024",
                "-d", "--transport", "roce")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-I", "127.0.0.2", "-p",
                    "" + port, "-C", "100", "-S", "1024", "-V", "-v", "--transport", "roce")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                List<String> lines = client.output().lines().filter(l -> l.startsWith("ping data: ")).toList();
                assertThat(lines).hasSize(100);
                assertThat(lines.get(99)).isEqualTo(pingLine("ping data: ", 99, 1024));
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output()).contains("127.0.0.2:").contains(": 100 pings, " + 2L * 100 * 1024
                    + " octets read and written");
        }
        try (JndkProcess p = JndkProcess.start(List.of(), "rping", "-s", "-a", "127.0.0.1", "--transport", "roce", "--crc")) {
            assertThat(p.await(RUN)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.output()).contains("rping: --crc asks for MPA CRC32c on iWARP FPDUs, and the roce transport has"
                    + " none");
        }
        try (JndkProcess p = JndkProcess.start(List.of(), "rping", "-s", "-a", "127.0.0.1", "--transport", "ib")) {
            assertThat(p.await(RUN)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.output()).contains("rping: unknown --transport ib (iwarp or roce)");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenVerifiedPingsOf64Octets() throws Exception {
        runPair(64, false, false);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenVerifiedPingsOf64OctetsWithCrc() throws Exception {
        runPair(64, true, false);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenVerifiedPingsOf65535Octets() throws Exception {
        runPair(65535, false, false);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenVerifiedPingsOf65535OctetsWithCrc() throws Exception {
        runPair(65535, false, true);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aPersistentServerServesOneClientAfterAnother() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "rping", "-s", "-P", "-a", "127.0.0.1", "-p", "0", "-S", "65535",
                "-d")) {
            int port = awaitListening(server);
            int[] sizes = {1024, 65535};
            for (int size : sizes) {
                try (JndkProcess client = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-p", "" + port, "-C", "10",
                        "-S", "" + size, "-V")) {
                    assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                }
                // The server's summary of this connection comes when it has seen the client's disconnect.
                String want = ": 10 pings, " + 2L * 10 * size + " octets read and written";
                for (String line; !server.output().contains(want); ) {
                    line = server.nextLine(RUN);
                    assertThat(line).as("server output so far:%n%s", server.output()).isNotNull();
                }
            }
            assertThat(server.output()).doesNotContain("rping: server");
            assertThat(server.await(Duration.ofMillis(1))).as("the persistent server is still serving").isNull();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aServerWithASmallerBufferSaysWhyAndFails() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-S", "64", "-d")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-p", "" + port, "-C", "3",
                    "-S", "1024", "-V")) {
                Integer exit = client.await(RUN);
                assertThat(exit).as("client exit; output:%n%s", client.output()).isNotNull().isNotEqualTo(0);
                assertThat(client.output()).contains("rping: client: ");
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(1);
            assertThat(server.output()).contains("the client's ping data (1024 octets) does not fit this server's -S 64");
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
        try (JndkProcess client = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-p", "" + port, "-C", "1")) {
            assertThat(client.await(Duration.ofSeconds(20))).as("client exit; output:%n%s", client.output())
                    .isEqualTo(Failure.Kind.REFUSED.exit);
            assertThat(client.output().strip()).doesNotContain("\n")
                    .startsWith("[stderr] rping: client: cannot connect to 127.0.0.1:" + port + ": connection refused");
        }
    }

    /** rping's -q (self-created QP) and -t TOS: accepted on both sides; -t says once that it is not applied. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void selfCreatedQpAndTypeOfServiceAreAcceptedAndTosIsSaidNotApplied() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "rping", "-s", "-a", "127.0.0.1", "-p", "0", "-d", "-q", "-t",
                "16")) {
            int port = awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-p", "" + port, "-C",
                    "3", "-V", "-q", "-t", "16")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                assertThat(client.output()).contains(
                        "[stderr] rping: -t 16 is not applied: the iwarp transport sets no IP type of service");
            }
            assertThat(server.await(RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
        }
        try (JndkProcess bad = JndkProcess.start(List.of(), "rping", "-c", "-a", "127.0.0.1", "-t", "300")) {
            assertThat(bad.await(RUN)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(bad.output().strip()).isEqualTo("[stderr] rping: Invalid tos 300 (valid range is 0 to 255)");
        }
    }
}
