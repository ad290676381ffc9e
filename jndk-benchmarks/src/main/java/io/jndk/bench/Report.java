package io.jndk.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sets jndk's figures beside the baselines measured in the same run and prints the ratios against the
 * performance targets. Input: JSON-lines files (NioBaseline output, {@code jndk perf --json} output tagged by
 * file name); output: a table on stdout and a JSON summary file.
 */
public final class Report {
    private Report() {}

    /** A comparison row. */
    record Row(String what, double jndk, double baseline, String unit, boolean higherIsBetter, double target) {
        double ratio() {
            return baseline == 0 ? Double.NaN : jndk / baseline;
        }

        boolean met() {
            return higherIsBetter ? ratio() >= target : ratio() <= target;
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

    /**
     * Entry point: {@code baselines.jsonl out.json tag=perf.jsonl ...} where tag names the jndk run
     * (e.g. {@code iwarp}, {@code iwarp-crc}, {@code loopback}).
     */
    public static void main(String[] args) throws IOException {
        Map<String, Double> base = new HashMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            Map<String, String> m = parse(line);
            if (m.containsKey("name")) {
                String key = m.containsKey("gbytes_per_s") ? "gbytes_per_s" : "rtt_p50_us";
                base.put(m.get("name"), Double.parseDouble(m.get(key)));
            }
        }
        Map<String, Map<String, String>> jndk = new HashMap<>();
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            for (String line : Files.readAllLines(Path.of(kv[1]))) {
                Map<String, String> m = parse(line);
                if (m.containsKey("op")) {
                    jndk.put(kv[0] + "/" + m.get("op") + "/" + m.get("size"), m);
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        add(rows, jndk, base, "RDMA Write 64 KiB, iwarp", "iwarp/write/65536", "gbytes_per_s", "nio.stream.64k", 0.95, true);
        add(rows, jndk, base, "RDMA Write 64 KiB, iwarp, CRC", "iwarp-crc/write/65536", "gbytes_per_s", "nio.stream.64k.crc",
                0.90, true);
        add(rows, jndk, base, "Send 64 KiB, iwarp", "iwarp/send/65536", "gbytes_per_s", "nio.stream.64k", 0.90, true);
        add(rows, jndk, base, "RDMA Read 64 KiB, iwarp", "iwarp/read/65536", "gbytes_per_s", "nio.stream.64k", 0.85, true);
        add(rows, jndk, base, "RDMA Write 8 B latency p50 (polling) vs spinning ping-pong", "iwarp/write/8", "lat_p50_us",
                "nio.pingpong.spin", 1.2, false);
        add(rows, jndk, base, "Loopback RDMA Write 1 MiB vs MemorySegment.copy", "loopback/write/1048576", "gbytes_per_s",
                "memcopy.1m", 0.7, true);
        System.out.printf(Locale.ROOT, "%-62s %10s %10s %6s %7s %s%n", "figure", "jndk", "baseline", "unit", "ratio",
                "target");
        StringBuilder json = new StringBuilder("[");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "%-62s %10.3f %10.3f %6s %7.2f %s %s%n", r.what(), r.jndk(), r.baseline(), r.unit(),
                    r.ratio(), (r.higherIsBetter() ? ">= " : "<= ") + r.target(), r.met() ? "met" : "NOT MET");
            json.append(json.length() > 1 ? "," : "").append(String.format(Locale.ROOT,
                    "{\"figure\":\"%s\",\"jndk\":%.4f,\"baseline\":%.4f,\"unit\":\"%s\",\"ratio\":%.4f,\"target\":%.2f,\"met\":%b}",
                    r.what(), r.jndk(), r.baseline(), r.unit(), r.ratio(), r.target(), r.met()));
        }
        json.append("]\n");
        Files.writeString(Path.of(args[1]), json);
    }

    private static void add(List<Row> rows, Map<String, Map<String, String>> jndk, Map<String, Double> base, String what,
            String key, String field, String baseKey, double target, boolean higher) {
        Map<String, String> m = jndk.get(key);
        Double b = base.get(baseKey);
        if (m == null || b == null || !m.containsKey(field)) {
            return;
        }
        rows.add(new Row(what, Double.parseDouble(m.get(field)), b, field.startsWith("lat") ? "us" : "GB/s", higher, target));
    }
}
