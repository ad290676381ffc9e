package io.jndk.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sets jndk's figures beside the baselines measured in the same run and prints the ratios against the
 * performance targets. Input: JSON-lines files given as {@code tag=file}; records with a {@code name} (NioBaseline,
 * UdpBaseline, JndkLatency, Scale, iperf3/sockperf summaries) are looked up by name (with {@code .default} after it
 * from a tag ending in {@code -default}, {@code .roce} from one ending in {@code -roce}), records with an {@code op}
 * ({@code jndk perf --json}) by {@code tag/op/size}. Output: a table on stdout, a JSON summary and, with
 * {@code svg=file}, the bandwidth-versus-size chart of the {@code iwarp} run.
 */
public final class Report {
    private Report() {}

    /**
     * A comparison row; a NaN target marks a row shown for information. A row of paired rounds carries the median of
     * its rounds' ratios ({@code paired}), which is its ratio; otherwise the ratio is jndk's figure over the baseline's.
     */
    record Row(String what, double jndk, double baseline, String unit, boolean higherIsBetter, double target,
            double paired) {
        Row(String what, double jndk, double baseline, String unit, boolean higherIsBetter, double target) {
            this(what, jndk, baseline, unit, higherIsBetter, target, Double.NaN);
        }

        double ratio() {
            if (!Double.isNaN(paired)) {
                return paired;
            }
            return baseline == 0 ? Double.NaN : jndk / baseline;
        }

        String verdict() {
            if (Double.isNaN(target)) {
                return "";
            }
            return (higherIsBetter ? ratio() >= target : ratio() <= target) ? "met" : "NOT MET";
        }
    }

    private static final Pattern FIELD = Pattern.compile("\"([a-z0-9_]+)\":(\"[^\"]*\"|[-0-9.eE]+|true|false)");

    static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        Matcher x = FIELD.matcher(line);
        while (x.find()) {
            String v = x.group(2);
            m.put(x.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
        return m;
    }

    /** Every record read, by {@code name} or by {@code tag/op/size}. */
    private final Map<String, Map<String, String>> records = new TreeMap<>();
    private final List<Row> rows = new ArrayList<>();
    /** Every record of a name or {@code tag/op/size} in the order read (the rounds of paired rows). */
    private final Map<String, List<Map<String, String>>> samples = new TreeMap<>();
    /** The rounds of each paired row, printed after the table. */
    private final List<String> pairings = new ArrayList<>();

    /**
     * Entry point: {@code out.json [svg=chart.svg] tag=file.jsonl ...}; the tag names a {@code jndk perf} run
     * ({@code iwarp}, {@code iwarp-crc}, {@code loopback}); missing files are skipped (their rows are left out).
     */
    public static void main(String[] args) throws IOException {
        Report r = new Report();
        Path svg = null;
        for (int i = 1; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv[0].equals("svg")) {
                svg = Path.of(kv[1]);
            } else if (Files.exists(Path.of(kv[1]))) {
                r.read(kv[0], Path.of(kv[1]));
            }
        }
        r.compare();
        r.print();
        Files.writeString(Path.of(args[0]), r.json());
        if (svg != null) {
            Files.writeString(svg, Chart.bandwidthVersusSize(r.records));
        }
    }

