package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The perftest tools as two JVM processes on 127.0.0.1: what only a separate process shows (runs that never end). */
class PerftestTwoProcessTest {
    static final Duration STARTUP = Duration.ofSeconds(30);
    static final Pattern ROW = Pattern.compile(" 4096 +[1-9]\\d* +0\\.00 +\\d+\\.\\d{2} *\\t\\t +\\d+\\.\\d{6}");

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Reads stdout lines until {@code n} rows came; fails after {@link #STARTUP} per line. */
    static void awaitRows(JndkProcess p, int n) throws InterruptedException {
        int rows = 0;
        while (rows < n) {
            String line = p.nextLine(STARTUP);
            assertThat(line).as("output so far:%n%s", p.output()).isNotNull();
            if (ROW.matcher(line).matches()) {
                rows++;
            }
        }
    }

    /** --run_infinitely prints a row every -D seconds on both sides of a Send test until the client is stopped. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void runInfinitelyPrintsARowEveryPeriodUntilStopped() throws Exception {
        String port = Integer.toString(freePort());
        try (JndkProcess server = JndkProcess.start(List.of(), "ib_send_bw", "-R", "-p", port, "-s", "4096",
                "--run_infinitely", "-D", "1")) {
            String line;
            do {
                line = server.nextLine(STARTUP);
                assertThat(line).as("server output:%n%s", server.output()).isNotNull();
            } while (!line.contains("Waiting for client to connect"));
            try (JndkProcess client = JndkProcess.start(List.of(), "ib_send_bw", "-R", "-p", port, "-s", "4096",
                    "--run_infinitely", "-D", "1", "127.0.0.1")) {
                awaitRows(client, 2);
                awaitRows(server, 2);
                assertThat(client.await(Duration.ofMillis(1))).as("the client still runs").isNull();
            }
            // the client is gone (killed): the server notices its data connection go and ends with one line
            assertThat(server.await(STARTUP)).as("server exit; output:%n%s", server.output()).isNotNull().isNotZero();
            assertThat(server.output()).contains("[stderr]  ib_send_bw: the peer closed the data connection");
        }
    }
}
