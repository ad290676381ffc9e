package io.jndk.tools.perftest;

import io.jndk.tools.kit.Transports;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** What a perftest run prints besides the rows ({@link PerftestWire} has those), and the timing behind the rows. */
final class PerftestReport {
    private PerftestReport() {}

    /** perftest's parameter block (the latency tests' and the bandwidth tests' differ a little, as in perftest). */
    static void printHeader(PrintStream out, PerftestRun.Params p, boolean client, int ord, int tx, int rx) {
        if (client && !p.latency()) {
            out.println(PerftestWire.LINE);
        }
        out.println(PerftestWire.LINE);
        out.println("                    " + p.verb().title(p.latency(), p.duplex()));
        boolean roce = p.transport().equals("roce");
        out.println(" Dual-port       : OFF\t\tDevice         : " + Transports.device(p.transport()));
        out.println(" Number of qps   : " + p.qps() + "\t\tTransport type : " + (roce ? "IB" : "IW"));
        out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
        boolean sender = client || p.duplex();
        if (sender) {
            out.println(" TX depth        : " + tx);
        }
        if (p.verb() == Verb.SEND && (!client || p.duplex())) {
            out.println(" RX depth        : " + rx);
        }
        if (!p.latency()) {
            out.println(" CQ Moderation   : 1");
        }
        out.println(" Mtu             : " + PerftestWire.mtuBytes(PerftestWire.MTU_ENUM) + "[B]");
        out.println(" Link type       : Ethernet");
        out.println(" GID index       : 0");
        if (p.verb() == Verb.READ) {
            out.println(" Outstand reads  : " + ord);
        } else {
            out.println(" Max inline data : " + p.inline() + "[B]");
        }
        out.println(" rdma_cm QPs\t : " + (p.rdmaCm() ? "ON" : "OFF"));
        out.println(" Data ex. method : " + (p.rdmaCm() ? "rdma_cm" : "Ethernet")); // perftest's name for its TCP exchange
        if (!roce) {
            out.println(" MPA CRC         : " + (p.crc() ? "requested" : "as the peer asks"));
        }
        out.println(PerftestWire.LINE);
        if (!client && p.rdmaCm()) {
            out.println(" Waiting for client rdma_cm QP to connect");
            out.println(" Please run the same command with the IB/RoCE interface IP");
            out.println(PerftestWire.LINE);
        }
    }

    /** Both sides' addresses as perftest prints them: every local QP, then every remote one. */
    static void printAddresses(PrintStream out, List<Dest> mine, List<Dest> remote) {
        for (Dest d : mine) {
            out.printf(Locale.ROOT, " local address: LID %04x QPN %#06x PSN %#06x%n", d.lid(), d.qpn(), d.psn());
            out.println(" GID: " + d.gidText());
        }
        for (Dest d : remote) {
            out.printf(Locale.ROOT, " remote address: LID %04x QPN %#06x PSN %#06x%n", d.lid(), d.qpn(), d.psn());
            out.println(" GID: " + d.gidText());
        }
        out.println(PerftestWire.LINE);
    }

