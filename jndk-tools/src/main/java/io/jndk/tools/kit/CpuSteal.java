package io.jndk.tools.kit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The share of the machine's CPU time that its hypervisor gave to someone else (the {@code steal} column of
 * {@code /proc/stat}) over a window: a benchmark prints it beside its figure. On the small virtual machines jndk is
 * measured on, a 64 KiB stream that moved 2.7 GB/s in one second moved 1.3 GB/s in the next while a quarter of the
 * two vCPUs' time was stolen (docs/PERFORMANCE.md); a reader cannot tell such a round from a slow build otherwise.
 */
public final class CpuSteal {
    private CpuSteal() {}

    /** @return {steal, total} clock ticks of all CPUs so far, or null where {@code /proc/stat} does not say */
    public static long[] sample() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).getFirst();
            if (!line.startsWith("cpu ")) {
                return null;
            }
            String[] f = line.trim().split("\\s+");
            long total = 0;
            // user nice system idle iowait irq softirq steal (guest and guest_nice are already in user and nice)
            for (int i = 1; i <= 8 && i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            return f.length > 8 ? new long[] {Long.parseLong(f[8]), total} : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return the percentage of CPU time stolen between two {@link #sample}s; NaN if either is missing or empty */
    public static double percent(long[] from, long[] to) {
        if (from == null || to == null || to[1] <= from[1]) {
            return Double.NaN;
        }
        return 100.0 * (to[0] - from[0]) / (to[1] - from[1]);
    }

    /** @return {@code ,"steal_pct":P} for a JSON record, or nothing when {@code percent} is NaN */
    public static String jsonField(double percent) {
        return Double.isNaN(percent) ? "" : String.format(java.util.Locale.ROOT, ",\"steal_pct\":%.1f", percent);
    }
}
