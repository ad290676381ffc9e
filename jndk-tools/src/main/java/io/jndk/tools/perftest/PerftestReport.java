package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.util.Locale;

/** What a perftest run prints besides the rows ({@link PerftestWire} has those), and the timing behind the rows. */
final class PerftestReport {
    private PerftestReport() {}

    /** perftest's parameter block. */
    static void printHeader(PrintStream out, PerftestRun.Params p, boolean client, int ord, int tx, int rx) {
        if (client) {
            out.println(PerftestWire.LINE);
        }
        out.println(PerftestWire.LINE);
        out.println("                    " + p.verb().title);
        out.println(" Dual-port       : OFF\t\tDevice         : jndk0");
        out.println(" Number of qps   : 1\t\tTransport type : IW");
        out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
        if (client) {
            out.println(" TX depth        : " + tx);
        } else if (p.verb() == Verb.SEND) {
            out.println(" RX depth        : " + rx);
        }
        out.println(" CQ Moderation   : 1");
        out.println(" Mtu             : " + PerftestWire.mtuBytes(PerftestWire.MTU_ENUM) + "[B]");
        out.println(" Link type       : Ethernet");
        out.println(" GID index       : 0");
        if (p.verb() == Verb.READ) {
            out.println(" Outstand reads  : " + ord);
        } else {
            out.println(" Max inline data : 0[B]");
        }
        out.println(" rdma_cm QPs\t : ON");
        out.println(" Data ex. method : rdma_cm");
        out.println(" MPA CRC         : " + (p.crc() ? "requested" : "as the peer asks"));
        out.println(PerftestWire.LINE);
    }

    /** Both sides' addresses as perftest prints them. */
    static void printAddresses(PrintStream out, Dest mine, Dest remote) {
        out.printf(Locale.ROOT, " local address: LID %04x QPN 0x%04x PSN 0x%06x%n", mine.lid(), mine.qpn(), mine.psn());
        out.println(" GID: " + mine.gidText());
        out.printf(Locale.ROOT, " remote address: LID %04x QPN 0x%04x PSN 0x%06x%n", remote.lid(), remote.qpn(), remote.psn());
        out.println(" GID: " + remote.gidText());
        out.println(PerftestWire.LINE);
    }

    /** Completion times of one run; the peak is the best rate over any {@code depth} consecutive completions. */
    static final class Timing {
        private final long[] completed;
        private long start;
        private long last;

        Timing(int n) {
            completed = n > 0 ? new long[n] : null;
        }

        void start() {
            start = System.nanoTime();
            last = start;
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

        Report report(long size, long n, int depth, boolean gbits) {
            double unit = gbits ? 125e6 : 1048576.0;
            double secs = Math.max(1e-9, (last - start) / 1e9);
            double avg = size * n / secs / unit;
            double rate = n / secs / 1e6;
            double peak = avg;
            if (completed != null && n == completed.length && n > 1) {
                // The best rate over any run of w consecutive completions (w = depth, fewer when n is smaller).
                int w = (int) Math.max(1, Math.min(depth, n - 1));
                long best = Long.MAX_VALUE;
                for (int i = 0; i + w < n; i++) {
                    best = Math.min(best, completed[i + w] - completed[i]);
                }
                if (best > 0 && best != Long.MAX_VALUE) {
                    peak = Math.max(avg, size * (double) w / (best / 1e9) / unit);
                }
            }
            return new Report(size, n, peak, avg, rate);
        }
    }
}