    /**
     * One latency row's figures in microseconds, as perftest 4.5's print_report_lat derives them from the post times
     * of n operations: the n - 1 gaps between consecutive posts (a round trip each; halved for Write and Send, whose
     * round trip carries the message both ways), sorted, the two largest left out of the average, median and
     * spread. t_min is the smallest gap, t_max the largest one kept (the second largest of all), t_typical the median,
     * t_avg the mean, t_stdev the standard deviation with each deviation truncated to whole microseconds before it is
     * squared (as perftest 4.5 computes it: below a microsecond of spread it reads 0.00), and the percentiles the gap
     * at ceil(kept * 0.99) and ceil(kept * 0.999).
     */
    record Latency(double min, double max, double typical, double average, double stdev, double p99, double p999) {
        /** The figures of the first {@code n} of {@code postedNs} (n at least 5), {@code rtt} 2 or 1. */
        static Latency of(long[] postedNs, int n, int rtt) {
            int m = n - 1;
            long[] delta = new long[m];
            for (int i = 0; i < m; i++) {
                delta[i] = postedNs[i + 1] - postedNs[i];
            }
            Arrays.sort(delta);
            m -= 2;
            double q = 1000.0 * rtt; // ns per microsecond, halved for a round trip
            double median = (m - 1) % 2 != 0 ? (delta[m / 2] + delta[m / 2 - 1]) / 2.0 : delta[m / 2];
            double sum = 0;
            for (int i = 0; i < m; i++) {
                sum += delta[i] / q;
            }
            double avg = sum / m;
            double squares = 0;
            for (int i = 0; i < m; i++) {
                long dev = (long) (avg - delta[i] / q); // truncated toward zero, as perftest's int
                squares += (double) dev * dev;
            }
            int i99 = (int) Math.ceil(m * 0.99);
            int i999 = (int) Math.ceil(m * 0.999);
            return new Latency(delta[0] / q, delta[m] / q, median / q, avg, Math.sqrt(squares / m), delta[i99] / q,
                    delta[i999] / q);
        }
    }

    /**
     * Post and completion times of one run, and the figures perftest derives from them: the average is the bytes of
     * every completed operation over the time from the first post to the last completion; the peak is perftest's,
     * the best rate over any run of consecutive operations i..j: (j - i + 1) operations' bytes over the time from the
     * post of i to the completion of j (every one of them was posted and completed inside that time, so the figure
     * is a rate the link really carried). As perftest, the peak is taken only up to {@link #PEAK_LIMIT} operations
     * and not at all in duration mode or where nothing is posted (a Send receiver): it then reads 0.00.
     */
    static final class Timing {
        /** perftest's "-N ... (default with peak up to iters=20000)". */
        static final int PEAK_LIMIT = 20_000;
        private final long[] posted;
        private final long[] completed;
        private long start;
        private long last;

        /** Times for {@code n} operations ({@code n} 0: a duration, no peak); {@code peak} false: none wanted. */
        Timing(int n, boolean peak) {
            boolean keep = peak && n > 0 && n <= PEAK_LIMIT;
            posted = keep ? new long[n] : null;
            completed = keep ? new long[n] : null;
        }

        void start() {
            start = System.nanoTime();
            last = start;
        }

        void posted(long i) {
            if (posted != null && i < posted.length) {
                posted[(int) i] = System.nanoTime();
            }
        }

        void completed(long i) {
            last = System.nanoTime();
            if (completed != null && i < completed.length) {
                completed[(int) i] = last;
            }
        }

        double elapsedSeconds() {
            return (System.nanoTime() - start) / 1e9;
        }

        Report report(long size, long n, boolean gbits) {
            double unit = gbits ? 125e6 : 1048576.0;
            double secs = Math.max(1e-9, (last - start) / 1e9);
            double avg = size * n / secs / unit;
            double rate = n / secs / 1e6;
            double peak = posted != null && n == posted.length ? peak(posted, completed, (int) n, size, unit) : 0;
            return new Report(size, n, peak, avg, rate);
        }

        /**
         * perftest's peak over the first {@code n} operations: {@code size} bytes times the most operations per
         * nanosecond over any run i..j (completed[j] - posted[i] for j - i + 1 of them), in {@code unit} bytes per
         * second; 0 when no run took a measurable time.
         */
        static double peak(long[] posted, long[] completed, int n, long size, double unit) {
            double best = Double.MAX_VALUE; // nanoseconds per operation
            for (int i = 0; i < n; i++) {
                for (int j = i; j < n; j++) {
                    long t = completed[j] - posted[i];
                    if (t > 0) {
                        best = Math.min(best, (double) t / (j - i + 1));
                    }
                }
            }
            return best == Double.MAX_VALUE ? 0 : size / (best / 1e9) / unit;
        }
    }
}