    /**
     * Reads one file. A {@code jndk perf} record seen more than once (repeated runs into one file) keeps the run with
     * the median bandwidth, and gains {@code runs}, {@code min} and {@code max}, as the NIO baseline reports.
     */
    private void read(String tag, Path file) throws IOException {
        Map<String, List<Map<String, String>>> repeated = new TreeMap<>();
        for (String line : Files.readAllLines(file)) {
            Map<String, String> m = parse(line);
            if ("fairness".equals(m.get("name"))) { // one record per engine and mode and run
                String key = "fairness." + m.get("engine") + ("true".equals(m.get("poll")) ? ".poll" : "")
                        + ("0".equals(m.get("yield_us")) ? ".noyield" : "");
                records.put(key, m);
                samples.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
            } else if (m.containsKey("name")) {
                String suffix = tag.endsWith("-default") ? ".default" : tag.endsWith("-roce") ? ".roce"
                        : tag.endsWith("-spin") ? ".spin" : "";
                records.put(m.get("name") + suffix, m);
                samples.computeIfAbsent(m.get("name") + suffix, k -> new ArrayList<>()).add(m);
            } else if (m.containsKey("op")) {
                repeated.computeIfAbsent(tag + "/" + m.get("op") + "/" + m.get("size"), k -> new ArrayList<>()).add(m);
            }
        }
        for (Map.Entry<String, List<Map<String, String>>> e : repeated.entrySet()) {
            samples.put(e.getKey(), List.copyOf(e.getValue()));
            List<Map<String, String>> runs = e.getValue();
            runs.sort(java.util.Comparator.comparingDouble(m -> Double.parseDouble(m.getOrDefault("gbytes_per_s", "0"))));
            Map<String, String> median = new HashMap<>(runs.get(runs.size() / 2));
            median.put("runs", Integer.toString(runs.size()));
            median.put("min", runs.get(0).getOrDefault("gbytes_per_s", "0"));
            median.put("max", runs.get(runs.size() - 1).getOrDefault("gbytes_per_s", "0"));
            records.put(e.getKey(), median);
        }
    }

