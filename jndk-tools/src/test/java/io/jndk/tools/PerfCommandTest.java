package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.jndk.tools.perf.PerfPlot;
import io.jndk.tools.perf.PerfPlotTest;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code jndk perf} in one process, run as a separate JVM: its output formats, modes and chart. */
class PerfCommandTest {
    static final Duration RUN = Duration.ofSeconds(90);

    /** Runs {@code jndk perf args...}, expects exit status 0, returns the process (ended). */
    static JndkProcess perf(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("perf"));
        all.addAll(List.of(args));
        JndkProcess p = JndkProcess.start(List.of(), all.toArray(String[]::new));
        assertThat(p.await(RUN)).as("exit of perf %s; output:%n%s", all, p.output()).isEqualTo(0);
        return p;
    }

    static List<Map<String, Object>> jsonLines(String stdout) {
        return stdout.lines().map(MiniJson::parseObject).toList();
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void allSizesAsJsonAreOneValidRecordPerSizeAndOperation() throws Exception {
        try (JndkProcess p = perf("-a", "--json", "-n", "3")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            Set<String> seen = new HashSet<>();
            for (Map<String, Object> r : records) {
                assertThat(r).containsKeys("op", "size", "gbytes_per_s", "gbits_per_s", "mmsg_per_s", "lat_p50_us",
                        "lat_p99_us", "lat_p999_us", "lat_max_us", "iters", "mode");
                assertThat(r.get("verified")).as("%s", r).isEqualTo(true);
                assertThat(seen.add(r.get("size") + "/" + r.get("op"))).as("duplicate %s", r).isTrue();
            }
            Set<String> expected = new HashSet<>();
            for (long s = 2; s <= 8 << 20; s *= 2) {
                for (String op : List.of("write", "read", "send")) {
                    expected.add(s + "/" + op);
                }
            }
            assertThat(seen).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--poll", "--block"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void latencyModeVerifiesEveryOperationInBothWaitStyles(String wait) throws Exception {
        try (JndkProcess p = perf("--mode", "lat", wait, "-s", "1,4096,100000", "-n", "60", "--csv")) {
            List<String> lines = p.stdout().lines().toList();
            assertThat(lines.get(0)).startsWith("transport,mode,size,op,iters,qps,gbits_per_s");
            assertThat(lines).hasSize(1 + 9);
            for (String l : lines.subList(1, lines.size())) {
                String[] f = l.split(",");
                assertThat(f[1]).isEqualTo("lat");
                assertThat(f[4]).as(l).isEqualTo("60");
                assertThat(f[f.length - 1]).as(l).isEqualTo("true");
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void latencyModeOverIwarp() throws Exception {
        try (JndkProcess p = perf("--transport", "iwarp", "--mode", "lat", "-s", "8,65536", "-n", "100")) {
            String out = p.stdout();
            assertThat(out).contains("iwarp transport").contains("latency mode").contains("half the round trip");
            PerfTwoProcessTest.assertVerifiedRows(out, 6);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void severalQpsAddUpAndInlineStopsAtTheAdapterLimit() throws Exception {
        try (JndkProcess p = perf("--qps", "3", "--inline", "-s", "64,65536", "-n", "100", "--json")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            assertThat(records).hasSize(6);
            for (Map<String, Object> r : records) {
                assertThat(r.get("qps")).isEqualTo(3L);
                assertThat(r.get("iters")).as("%s", r).isEqualTo(300L);
                assertThat(r.get("verified")).as("%s", r).isEqualTo(true);
                boolean inline = r.get("size").equals(64L) && !r.get("op").equals("read");
                assertThat(r.get("inline")).as("%s", r).isEqualTo(inline);
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aDurationReplacesTheIterationCount() throws Exception {
        try (JndkProcess p = perf("-D", "0.3", "-s", "4096", "--op", "write,send", "--json")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            assertThat(records).hasSize(2);
            for (Map<String, Object> r : records) {
                assertThat((Long) r.get("iters")).as("%s", r).isPositive();
                assertThat(r.get("verified")).isEqualTo(true);
            }
        }
    }

    /**
     * Over roce each record carries the growth of the wire's trouble counters over its run ({@code "wire"}: the device
     * counters of retransmissions, timeouts, NAKs and drops; zero on loopback's UDP with nothing lost), over iwarp none
     * (its transport has no device counters).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void roceRecordsSayWhetherTheWireHadTrouble() throws Exception {
        // ack.timeout=17 (0.54 s): a loaded machine's pause is not this test's retry exhaustion
        try (JndkProcess p = perf("--transport", "roce", "--bind", "127.0.0.2", "-n", "200", "-s", "4096", "--op",
                "write,read", "--json", "-O", "ack.timeout=17")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            assertThat(records).hasSize(2);
            for (Map<String, Object> r : records) {
                @SuppressWarnings("unchecked")
                Map<String, Object> wire = (Map<String, Object>) r.get("wire");
                assertThat(wire).as("%s", r).containsKeys("rc_retransmitted_packets", "rc_rnr_naks_received", "icrc_bad",
                        "send_drops");
                assertThat(wire.values()).allSatisfy(v -> assertThat((Long) v).isNotNegative());
            }
        }
        try (JndkProcess p = perf("-n", "50", "-s", "4096", "--op", "write", "--json")) {
            assertThat(jsonLines(p.stdout())).singleElement().satisfies(r -> assertThat(r).doesNotContainKey("wire"));
        }
    }

    /**
     * {@code --cq-mod}: a stream asks for a completion on every Nth request only (the others silent on success). A count
     * that is no multiple of N ends on a signalled request (-n), and so does a stream stopped by its duration (-D);
     * either way every request is accounted for exactly once (a silent request that completed, or a signalled one
     * counted twice, shows in {@code iters} or hangs the stream) and the data verifies, whether perf polls or sleeps.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--poll", "--block"})
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void cqModerationSignalsEveryNthRequestAndEndsOnACompletion(String wait) throws Exception {
        try (JndkProcess p = perf("--transport", "iwarp", wait, "--cq-mod", "8", "-n", "1001", "-s", "4096,65536",
                "--op", "write,read,send", "--json")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            assertThat(records).hasSize(6);
            for (Map<String, Object> r : records) {
                assertThat(r.get("iters")).as("%s", r).isEqualTo(1001L);
                assertThat(r.get("verified")).as("%s", r).isEqualTo(true);
            }
        }
        try (JndkProcess p = perf("--transport", "iwarp", wait, "--cq-mod", "16", "-D", "0.3", "-s", "65536",
                "--op", "write,read,send", "--json")) {
            for (Map<String, Object> r : jsonLines(p.stdout())) {
                assertThat((Long) r.get("iters")).as("%s", r).isPositive();
                assertThat(r.get("verified")).as("%s", r).isEqualTo(true);
            }
        }
    }

    /** {@code --warmup} runs before each measured row; {@code -O} reaches both adapters (here: the polling engine). */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void providerOptionsAndAWarmUpBeforeEachRow() throws Exception {
        try (JndkProcess p = perf("--transport", "iwarp", "-O", "poll=true", "-O", "notify=inline", "--warmup", "0.2",
                "-D", "0.2", "-s", "65536", "--op", "write,read,send", "--json", "--block")) {
            List<Map<String, Object>> records = jsonLines(p.stdout());
            assertThat(records).hasSize(3);
            for (Map<String, Object> r : records) {
                assertThat((Long) r.get("iters")).as("%s", r).isPositive();
                assertThat(r.get("verified")).as("%s", r).isEqualTo(true);
            }
        }
        try (JndkProcess p = JndkProcess.start(List.of(), "perf", "--transport", "iwarp", "-O", "notify=sometimes",
                "-n", "10", "-s", "8")) {
            assertThat(p.await(RUN)).as("exit; output:%n%s", p.output()).isNotEqualTo(0);
            assertThat(p.output()).contains("notify=sometimes");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theTableHasUnitsAndNoProgressBarInAPipe() throws Exception {
        try (JndkProcess p = perf("-s", "8", "-n", "50", "--op", "write")) {
            assertThat(p.stdout()).contains("size [B]", "Gbit/s", "Mmsg/s", "p50 [us]", "p99 [us]", "p99.9 [us]", "max [us]")
                    .contains("All data verified");
            assertThat(p.output()).doesNotContain("\r").doesNotContain("[stderr]");
            PerfTwoProcessTest.assertVerifiedRows(p.stdout(), 1);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void plotsAnSvgWithBothChartsAndAPng(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("perf.svg"), png = dir.resolve("perf.png");
        try (JndkProcess p = perf("-s", "8,4096,65536", "-n", "50", "--op", "write,send", "--plot", svg.toString(), "--json")) {
            assertThat(jsonLines(p.stdout())).hasSize(6); // the chart's message went to stderr
            assertThat(PerfPlotTest.series(svg)).containsExactlyInAnyOrder("bandwidth/write/3", "bandwidth/send/3",
                    "latency/write/3", "latency/send/3");
        }
        try (JndkProcess p = perf("-s", "8,4096", "-n", "50", "--op", "read", "--plot", png.toString())) {
            assertThat(p.output()).contains("chart written to " + png);
            BufferedImage img = ImageIO.read(png.toFile());
            assertThat(img).isNotNull();
            assertThat(img.getWidth()).isEqualTo(PerfPlot.WIDTH);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--plot=out.txt", "--json --csv", "--mode=fast", "--qps=0", "-D=1", "--client=127.0.0.1 -D=1",
        "--cq-mod=0", "--cq-mod=17", "--depth=4 --cq-mod=5", "--client=127.0.0.1 --cq-mod=2"})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void badOptionsFailWithAMessageBeforeRunning(String args) throws Exception {
        List<String> all = new ArrayList<>(List.of("perf", "-s", "8", "-n", "5"));
        all.addAll(List.of(args.split(" ")));
        try (JndkProcess p = JndkProcess.start(List.of(), all.toArray(String[]::new))) {
            assertThat(p.await(Duration.ofSeconds(20))).as("exit; output:%n%s", p.output()).isEqualTo(2);
            assertThat(p.stdout()).isEmpty();
            assertThat(p.output()).contains("[stderr] jndk perf: ");
        }
    }

    /**
     * Ctrl-C (SIGINT) during a run: the rows finished so far stay, the chart is drawn from them, and one line says how
     * far the run got.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void anInterruptedRunKeepsAndChartsTheRowsItFinished(@TempDir Path dir) throws Exception {
        assumeFalse(sigintIgnored(), "SIGINT is ignored in this process (started in the background by a shell without "
                + "job control), so the child JVM inherits that and cannot hear Ctrl-C; run the suite in the foreground");
        Path svg = dir.resolve("partial.svg");
        try (JndkProcess p = JndkProcess.start(List.of(), "perf", "-s", "8,16,32,64,128,256,512,1024", "--op", "write", "-D",
                "1", "--json", "--plot", svg.toString())) {
            String first = p.nextLine(Duration.ofSeconds(60));
            assertThat(first).as("first row; output:%n%s", p.output()).startsWith("{\"transport\":\"loopback\"");
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
            assertThat(kill.waitFor()).isZero();
            assertThat(p.await(Duration.ofSeconds(30))).as("exit after SIGINT; output:%n%s", p.output()).isEqualTo(130);
            long rows = p.stdout().lines().count();
            assertThat(rows).isBetween(1L, 7L);
            assertThat(p.output()).contains("[stderr] jndk perf: interrupted after " + rows + " of 8 rows");
            assertThat(PerfPlotTest.series(svg)).containsExactlyInAnyOrder("bandwidth/write/" + rows, "latency/write/" + rows);
        }
    }

    /** @return whether this process ignores SIGINT (its children inherit that: a JVM then keeps SIGINT ignored) */
    static boolean sigintIgnored() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                return (mask & (1L << (2 - 1))) != 0; // SIGINT is signal 2: bit 1
            }
        }
        return false;
    }
}
