package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code jndk stat PID} reads the live adapter counters of a running {@code jndk perf --server} process. */
class StatTwoProcessTest {
    private static final Duration RUN = Duration.ofSeconds(60);

    /** The value of counter {@code name} in a {@code stat --json} record. */
    private static long counter(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
        assertThat(m.find()).as("%s in %s", name, json).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String stat(String... args) throws Exception {
        return JndkProcess.run(RUN, args);
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void statShowsTheServersAdapterAndItsCountersGrowWithTraffic() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--port", "0")) {
            int port = PerfTwoProcessTest.awaitListening(server);
            String pid = Long.toString(server.pid());

            String idle = stat("stat", pid, "--json");
            assertThat(idle).contains("\"pid\":" + pid, "\"name\":\"iwarp-", "\"transport\":\"iwarp\"");
            assertThat(counter(idle, "connections")).isZero();
            assertThat(counter(idle, "fpdus_in")).isZero();

            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--port", "" + port,
                    "-s", "4096", "--op", "write", "-n", "200")) {
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
            }
            String busy = stat("stat", pid, "--json");
            assertThat(counter(busy, "connections")).isPositive();
            assertThat(counter(busy, "fpdus_in")).isGreaterThanOrEqualTo(200);
            assertThat(counter(busy, "bytes_in")).isGreaterThanOrEqualTo(200L * 4096);

            String text = stat("stat", pid);
            assertThat(text).contains("pid " + pid + " adapter iwarp-").containsPattern("fpdus_in\\s+\\d+");
        }
    }

    /**
     * A roce server's adapter also carries its device's counters ({@code device_} and the name): what the RC responder
     * executed, the ICRC checks. The client runs from 127.0.0.2, as each process's device binds its address's port 4791.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void statShowsARoceServersDeviceCounters() throws Exception {
        try (JndkProcess server = JndkProcess.start(List.of(), "perf", "--server", "--transport", "roce", "--bind",
                "127.0.0.1", "--port", "0")) {
            int port = PerfTwoProcessTest.awaitListening(server);
            String pid = Long.toString(server.pid());
            assertThat(counter(stat("stat", pid, "--json"), "device_rc_requests_executed")).isZero();
            try (JndkProcess client = JndkProcess.start(List.of(), "perf", "--client", "127.0.0.1", "--bind", "127.0.0.2",
                    "--transport", "roce", "--port", "" + port, "-s", "4096", "--op", "write", "-n", "200",
                    "-O", "ack.timeout=17")) { // 0.54 s: a loaded machine's pause is not the test's retry exhaustion
                assertThat(client.await(RUN)).as("client exit; output:%n%s", client.output()).isEqualTo(0);
            }
            String busy = stat("stat", pid, "--json");
            assertThat(busy).contains("\"transport\":\"roce\"");
            assertThat(counter(busy, "device_rc_requests_executed")).isGreaterThanOrEqualTo(200);
            assertThat(counter(busy, "device_cm_mads_received")).isPositive();
            assertThat(counter(busy, "device_icrc_bad")).isZero();
            assertThat(stat("stat", pid)).containsPattern("device_rc_acks_sent\\s+[1-9]\\d*");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aProcessWithoutAdaptersIsReportedAndExitsZero() throws Exception {
        // a JVM that opens no adapter and stays up: a stat sampling every 30 s (killed at the end)
        try (JndkProcess idle = JndkProcess.start(List.of(), "stat", "--interval", "30", "--count", "2")) {
            assertThat(idle.nextLine(RUN)).as("first sample; output:%n%s", idle.output()).isNotNull();
            String out = stat("stat", Long.toString(idle.pid()));
            assertThat(out).contains("no jndk adapters in process " + idle.pid());
        }
    }
}