    private void compare() {
        // the targets of the shared-engine issue: bandwidth and CPU per GB from the same runs, whose consumer waits as
        // NIO's threads do (notified completions, the default mode) and asks for a completion on every 8th request
        // (--cq-mod 8, as perftest's bandwidth tests moderate theirs: NIO's writer is not woken per write either);
        // the polling mode (poll=true: perf's polls do the receive work) and every request completing follow as
        // information
        streamRows("", "iwarp-block", "notified, --cq-mod 8", 0.95, true);
        for (String op : List.of("write", "read", "send")) {
            addPaired("CPU s per GB, " + op + " 64 KiB, iwarp, notified, --cq-mod 8 vs NIO stream",
                    "iwarp-block/" + op + "/65536", "cpu_s_per_gb", "nio.pair.64k", "nio.stream.64k", "s/GB", -1.2);
        }
        streamRows("info: ", "iwarp-poll", "polling mode", Double.NaN, true);
        for (String op : List.of("write", "read", "send")) {
            addPaired("info: CPU s per GB, " + op + " 64 KiB, iwarp, polling mode vs NIO stream", "iwarp-poll/" + op
                    + "/65536", "cpu_s_per_gb", "nio.pair.64k", "nio.stream.64k", "s/GB", Double.NaN);
        }
        for (String op : List.of("write", "read", "send")) {
            add("info: CPU s per GB, " + op + " 64 KiB, iwarp, notified, every request completing vs NIO stream",
                    "iwarp-block-each/" + op + "/65536", "cpu_s_per_gb", "nio.stream.64k", "cpu_s_per_gb", "s/GB",
                    Double.NaN);
        }
        addPaired("RDMA Write 8 B RTT p50, polling vs NIO spinning", "jndk.write8.poll", "rtt_p50_us",
                "nio.pair.pingpong.spin", "nio.pingpong.spin", "us", -1.1);
        addPaired("RDMA Write 8 B RTT p50, notification vs NIO blocking", "jndk.write8.notify", "rtt_p50_us",
                "nio.pair.pingpong.block", "nio.pingpong.block", "us", -1.0);
        add("Loopback RDMA Write 1 MiB vs MemorySegment.copy", "loopback/write/1048576", "gbytes_per_s", "memcopy.1m",
                "gbytes_per_s", "GB/s", 0.7);
        if (records.containsKey("scale")) {
            String qps = String.format(Locale.ROOT, "%,d", (long) num("scale", "qps"));
            add(qps + " QPs aggregate Write 64 KiB vs one QP", "scale", "gbytes_per_s", "scale", "one_qp_gbytes_per_s",
                    "GB/s", 0.8);
            rows.add(new Row(qps + " QPs connection setup vs 10 s", num("scale", "setup_s"), 10, "s", false, 1.0));
            if (has("scale", "engine_threads") && has("scale", "cores")) {
                rows.add(new Row(qps + " QPs: engine threads vs 2 x cores + 4", num("scale", "engine_threads"),
                        2 * num("scale", "cores") + 4, "", false, 1.0));
            }
            rows.add(new Row(qps + " QPs at rest: heap + direct KiB per QP pair vs 64 KiB",
                    (num("scale", "heap_per_qp_bytes") + num("scale", "direct_per_qp_bytes")) / 1024, 64, "KiB", false,
                    1.0));
        }
        // fair service: the 8-byte Writes' p99 beside a 1 MiB Read storm against their p99 without it (Fairness)
        // (information: the shared engine with engine.yield.us=0, its loops never yielding after a long turn)
        for (String mode : List.of("shared", "shared.poll", "shared.noyield", "shared.poll.noyield", "threads",
                "threads.poll")) {
            boolean target = mode.equals("shared") || mode.equals("shared.poll");
            addRuns((target ? "" : "info: ") + "Fairness, " + mode.replace(".poll", "").replace(".noyield", "")
                    + " engine" + (mode.contains(".poll") ? ", polling" : "")
                    + (mode.endsWith(".noyield") ? ", engine.yield.us=0" : "") + ": 8 B Write p99, Read storm / none",
                    "fairness." + mode, "storm_p99_us", "quiet_p99_us", "us", target ? -5 : Double.NaN);
        }
        // roce (RoCEv2 over loopback UDP): against raw Java UDP of the same datagram size (UdpBaseline)
        for (String op : List.of("write", "read", "send")) {
            String name = op.equals("send") ? "Send" : "RDMA " + (op.equals("write") ? "Write" : "Read");
            addPaired("RoCE " + name + " 64 KiB, notified, --cq-mod 8 vs UDP stream of RoCE-MTU datagrams",
                    "roce/" + op + "/65536", "gbytes_per_s", "udp.pair.roce", "udp.stream.roce", "GB/s", 0.8);
        }
        addPaired("RoCE RDMA Write 8 B RTT p50, polling vs UDP spinning ping-pong", "jndk.write8.poll.roce",
                "rtt_p50_us", "udp.pair.roce", "udp.pingpong.spin", "us", -1.3);
        // the same ping-pong with an 8-byte datagram after each message: four datagrams a round trip, as RC's
        addPaired("info: RoCE RDMA Write 8 B RTT p50, polling vs UDP ping-pong of 4 datagrams (as RC's Writes and ACKs)",
                "jndk.write8.poll.roce", "rtt_p50_us", "udp.pair.roce", "rtt_acked_p50_us", "udp.pair.roce", "us",
                Double.NaN);
        add("info: RoCE RDMA Write 8 B RTT p99, polling vs UDP spinning ping-pong", "jndk.write8.poll.roce", "rtt_p99_us",
                "udp.pingpong.spin", "rtt_p99_us", "us", Double.NaN);
        add("info: UDP stream (RoCE-MTU datagrams) vs NIO TCP stream 64 KiB", "udp.stream.roce", "gbytes_per_s",
                "nio.stream.64k", "gbytes_per_s", "GB/s", Double.NaN);
        streamRows("info: ", "iwarp", "default mode", Double.NaN, false);
        add("info: RDMA Write 8 B RTT p50, waiter thread woken vs NIO blocking", "jndk.write8.block", "rtt_p50_us",
                "nio.pingpong.block", "rtt_p50_us", "us", Double.NaN);
        add("info: RDMA Write 8 B RTT p50, notification, engine.spin.us=20 vs NIO blocking (last round)",
                "jndk.write8.notify.spin", "rtt_p50_us", "nio.pair.pingpong.block", "rtt_p50_us", "us", Double.NaN);
        add("info: RDMA Write 8 B RTT p50, engine defaults vs NIO spinning", "jndk.write8.poll.default", "rtt_p50_us",
                "nio.pingpong.spin", "rtt_p50_us", "us", Double.NaN);
        add("info: RDMA Write 8 B RTT p50, notification, engine defaults vs NIO", "jndk.write8.notify.default",
                "rtt_p50_us", "nio.pingpong.block", "rtt_p50_us", "us", Double.NaN);
        add("info: RDMA Write 8 B RTT p50, blocking, engine defaults vs NIO", "jndk.write8.block.default", "rtt_p50_us",
                "nio.pingpong.block", "rtt_p50_us", "us", Double.NaN);
        add("info: RDMA Write 4 KiB, iwarp vs NIO stream of 4 KiB writes", "iwarp/write/4096",
                "gbytes_per_s", "nio.stream.4096", "gbytes_per_s", "GB/s", Double.NaN);
        add("info: RDMA Write 8 B post-to-completion p50 vs NIO spinning RTT", "iwarp/write/8", "lat_p50_us",
                "nio.pingpong.spin", "rtt_p50_us", "us", Double.NaN);
        add("info: NIO stream 64 KiB vs iperf3 (64 KiB writes)", "nio.stream.64k", "gbytes_per_s", "iperf3.64k", "gbytes_per_s",
                "GB/s", Double.NaN);
        add("info: NIO spinning RTT vs sockperf ping-pong RTT", "nio.pingpong.spin", "rtt_p50_us", "sockperf.pingpong",
                "rtt_p50_us", "us", Double.NaN);
    }

