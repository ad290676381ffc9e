package io.jndk.tools.nd;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The ND tools' table: a header once, then one row per size, in NetworkDirect's layout (right-aligned columns), or
 * with {@code --json} one JSON object per size. CPU is this process's CPU time over wall time, as a share of all
 * processors (100 = every processor busy), as NetworkDirect's tools report it.
 */
final class NdReport {
    /** A column: its header, JSON key, width and decimals. */
    record Column(String header, String key, int width, int decimals) {}

    /** NetworkDirect's transfer table. */
    static final Column[] TRANSFER = {new Column("Size", "size", 9, 0), new Column("Iter", "iter", 9, 0),
            new Column("Latency", "latency_us", 9, 2), new Column("CPU", "cpu_pct", 7, 2),
            new Column("Bytes/Sec", "bytes_per_sec", 11, 0)};

    private final PrintStream out;
    private final boolean json;
    private final String tool;
    private final Column[] columns;

    NdReport(PrintStream out, boolean json, String tool, Column[] columns) {
        this.out = out;
        this.json = json;
        this.tool = tool;
        this.columns = columns;
    }

    /** Prints the header (not with --json). */
    void header(String note) {
        if (json) {
            return;
        }
        out.println("Using " + Runtime.getRuntime().availableProcessors() + " processors. " + note);
        out.println();
        StringBuilder b = new StringBuilder();
        for (Column c : columns) {
            b.append(' ').append(String.format(Locale.ROOT, "%" + c.width + "s", c.header));
        }
        out.println(b);
        out.flush();
    }

    /** Prints one row; {@code values} follow the columns. */
    void row(double... values) {
        StringBuilder b = new StringBuilder();
        if (json) {
            b.append("{\"tool\":\"").append(tool).append('"');
            for (int i = 0; i < columns.length; i++) {
                b.append(",\"").append(columns[i].key).append("\":").append(number(values[i], columns[i].decimals));
            }
            b.append('}');
        } else {
            for (int i = 0; i < columns.length; i++) {
                b.append(' ').append(String.format(Locale.ROOT, "%" + columns[i].width + "s", number(values[i], columns[i].decimals)));
            }
        }
        out.println(b);
        out.flush();
    }

    private static String number(double v, int decimals) {
        return decimals == 0 ? Long.toString(Math.round(v)) : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /**
     * Wall time and CPU time from {@link #start()}: the process's (transfers, whose transport runs on other threads), or
     * with {@code thread} the calling thread's (registration, which runs on it; the process figure is too coarse for
     * the short intervals of small sizes).
     */
    static final class Meter {
        private static final com.sun.management.OperatingSystemMXBean OS =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        private final boolean thread;
        private long wall0;
        private long cpu0;
        private long wall;
        private long cpu;

        Meter(boolean thread) {
            this.thread = thread;
        }

        private long cpuNow() {
            return thread ? ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() : OS.getProcessCpuTime();
        }

        void start() {
            cpu0 = cpuNow();
            wall0 = System.nanoTime();
        }

        void stop() {
            wall = System.nanoTime() - wall0;
            cpu = cpuNow() - cpu0;
        }

        /** Microseconds between start and stop. */
        double micros() {
            return wall / 1e3;
        }

        /** Seconds between start and stop. */
        double seconds() {
            return wall / 1e9;
        }

        /** CPU time over wall time, as a share of all processors. */
        double cpuPercent() {
            return wall <= 0 ? 0 : Math.min(100.0, 100.0 * cpu / wall / Runtime.getRuntime().availableProcessors());
        }
    }
}
