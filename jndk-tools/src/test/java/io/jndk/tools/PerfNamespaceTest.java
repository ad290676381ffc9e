package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jndk perf --server} and {@code --client} in two network namespaces of their own, joined by a veth pair
 * on a /30 of the documentation range 198.51.100.0/24: the traffic crosses a real (virtual) link instead of
 * {@code lo}. Needs root and {@code ip}; skipped otherwise. Only the two namespaces' addresses are ever contacted;
 * the namespaces (and with them the veth pair) are deleted afterwards, whatever happened.
 */
class PerfNamespaceTest {
    static final long PID = ProcessHandle.current().pid();
    static final String NS_A = "jndk-a-" + PID, NS_B = "jndk-b-" + PID;
    static final String VETH_A = "jva" + PID % 1_000_000, VETH_B = "jvb" + PID % 1_000_000;
    static final int SUBNET = (int) (PID % 64) * 4; // a /30 of 198.51.100.0/24 (TEST-NET-2)
    static final String ADDR_A = "198.51.100." + (SUBNET + 1), ADDR_B = "198.51.100." + (SUBNET + 2);
    static String ip;
    static final List<String> created = new ArrayList<>();

    /** Runs a command to its end (bounded); returns its exit status and output. */
    static Result run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            return new Result(-1, String.join(" ", cmd) + ": no end within 10 s");
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    }

    record Result(int status, String output) {}

    static void ip(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ip));
        cmd.addAll(List.of(args));
        Result r = run(cmd);
        if (r.status() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + r.output());
        }
    }

    @BeforeAll
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    static void network() throws Exception {
        Result uid = run(List.of("id", "-u"));
        assumeTrue(uid.status() == 0 && uid.output().equals("0"), "network namespaces need root (uid " + uid.output() + ")");
        for (String c : List.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")) {
            if (new java.io.File(c).canExecute()) {
                ip = c;
                break;
            }
        }
        assumeTrue(ip != null, "the ip command (iproute2) is not installed");
        Result probe = run(List.of(ip, "netns", "add", NS_A));
        assumeTrue(probe.status() == 0, "cannot create a network namespace here: " + probe.output());
        created.add(NS_A);
        ip("netns", "add", NS_B);
        created.add(NS_B);
        ip("link", "add", VETH_A, "type", "veth", "peer", "name", VETH_B);
        ip("link", "set", VETH_A, "netns", NS_A); // from here on the pair goes away with the namespaces
        ip("link", "set", VETH_B, "netns", NS_B);
        ip("-n", NS_A, "addr", "add", ADDR_A + "/30", "dev", VETH_A);
        ip("-n", NS_B, "addr", "add", ADDR_B + "/30", "dev", VETH_B);
        for (String[] nd : new String[][] {{NS_A, VETH_A}, {NS_B, VETH_B}}) {
            ip("-n", nd[0], "link", "set", "lo", "up");
            ip("-n", nd[0], "link", "set", nd[1], "up");
        }
    }

    @AfterAll
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    static void removeNetwork() throws Exception {
        if (ip == null) {
            return;
        }
        List<String> failures = new ArrayList<>();
        for (String ns : created) {
            Result r = run(List.of(ip, "netns", "del", ns));
            if (r.status() != 0) {
                failures.add(ns + ": " + r.output());
            }
        }
        created.clear();
        // A veth pair not yet moved (a failure between its creation and the move) lives in this namespace.
        if (run(List.of(ip, "link", "show", VETH_A)).status() == 0) {
            run(List.of(ip, "link", "del", VETH_A));
        }
        assertThat(failures).as("namespaces left behind").isEmpty();
        assertThat(run(List.of(ip, "netns", "list")).output()).doesNotContain(NS_A).doesNotContain(NS_B);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void writeReadAndSendAcrossAVethPairBetweenNamespaces() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(ip, "netns", "exec", NS_A), "perf", "--server", "--bind", ADDR_A,
                "--port", "0", "--connections", "3")) {
            int port = PerfTwoProcessTest.awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(ip, "netns", "exec", NS_B), "perf", "--client", ADDR_A,
                    "--port", "" + port, "--op", "write,read,send", "-s", "65536", "-n", "200")) {
                assertThat(client.await(PerfTwoProcessTest.RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
                assertThat(client.output()).contains("client " + ADDR_B + " of the server at " + ADDR_A);
                PerfTwoProcessTest.assertVerifiedRows(client.output(), 3);
            }
            assertThat(server.await(PerfTwoProcessTest.RUN)).as("server exit; output:%n%s", server.output()).isEqualTo(0);
            assertThat(server.output()).contains(ADDR_B + ":").contains("400 messages of 65536 B checked: 400 good, 0 bad");
        }
    }

    /**
     * Over roce: the client's route to the server becomes unreachable while a Write stream runs, so every packet the
     * client's device sends (Write retransmissions, then the CM's REJ) fails in the socket with "no route to host".
     * Those are lost packets, not the device's end: the Writes end in the retry-exceeded error and the client says so
     * and exits, its QP and adapter closed (a send error that stopped the device's engine left the adapter's close
     * waiting for ever).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRoceClientWhoseRouteGoesAwayEndsWithAnErrorAndExits() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(ip, "netns", "exec", NS_A), "perf", "--server", "--transport",
                "roce", "--bind", ADDR_A, "--port", "0", "--connections", "1")) {
            int port = PerfTwoProcessTest.awaitListening(server);
            try (JndkProcess client = JndkProcess.start(List.of(ip, "netns", "exec", NS_B), "perf", "--client", ADDR_A,
                    "--bind", ADDR_B, "--transport", "roce", "--port", "" + port, "--op", "write", "-s", "65536",
                    "-n", "10000000")) {
                String started = server.nextLine(PerfTwoProcessTest.STARTUP);
                assertThat(started).as("the server's line for the stream; output:%n%s", server.output())
                        .isNotNull().contains(": write, 65536 B");
                ip("-n", NS_B, "route", "add", "unreachable", ADDR_A + "/32");
                try {
                    Integer status = client.await(PerfTwoProcessTest.RUN);
                    assertThat(status).as("the client's exit; output:%n%s", client.output()).isNotNull().isNotEqualTo(0);
                    assertThat(client.output()).contains("IO_TIMEOUT");
                } finally {
                    ip("-n", NS_B, "route", "del", "unreachable", ADDR_A + "/32");
                }
            }
        }
    }
}