    /**
     * The four 64 KiB bandwidth rows of one way of running iwarp against the NIO stream: Write, Write with CRC (tag
     * {@code tag-crc}, against NIO with CRC32c), Send and Read; {@code paired}: runs made in rounds with NIO samples.
     */
    private void streamRows(String prefix, String tag, String mode, double target, boolean paired) {
        String[][] rows = {{"RDMA Write", tag + "/write", ""}, {"RDMA Write", tag + "-crc/write", ".crc"},
            {"Send", tag + "/send", ""}, {"RDMA Read", tag + "/read", ""}};
        for (String[] r : rows) {
            boolean crc = !r[2].isEmpty();
            String what = prefix + r[0] + " 64 KiB, iwarp, " + mode + (crc ? ", CRC vs NIO + CRC32c" : " vs NIO stream");
            String key = r[1] + "/65536";
            if (paired) {
                addPaired(what, key, "gbytes_per_s", "nio.pair.64k" + r[2], "nio.stream.64k" + r[2], "GB/s", target);
            } else {
                add(what, key, "gbytes_per_s", "nio.stream.64k" + r[2], "gbytes_per_s", "GB/s", target);
            }
        }
    }

    /**
     * Adds a row of paired rounds when {@code key} and {@code pairKey} have the same number of samples (bench/run.sh
     * measures a baseline sample just before each round of jndk's runs): its ratio is the median of the rounds'
     * ratios, so a machine that changes speed between rounds moves both sides of a ratio; the figures shown are the
     * medians of each side. Without such samples the row compares with {@code baseKey} as {@link #add} does.
     */
    private void addPaired(String what, String key, String field, String pairKey, String baseKey, String unit,
            double target) {
        addPaired(what, key, field, pairKey, field, baseKey, unit, target);
    }

    /** {@link #addPaired} against another field of the baseline's samples ({@code baseField}). */
    private void addPaired(String what, String key, String field, String pairKey, String baseField, String baseKey,
            String unit, double target) {
        List<Map<String, String>> jndk = samples.get(key), base = samples.get(pairKey);
        if (jndk == null || base == null || jndk.size() != base.size()
                || !jndk.stream().allMatch(m -> m.containsKey(field))
                || !base.stream().allMatch(m -> m.containsKey(baseField))) {
            add(what, key, field, baseKey, baseField, unit, target);
            return;
        }
        addMedianOfRatios(what, ", paired", "jndk/baseline by round", jndk, field, base, baseField, unit, target);
    }

    /**
     * Adds a row comparing two fields of each run of {@code key} (bench/run.sh runs Fairness three times for each
     * target mode): its ratio is the median of the runs' ratios, as a paired row's is of its rounds', and every run
     * is printed after the table. With one run the row is that run's ratio.
     */
    private void addRuns(String what, String key, String field, String baseField, String unit, double target) {
        List<Map<String, String>> runs = samples.get(key);
        if (runs == null || runs.size() < 2
                || !runs.stream().allMatch(m -> m.containsKey(field) && m.containsKey(baseField))) {
            add(what, key, field, key, baseField, unit, target);
            return;
        }
        addMedianOfRatios(what, ", median of " + runs.size() + " runs", "by run", runs, field, runs, baseField, unit,
                target);
    }

