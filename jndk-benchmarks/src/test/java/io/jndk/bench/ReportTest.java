package io.jndk.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's paired rows: bench/run.sh measures a baseline sample just before each round of jndk's runs, and a
 * paired row's ratio is the median of the rounds' ratios, not the ratio of the two medians.
 */
class ReportTest {
    /** Three rounds in which the machine's speed changes: jndk 4, 6, 5 GB/s beside NIO 4, 6.5, 4.5. */
    private static final String NIO = """
            {"name":"nio.stream.64k","gbytes_per_s":6.0000,"cpu_s_per_gb":0.2400}
            {"name":"nio.pingpong.spin","rtt_p50_us":7.0000,"rtt_p99_us":9.0000}
            """;
    private static final String PAIRS = """
            {"name":"nio.pair.64k","gbytes_per_s":4.0000,"cpu_s_per_gb":0.3000}
            {"name":"nio.pair.64k.crc","gbytes_per_s":3.0000,"cpu_s_per_gb":0.3000}
            {"name":"nio.pair.64k","gbytes_per_s":6.5000,"cpu_s_per_gb":0.2300}
            {"name":"nio.pair.64k.crc","gbytes_per_s":3.0000,"cpu_s_per_gb":0.3000}
            {"name":"nio.pair.64k","gbytes_per_s":4.5000,"cpu_s_per_gb":0.3500}
            {"name":"nio.pair.64k.crc","gbytes_per_s":3.0000,"cpu_s_per_gb":0.3000}
            """;
    private static final String BLOCK = """
            {"op":"write","size":65536,"gbytes_per_s":4.0000,"cpu_s_per_gb":0.3}
            {"op":"write","size":65536,"gbytes_per_s":6.0000,"cpu_s_per_gb":0.3}
            {"op":"write","size":65536,"gbytes_per_s":5.0000,"cpu_s_per_gb":0.3}
            """;

    @Test
    void aPairedRowTakesTheMedianOfItsRoundsRatios(@TempDir Path dir) throws Exception {
        String out = report(dir, "base", NIO, "nio-pairs", PAIRS, "iwarp-block", BLOCK);
        // rounds 4/4 = 1.00, 6/6.5 = 0.92, 5/4.5 = 1.11: the median is 1.00 (the medians' ratio 5/4.5 would say 1.11)
        Map<String, Object> row = row(dir, "RDMA Write 64 KiB, iwarp, notified, --cq-mod 8 vs NIO stream, paired");
        assertThat((Double) row.get("ratio")).isCloseTo(1.0, within(1e-4));
        assertThat((Double) row.get("jndk")).isCloseTo(5.0, within(1e-4));
        assertThat((Double) row.get("baseline")).isCloseTo(4.5, within(1e-4));
        assertThat(row.get("met")).isEqualTo(true);
        assertThat(out).contains("RDMA Write 64 KiB, iwarp, notified, --cq-mod 8 vs NIO stream (GB/s, jndk/baseline by round): "
                + "4.000/4.000 = 1.00, 6.000/6.500 = 0.92, 5.000/4.500 = 1.11");
    }

    /** A round whose runs say how much CPU time the hypervisor stole shows it beside the round's figures. */
    @Test
    void aRoundShowsTheStolenCpuTimeOfBothRuns(@TempDir Path dir) throws Exception {
        String pairs = PAIRS.replace("}\n", ",\"steal_pct\":2.5}\n");
        String block = BLOCK.replaceFirst("\"cpu_s_per_gb\":0.3}", "\"cpu_s_per_gb\":0.3,\"steal_pct\":24.0}")
                .replace("\"cpu_s_per_gb\":0.3}", "\"cpu_s_per_gb\":0.3,\"steal_pct\":1.0}");
        String out = report(dir, "base", NIO, "nio-pairs", pairs, "iwarp-block", block);
        assertThat(out).contains("RDMA Write 64 KiB, iwarp, notified, --cq-mod 8 vs NIO stream (GB/s, jndk/baseline by round): "
                + "4.000/4.000 = 1.00 (steal 24.0 % / 2.5 %), 6.000/6.500 = 0.92 (steal 1.0 % / 2.5 %), "
                + "5.000/4.500 = 1.11 (steal 1.0 % / 2.5 %)");
    }

    @Test
    void withoutOneSamplePerRoundTheRowComparesWithTheBaselineRun(@TempDir Path dir) throws Exception {
        String twoRounds = PAIRS.lines().limit(4).reduce("", (a, l) -> a + l + "\n");
        report(dir, "base", NIO, "nio-pairs", twoRounds, "iwarp-block", BLOCK);
        // three jndk runs against two samples: no pairing; the median run (5) against the baseline run's 6
        Map<String, Object> row = row(dir, "RDMA Write 64 KiB, iwarp, notified, --cq-mod 8 vs NIO stream");
        assertThat((Double) row.get("ratio")).isCloseTo(5.0 / 6.0, within(1e-4));
        assertThat(row.get("met")).isEqualTo(false);
    }

