package io.jndk.tools.perf;

import io.jndk.tools.kit.CpuSteal;
import io.jndk.tools.kit.Json;
import io.jndk.tools.kit.WireTrouble;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * How {@code jndk perf} prints its rows: an aligned table (the default), one JSON record per line, or CSV. Every
 * format carries the same figures; only the table has a header of prose above it (written by the caller).
 */
enum PerfFormat {
    TABLE, JSON, CSV;

    /** One measured size and operation, summed over every QP of the run. */
    record Row(int size, String op, String mode, long iters, int qps, double gbitsPerSec, double mmsgPerSec,
            double p50us, double p99us, double p999us, double maxus, boolean inline, boolean verified,
            double cpuSecPerGb, double stealPercent, Map<String, Long> wire) {
        double gbytesPerSec() {
            return gbitsPerSec / 8;
        }

        /** This row with the process's CPU time (user + system) over the run, per GB moved. */
        Row withCpu(double cpuSeconds) {
            double gb = (double) size * iters / 1e9;
            return new Row(size, op, mode, iters, qps, gbitsPerSec, mmsgPerSec, p50us, p99us, p999us, maxus, inline,
                    verified, gb > 0 ? cpuSeconds / gb : Double.NaN, stealPercent, wire);
        }

        /** This row with the share of the machine's CPU time its hypervisor stole over the run ({@link CpuSteal}). */
        Row withSteal(double percent) {
            return new Row(size, op, mode, iters, qps, gbitsPerSec, mmsgPerSec, p50us, p99us, p999us, maxus, inline,
                    verified, cpuSecPerGb, percent, wire);
        }

        /** This row with the growth of the wire's trouble counters over the run ({@link WireTrouble}). */
        Row withWire(Map<String, Long> growth) {
            return new Row(size, op, mode, iters, qps, gbitsPerSec, mmsgPerSec, p50us, p99us, p999us, maxus, inline,
                    verified, cpuSecPerGb, stealPercent, growth.isEmpty() ? Map.of()
                            : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(growth)));
        }
    }

    /**
     * One QP's share of a row: its operations, the time they took, their latencies (10 ns units), verification, and
     * the process's CPU time (user + system, seconds) read when those operations began and ended ({@code NaN} when
     * the operations counted are all the run did).
     */
    record Part(long ops, long elapsedNs, Histogram latency, boolean verified, double cpuFrom, double cpuTo) {
        Part(long ops, long elapsedNs, Histogram latency, boolean verified) {
            this(ops, elapsedNs, latency, verified, Double.NaN, Double.NaN);
        }
    }

    /**
     * The process's CPU seconds over the parts' counted operations: from the earliest start to the latest end of
     * their windows; {@code wholeRun} when a part has no window.
     */
    static double cpuOver(List<Part> parts, double wholeRun) {
        double from = Double.POSITIVE_INFINITY, to = Double.NEGATIVE_INFINITY;
        for (Part p : parts) {
            if (Double.isNaN(p.cpuFrom()) || Double.isNaN(p.cpuTo())) {
                return wholeRun;
            }
            from = Math.min(from, p.cpuFrom());
            to = Math.max(to, p.cpuTo());
        }
        return parts.isEmpty() ? wholeRun : to - from;
    }

    private static final String TABLE_HEADER = "%10s  %-5s  %9s  %8s  %8s  %10s  %10s  %10s  %10s  %s%n";
    private static final String TABLE_ROW = "%10d  %-5s  %9d  %8.2f  %8.3f  %10.2f  %10.2f  %10.2f  %10.2f  %s%n";
    private static final String CSV_HEADER = "transport,mode,size,op,iters,qps,gbits_per_s,gbytes_per_s,mmsg_per_s,"
            + "lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,inline,verified";

    /** The column header: table units or the CSV field names; nothing for JSON. */
    void header(PrintStream out) {
        switch (this) {
            case TABLE -> out.printf(Locale.ROOT, TABLE_HEADER, "size [B]", "op", "iters", "Gbit/s", "Mmsg/s", "p50 [us]",
                    "p99 [us]", "p99.9 [us]", "max [us]", "data");
            case CSV -> out.println(CSV_HEADER);
            case JSON -> { }
        }
        out.flush();
    }

    /** One row in this format. */
    void row(PrintStream out, Row r, String transport) {
        switch (this) {
            case TABLE -> out.printf(Locale.ROOT, TABLE_ROW, r.size(), r.op(), r.iters(), r.gbitsPerSec(), r.mmsgPerSec(),
                    r.p50us(), r.p99us(), r.p999us(), r.maxus(), (r.verified() ? "verified" : "FAILED")
                            + (r.inline() ? ", inline" : "") + wireNote(r));
            case JSON -> out.printf(Locale.ROOT, "{\"transport\":%s,\"mode\":\"%s\",\"size\":%d,\"op\":\"%s\",\"iters\":%d,"
                            + "\"qps\":%d,\"gbytes_per_s\":%.4f,\"gbits_per_s\":%.4f,\"mmsg_per_s\":%.4f,\"lat_p50_us\":%.2f,"
                            + "\"lat_p99_us\":%.2f,\"lat_p999_us\":%.2f,\"lat_max_us\":%.2f,\"inline\":%b,\"verified\":%b%s}%n",
                    Json.str(transport), r.mode(), r.size(), r.op(), r.iters(), r.qps(), r.gbytesPerSec(), r.gbitsPerSec(),
                    r.mmsgPerSec(), r.p50us(), r.p99us(), r.p999us(), r.maxus(), r.inline(), r.verified(),
                    (Double.isNaN(r.cpuSecPerGb()) ? "" : String.format(Locale.ROOT, ",\"cpu_s_per_gb\":%.4f", r.cpuSecPerGb()))
                            + CpuSteal.jsonField(r.stealPercent()) + WireTrouble.jsonField(r.wire()));
            case CSV -> out.printf(Locale.ROOT, "%s,%s,%d,%s,%d,%d,%.4f,%.4f,%.4f,%.2f,%.2f,%.2f,%.2f,%b,%b%n", transport,
                    r.mode(), r.size(), r.op(), r.iters(), r.qps(), r.gbitsPerSec(), r.gbytesPerSec(), r.mmsgPerSec(),
                    r.p50us(), r.p99us(), r.p999us(), r.maxus(), r.inline(), r.verified());
        }
        out.flush();
    }

    /** The table's note on the wire's trouble over the row ({@link WireTrouble}), or nothing when it had none. */
    private static String wireNote(Row r) {
        String t = WireTrouble.text(r.wire());
        return t.isEmpty() ? "" : "; wire: " + t;
    }

    /** A row from every QP's part: operations summed over the longest part's time, latencies merged. */
    static Row sum(int size, String op, String mode, List<Part> parts, boolean inline) {
        Histogram h = new Histogram(3_600_000_000L, 3);
        long n = 0, elapsed = 1;
        boolean verified = !parts.isEmpty();
        for (Part p : parts) {
            h.add(p.latency());
            n += p.ops();
            elapsed = Math.max(elapsed, p.elapsedNs());
            verified &= p.verified();
        }
        double secs = elapsed / 1e9;
        boolean any = h.getTotalCount() > 0;
        return new Row(size, op, mode, n, parts.size(), (double) size * n * 8 / secs / 1e9, n / secs / 1e6,
                any ? h.getValueAtPercentile(50) / 100.0 : 0, any ? h.getValueAtPercentile(99) / 100.0 : 0,
                any ? h.getValueAtPercentile(99.9) / 100.0 : 0, h.getMaxValue() / 100.0, inline, verified, Double.NaN,
                Double.NaN, Map.of());
    }
}