    /**
     * The row whose ratio is the median of the ratios {@code jndk[i].field / base[i].baseField} (the figures shown:
     * each side's median), and the line after the table that lists every one of them.
     */
    private void addMedianOfRatios(String what, String suffix, String listed, List<Map<String, String>> jndk,
            String field, List<Map<String, String>> base, String baseField, String unit, double target) {
        int n = jndk.size();
        double[] ratios = new double[n], j = new double[n], b = new double[n];
        StringBuilder each = new StringBuilder();
        for (int i = 0; i < n; i++) {
            j[i] = Double.parseDouble(jndk.get(i).get(field));
            b[i] = Double.parseDouble(base.get(i).get(baseField));
            ratios[i] = j[i] / b[i];
            each.append(String.format(Locale.ROOT, "%s%.3f/%.3f = %.2f", i == 0 ? "" : ", ", j[i], b[i], ratios[i]));
            String sj = jndk.get(i).get("steal_pct"), sb = base.get(i).get("steal_pct");
            if (sj != null && sb != null) {
                each.append(" (steal ").append(sj).append(" % / ").append(sb).append(" %)");
            }
        }
        rows.add(new Row(what + suffix, median(j), median(b), unit, !(target < 0), Math.abs(target), median(ratios)));
        pairings.add(what + " (" + unit + ", " + listed + "): " + each);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Adds a row when both figures exist; a negative target means lower is better (bound {@code -target}). */
    private void add(String what, String key, String field, String baseKey, String baseField, String unit, double target) {
        if (!has(key, field) || !has(baseKey, baseField)) {
            return;
        }
        rows.add(new Row(what, num(key, field), num(baseKey, baseField), unit, !(target < 0), Math.abs(target)));
    }

    private boolean has(String key, String field) {
        return records.containsKey(key) && records.get(key).containsKey(field);
    }

    private double num(String key, String field) {
        return Double.parseDouble(records.get(key).get(field));
    }

    private void print() {
        System.out.printf(Locale.ROOT, "%-82s %10s %10s %5s %7s %s%n", "figure", "jndk", "baseline", "unit", "ratio", "target");
        for (Row r : rows) {
            String target = Double.isNaN(r.target()) ? "" : (r.higherIsBetter() ? ">= " : "<= ") + r.target() + " " + r.verdict();
            System.out.printf(Locale.ROOT, "%-82s %10.3f %10.3f %5s %7.2f %s%n", r.what(), r.jndk(), r.baseline(), r.unit(),
                    r.ratio(), target);
        }
        for (String p : pairings) {
            System.out.println(p);
        }
        if (records.containsKey("nio.stream.64k")) {
            Map<String, String> n = records.get("nio.stream.64k");
            System.out.printf(Locale.ROOT, "NIO 64 KiB stream over %s connections: median %s, min %s, max %s GB/s%n",
                    n.get("runs"), n.get("gbytes_per_s"), n.get("min"), n.get("max"));
        }
        for (String key : List.of("iwarp/write/65536", "iwarp/send/65536", "iwarp/read/65536", "iwarp-crc/write/65536",
                "iwarp-poll/write/65536", "iwarp-poll/send/65536", "iwarp-poll/read/65536", "iwarp-poll-crc/write/65536",
                "iwarp-block/write/65536", "iwarp-block/read/65536", "iwarp-block/send/65536",
                "iwarp-block-crc/write/65536")) {
            if (records.containsKey(key) && records.get(key).containsKey("runs")) {
                Map<String, String> n = records.get(key);
                System.out.printf(Locale.ROOT, "jndk %s over %s runs: median %s, min %s, max %s GB/s%n", key, n.get("runs"),
                        n.get("gbytes_per_s"), n.get("min"), n.get("max"));
            }
        }
        if (records.containsKey("udp.stream.roce")) {
            Map<String, String> u = records.get("udp.stream.roce");
            System.out.printf(Locale.ROOT, "UDP stream of %s B datagrams (RoCE MTU %s: BTH 12 + RETH 16 + %s + ICRC 4) over %s"
                    + " runs: median %s, min %s, max %s GB/s of RoCE payload (%s GB/s of datagrams; sent %s GB/s, %.1f%%"
                    + " lost)%n", u.get("datagram_bytes"), u.get("mtu"), u.get("mtu"), u.get("runs"), u.get("gbytes_per_s"),
                    u.get("min"), u.get("max"), u.get("datagram_gbytes_per_s"), u.get("sent_gbytes_per_s"),
                    100 * num("udp.stream.roce", "loss"));
        }
        for (String key : List.of("roce/write/65536", "roce/read/65536", "roce/send/65536")) {
            if (records.containsKey(key) && records.get(key).containsKey("runs")) {
                Map<String, String> n = records.get(key);
                System.out.printf(Locale.ROOT, "jndk %s over %s runs: median %s, min %s, max %s GB/s%n", key, n.get("runs"),
                        n.get("gbytes_per_s"), n.get("min"), n.get("max"));
            }
        }
        // what the devices' counters say happened on the wire over the measured RoCE streams (perf's "wire")
        Map<String, Long> trouble = new java.util.LinkedHashMap<>();
        int measured = 0;
        for (String key : List.of("roce/write/65536", "roce/read/65536", "roce/send/65536")) {
            for (Map<String, String> m : samples.getOrDefault(key, List.of())) {
                measured++;
                for (String n : io.jndk.tools.kit.WireTrouble.NAMES) {
                    if (m.containsKey(n)) {
                        trouble.merge(n, Long.parseLong(m.get(n)), Long::sum);
                    }
                }
            }
        }
        if (!trouble.isEmpty()) {
            String t = io.jndk.tools.kit.WireTrouble.text(trouble);
            System.out.printf(Locale.ROOT, "RoCE streams' wire over their %d measured runs (device counters): %s%n", measured,
                    t.isEmpty() ? "nothing retransmitted, NAKed or dropped" : t);
        }
        if (records.containsKey("scale")) {
            Map<String, String> s = records.get("scale");
            System.out.printf(Locale.ROOT,
                    "%s QP pairs (both ends in this process): per pair %.1f KiB heap, %.1f KiB direct, %.1f KiB resident;"
                            + " %s file descriptors; %s platform threads%n",
                    s.get("qps"), num("scale", "heap_per_qp_bytes") / 1024, num("scale", "direct_per_qp_bytes") / 1024,
                    num("scale", "rss_per_qp_bytes") / 1024, s.get("fds"), s.get("platform_threads"));
        }
    }

    private String json() {
        StringBuilder json = new StringBuilder("{\"rows\":[");
        for (Row r : rows) {
            json.append(json.charAt(json.length() - 1) == '[' ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"figure\":\"%s\",\"jndk\":%.4f,\"baseline\":%.4f,\"unit\":\"%s\",\"ratio\":%.4f,\"target\":%s,\"met\":%s}",
                    r.what(), r.jndk(), r.baseline(), r.unit(), r.ratio(),
                    Double.isNaN(r.target()) ? "null" : String.format(Locale.ROOT, "%.2f", r.target()),
                    r.verdict().isEmpty() ? "null" : r.verdict().equals("met")));
        }
        json.append("],\"records\":{");
        boolean first = true;
        for (Map.Entry<String, Map<String, String>> e : records.entrySet()) {
            json.append(first ? "" : ",").append('"').append(e.getKey()).append("\":{");
            first = false;
            boolean f = true;
            for (Map.Entry<String, String> v : new TreeMap<>(e.getValue()).entrySet()) {
                boolean number = v.getValue().matches("-?[0-9.eE+-]+|true|false");
                json.append(f ? "" : ",").append('"').append(v.getKey()).append("\":")
                        .append(number ? v.getValue() : "\"" + v.getValue() + "\"");
                f = false;
            }
            json.append('}');
        }
        return json.append("}}\n").toString();
    }
}