    @Test
    void theNotificationRoundTripIsPairedWithTheBlockingPingPongOfItsRound(@TempDir Path dir) throws Exception {
        String base = NIO + "{\"name\":\"nio.pingpong.block\",\"rtt_p50_us\":50.0000,\"rtt_p99_us\":90.0000}\n";
        String pingPongs = """
                {"name":"nio.pair.pingpong.spin","rtt_p50_us":8.0000,"rtt_p99_us":10.0000}
                {"name":"nio.pair.pingpong.block","rtt_p50_us":80.0000,"rtt_p99_us":120.0000}
                {"name":"nio.pair.pingpong.spin","rtt_p50_us":8.0000,"rtt_p99_us":10.0000}
                {"name":"nio.pair.pingpong.block","rtt_p50_us":50.0000,"rtt_p99_us":90.0000}
                {"name":"nio.pair.pingpong.spin","rtt_p50_us":8.0000,"rtt_p99_us":10.0000}
                {"name":"nio.pair.pingpong.block","rtt_p50_us":70.0000,"rtt_p99_us":100.0000}
                """;
        String latency = """
                {"name":"jndk.write8.notify","transport":"iwarp","rtt_p50_us":60.0000,"rtt_p99_us":90.0000}
                {"name":"jndk.write8.notify","transport":"iwarp","rtt_p50_us":45.0000,"rtt_p99_us":90.0000}
                {"name":"jndk.write8.notify","transport":"iwarp","rtt_p50_us":63.0000,"rtt_p99_us":90.0000}
                """;
        String spin = "{\"name\":\"jndk.write8.notify\",\"transport\":\"iwarp\",\"rtt_p50_us\":35.0000,"
                + "\"rtt_p99_us\":50.0000}\n";
        report(dir, "base", base, "nio-pingpong-pairs", pingPongs, "latency", latency, "latency-spin", spin);
        // the run with engine.spin.us is information beside the last round's NIO blocking ping-pong, and does not
        // enter the target row
        Map<String, Object> info = row(dir,
                "info: RDMA Write 8 B RTT p50, notification, engine.spin.us=20 vs NIO blocking (last round)");
        assertThat((Double) info.get("ratio")).isCloseTo(0.5, within(1e-4));
        // rounds 60/80 = 0.75, 45/50 = 0.90, 63/70 = 0.90: the median is 0.90, met (the last run alone, 63 against the
        // unpaired 50, would say 1.26)
        Map<String, Object> row = row(dir, "RDMA Write 8 B RTT p50, notification vs NIO blocking, paired");
        assertThat((Double) row.get("ratio")).isCloseTo(0.9, within(1e-4));
        assertThat(row.get("met")).isEqualTo(true);
    }

    @Test
    void theRoceRoundTripIsAlsoSetBesideTheFourDatagramUdpPingPongOfItsRound(@TempDir Path dir) throws Exception {
        String udp = """
                {"name":"udp.pair.roce","mtu":4096,"gbytes_per_s":1.0,"rtt_p50_us":10.0,"rtt_acked_p50_us":14.0}
                {"name":"udp.pair.roce","mtu":4096,"gbytes_per_s":1.0,"rtt_p50_us":8.0,"rtt_acked_p50_us":10.0}
                {"name":"udp.pair.roce","mtu":4096,"gbytes_per_s":1.0,"rtt_p50_us":12.0,"rtt_acked_p50_us":16.0}
                """;
        String roce = """
                {"name":"jndk.write8.poll","transport":"roce","rtt_p50_us":14.0,"rtt_p99_us":40.0}
                {"name":"jndk.write8.poll","transport":"roce","rtt_p50_us":12.0,"rtt_p99_us":40.0}
                {"name":"jndk.write8.poll","transport":"roce","rtt_p50_us":18.0,"rtt_p99_us":40.0}
                """;
        report(dir, "udp-pairs", udp, "latency-roce", roce);
        // against the two-datagram ping-pong: 1.40, 1.50, 1.50 (median 1.50, not met); against the four-datagram one,
        // information: 1.00, 1.20, 1.125 (median 1.125)
        Map<String, Object> target = row(dir, "RoCE RDMA Write 8 B RTT p50, polling vs UDP spinning ping-pong, paired");
        assertThat((Double) target.get("ratio")).isCloseTo(1.5, within(1e-4));
        assertThat(target.get("met")).isEqualTo(false);
        Map<String, Object> floor = row(dir, "info: RoCE RDMA Write 8 B RTT p50, polling vs UDP ping-pong of 4 datagrams "
                + "(as RC's Writes and ACKs), paired");
        assertThat((Double) floor.get("ratio")).isCloseTo(1.125, within(1e-4));
    }

    /** The RoCE streams' records carry their wire's trouble counters; the report sums them over every measured run. */
    @Test
    void theRoceStreamsWireTroubleIsSummedOverTheirRuns(@TempDir Path dir) throws Exception {
        String w0 = ",\"wire\":{\"rc_retransmitted_packets\":0,\"rc_timeouts\":0,\"icrc_bad\":0}";
        String w1 = ",\"wire\":{\"rc_retransmitted_packets\":7,\"rc_timeouts\":1,\"icrc_bad\":0}";
        String roce = "{\"op\":\"write\",\"size\":65536,\"gbytes_per_s\":0.5" + w0 + "}\n"
                + "{\"op\":\"write\",\"size\":65536,\"gbytes_per_s\":0.6" + w1 + "}\n"
                + "{\"op\":\"send\",\"size\":65536,\"gbytes_per_s\":0.4" + w1 + "}\n";
        assertThat(report(dir, "roce", roce)).contains(
                "RoCE streams' wire over their 3 measured runs (device counters): 14 rc_retransmitted_packets, 2 rc_timeouts\n");
        String clean = roce.replace(w1, w0);
        assertThat(report(dir, "roce", clean)).contains(
                "RoCE streams' wire over their 3 measured runs (device counters): nothing retransmitted, NAKed or dropped\n");
        assertThat(report(dir, "roce", clean.replace(w0, ""))).as("records without the counters")
                .doesNotContain("RoCE streams' wire");
    }

    @Test
    void fairnessTakesTheMedianOfItsRunsRatios(@TempDir Path dir) throws Exception {
        String runs = """
                {"name":"fairness","engine":"shared","poll":false,"quiet_p99_us":50.00,"storm_p99_us":400.00}
                {"name":"fairness","engine":"shared","poll":true,"quiet_p99_us":40.00,"storm_p99_us":100.00}
                {"name":"fairness","engine":"shared","poll":false,"quiet_p99_us":60.00,"storm_p99_us":90.00}
                {"name":"fairness","engine":"shared","poll":true,"quiet_p99_us":50.00,"storm_p99_us":300.00}
                {"name":"fairness","engine":"shared","poll":false,"quiet_p99_us":40.00,"storm_p99_us":80.00}
                {"name":"fairness","engine":"shared","poll":true,"quiet_p99_us":50.00,"storm_p99_us":350.00}
                {"name":"fairness","engine":"threads","poll":false,"quiet_p99_us":100.00,"storm_p99_us":300.00}
                {"name":"fairness","engine":"shared","poll":false,"yield_us":"0","quiet_p99_us":50.00,"storm_p99_us":500.00}
                """;
        String out = report(dir, "fairness", runs);
        // default mode: 8.0, 1.5, 2.0, median 2.0 (the first run alone would say 8.0); polling: 2.5, 6.0, 7.0, median 6.0
        Map<String, Object> shared = row(dir, "Fairness, shared engine: 8 B Write p99, Read storm / none, median of 3 runs");
        assertThat((Double) shared.get("ratio")).isCloseTo(2.0, within(1e-4));
        assertThat(shared.get("met")).isEqualTo(true);
        Map<String, Object> poll = row(dir,
                "Fairness, shared engine, polling: 8 B Write p99, Read storm / none, median of 3 runs");
        assertThat((Double) poll.get("ratio")).isCloseTo(6.0, within(1e-4));
        assertThat(poll.get("met")).isEqualTo(false);
        assertThat((Double) row(dir, "info: Fairness, threads engine: 8 B Write p99, Read storm / none").get("ratio"))
                .isCloseTo(3.0, within(1e-4));
        // a run with engine.yield.us=0 is information of its own, never one of the target row's runs
        Map<String, Object> noYield = row(dir,
                "info: Fairness, shared engine, engine.yield.us=0: 8 B Write p99, Read storm / none");
        assertThat((Double) noYield.get("ratio")).isCloseTo(10.0, within(1e-4));
        assertThat(out).contains("Fairness, shared engine: 8 B Write p99, Read storm / none (us, by run): "
                + "400.000/50.000 = 8.00, 90.000/60.000 = 1.50, 80.000/40.000 = 2.00");
    }

    /** Writes each {@code tag, content} pair to a file, runs the report, returns what it printed. */
    private static String report(Path dir, String... tagsAndContents) throws Exception {
        String[] args = new String[1 + tagsAndContents.length / 2];
        args[0] = dir.resolve("summary.json").toString();
        for (int i = 0; i < tagsAndContents.length; i += 2) {
            Path f = dir.resolve(tagsAndContents[i] + ".jsonl");
            Files.writeString(f, tagsAndContents[i + 1]);
            args[1 + i / 2] = tagsAndContents[i] + "=" + f;
        }
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            Report.main(args);
        } finally {
            System.setOut(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    /** The summary's row called {@code figure}, its fields parsed. */
    private static Map<String, Object> row(Path dir, String figure) throws Exception {
        String json = Files.readString(dir.resolve("summary.json"));
        List<String> rows = List.of(json.substring(json.indexOf("[") + 1, json.indexOf("]")).split("\\},\\{"));
        for (String r : rows) {
            Map<String, String> m = Report.parse(r);
            if (figure.equals(m.get("figure"))) {
                return Map.of("ratio", Double.parseDouble(m.get("ratio")), "jndk", Double.parseDouble(m.get("jndk")),
                        "baseline", Double.parseDouble(m.get("baseline")), "met", Boolean.parseBoolean(m.get("met")));
            }
        }
        throw new AssertionError("no row " + figure + " in " + json);
    }
}
