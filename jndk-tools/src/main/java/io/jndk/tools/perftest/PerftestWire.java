package io.jndk.tools.perftest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The messages perftest 4.5 (version string "6.06") exchanges in rdma_cm mode ({@code -R}), as seen on the wire
 * between two Linux siw peers. Each message is the whole payload of one plain Send on the control connection; the
 * client sends first and the server answers with the same kind of message (docs/INTEROP-PERFTEST.md).
 *
 * <ul>
 *   <li>version: 16 bytes, ASCII NUL-padded ("6.06");</li>
 *   <li>cycle buffer and cache line size: 4 bytes each, big-endian (4096, 64);</li>
 *   <li>MTU: 2 bytes, the decimal ibv_mtu enum and a NUL ("3" = 1024 bytes);</li>
 *   <li>{@link Dest}: 56 bytes;</li>
 *   <li>bandwidth report: five 8-byte messages, size and iterations (u64) then peak, average (MB/s or Gb/s) and
 *       message rate (Mpps) as IEEE doubles, all big-endian.</li>
 * </ul>
 */
final class PerftestWire {
    private PerftestWire() {}

    /** The perftest version this implementation speaks (perftest 4.5-0.17 reports "6.06"). */
    static final String VERSION = "6.06";
    static final int VERSION_LENGTH = 16;
    static final int CYCLE_BUFFER = 4096;
    static final int CACHE_LINE = 64;
    /** ibv_mtu enum 3 = 1024 bytes, what siw reports. */
    static final int MTU_ENUM = 3;
    static final int DEST_LENGTH = 56;
    /** perftest's {@code KEY_MSG_SIZE_GID}: the address keys over TCP. */
    static final int KEYS_LENGTH = 108;
    /** The last message of a TCP exchange, each side's: "done" and its NUL. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};
    static final int DEFAULT_PORT = 18515;

    /** The three verbs, with the words perftest's titles and tool names use. */
    enum Verb {
        WRITE("RDMA_Write", "write"), READ("RDMA_Read", "read"), SEND("Send", "send");

        final String title;
        final String word;

        Verb(String title, String word) {
            this.title = title;
            this.word = word;
        }

        /** The tool: ib_write_bw, ib_read_lat, ... */
        String tool(boolean latency) {
            return "ib_" + word + (latency ? "_lat" : "_bw");
        }

        /** The test's title as perftest prints it: "RDMA_Write BW Test", "Send Bidirectional BW Test", ... */
        String title(boolean latency, boolean duplex) {
            return title + (latency ? " Latency Test" : duplex ? " Bidirectional BW Test" : " BW Test");
        }
    }

    static byte[] version(String v) {
        byte[] b = new byte[VERSION_LENGTH];
        byte[] s = v.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(s, 0, b, 0, Math.min(s.length, VERSION_LENGTH - 1));
        return b;
    }

    /** The NUL-terminated version string of a version message. */
    static String parseVersion(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    /** The numeric value of a version string ("6.06" gives 6.06), or -1 when it is not a number. */
    static double versionNumber(String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.BIG_ENDIAN).putInt(0, v).array();
    }

    static int parseInt32(byte[] b, String what) {
        expect(b, 4, what);
        return ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN).getInt(0);
    }

    static byte[] mtu(int mtuEnum) {
        byte[] s = Integer.toString(mtuEnum).getBytes(StandardCharsets.US_ASCII);
        return Arrays.copyOf(s, s.length + 1);
    }

    static int parseMtu(byte[] b) {
        String s = parseVersion(b);
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the peer's MTU message '" + s + "' is not a number");
        }
    }

    /** The ibv_mtu enum's size in bytes (1 = 256 ... 5 = 4096). */
    static int mtuBytes(int mtuEnum) {
        return mtuEnum >= 1 && mtuEnum <= 5 ? 128 << mtuEnum : 0;
    }

    static byte[] u64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(0, v).array();
    }

    static long parseU64(byte[] b, String what) {
        expect(b, 8, what);
        return ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN).getLong(0);
    }

    static byte[] f64(double v) {
        return u64(Double.doubleToRawLongBits(v));
    }

    static double parseF64(byte[] b, String what) {
        return Double.longBitsToDouble(parseU64(b, what));
    }

    static void expect(byte[] b, int length, String what) {
        if (b.length != length) {
            throw new IllegalStateException("the peer's " + what + " message has " + b.length + " bytes, expected " + length
                    + " (is the peer perftest 4.x speaking version " + VERSION + " with -R?)");
        }
    }

    /**
     * perftest's {@code struct pingpong_dest} as sent (56 bytes; ints and the address big-endian, the GID raw):
     * lid @0, out_reads @4, qpn @8, psn @12, rkey @16, 4 bytes of structure padding @20, vaddr @24, gid[16] @32,
     * srqn @48, gid_index @52.
     */
    record Dest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn, int gidIndex) {
        static final Dest ZERO = new Dest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);

        byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(DEST_LENGTH).order(ByteOrder.BIG_ENDIAN);
            b.putInt(0, lid).putInt(4, outReads).putInt(8, qpn).putInt(12, psn).putInt(16, rkey).putLong(24, vaddr)
                    .put(32, gid, 0, 16).putInt(48, srqn).putInt(52, gidIndex);
            return b.array();
        }

        static Dest decode(byte[] m) {
            expect(m, DEST_LENGTH, "pingpong_dest");
            ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.BIG_ENDIAN);
            byte[] gid = new byte[16];
            b.get(32, gid);
            return new Dest(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12), b.getInt(16), b.getLong(24), gid,
                    b.getInt(48), b.getInt(52));
        }

        /**
         * The destination as perftest sends it over its TCP exchange (no rdma_cm): {@code KEY_PRINT_FMT_GID}, ASCII
         * hex fields separated by colons, "lid:out_reads:qpn:psn:rkey:vaddr:gid[0]:...:gid[15]:srqn:", NUL-padded to
         * {@value #KEYS_LENGTH} bytes (checked against the TCP 18515 exchange of two rxe guests).
         */
        byte[] encodeKeys() {
            StringBuilder t = new StringBuilder(String.format(java.util.Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x",
                    lid & 0xFFFF, outReads & 0xFFFF, qpn & 0xFFFFFF, psn & 0xFFFFFF, rkey, vaddr));
            for (byte g : gid) {
                t.append(String.format(java.util.Locale.ROOT, ":%02x", g & 0xFF));
            }
            t.append(String.format(java.util.Locale.ROOT, ":%08x:", srqn));
            byte[] ascii = t.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            return java.util.Arrays.copyOf(ascii, KEYS_LENGTH);
        }

        /** Parses {@link #encodeKeys}'s form (the fields as perftest's reader takes them: hex, colon-separated). */
        static Dest decodeKeys(byte[] m) {
            expect(m, KEYS_LENGTH, "address keys");
            int end = 0;
            while (end < m.length && m[end] != 0) {
                end++;
            }
            String[] f = new String(m, 0, end, java.nio.charset.StandardCharsets.US_ASCII).split(":");
            if (f.length < 23) {
                throw new IllegalStateException("the peer's address keys '" + new String(m, 0, end,
                        java.nio.charset.StandardCharsets.US_ASCII) + "' have " + f.length + " fields, expected 23");
            }
            try {
                byte[] gid = new byte[16];
                for (int i = 0; i < 16; i++) {
                    gid[i] = (byte) Integer.parseInt(f[6 + i], 16);
                }
                return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                        Integer.parseInt(f[3], 16), Integer.parseUnsignedInt(f[4], 16), Long.parseUnsignedLong(f[5], 16),
                        gid, Integer.parseUnsignedInt(f[22], 16), 0);
            } catch (NumberFormatException e) {
                throw new IllegalStateException("the peer's address keys are not perftest's hex fields: " + e.getMessage());
            }
        }

        /** The GID the way perftest prints it: each byte in decimal, two digits, colon-separated. */
        String gidText() {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 16; i++) {
                s.append(i == 0 ? "" : ":").append(String.format(Locale.ROOT, "%02d", gid[i] & 0xFF));
            }
            return s.toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Dest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn && psn == d.psn
                    && rkey == d.rkey && vaddr == d.vaddr && Arrays.equals(gid, d.gid) && srqn == d.srqn
                    && gidIndex == d.gidIndex;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(vaddr) * 31 + rkey * 17 + qpn + Arrays.hashCode(gid);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "Dest[qpn=0x%x, psn=0x%06x, outReads=%d, rkey=0x%08x, vaddr=0x%x, gid=%s]", qpn,
                    psn, outReads, rkey, vaddr, gidText());
        }
    }

    /** One bandwidth report (what {@code xchg_bw_reports} sends, in this order). */
    record Report(long size, long iters, double peak, double average, double msgRate) {
        /** This report with the peer's figures added (a bidirectional test prints the sum; size and iterations are this side's). */
        Report plus(Report peer) {
            return new Report(size, iters, peak + peer.peak, average + peer.average, msgRate + peer.msgRate);
        }

        byte[][] encode() {
            return new byte[][] {u64(size), u64(iters), f64(peak), f64(average), f64(msgRate)};
        }
    }

    /** The table's header line (perftest's column names). */
    static String columns(boolean gbits) {
        String u = gbits ? "Gb/sec" : "MB/sec";
        return " #bytes     #iterations    BW peak[" + u + "]    BW average[" + u + "]   MsgRate[Mpps]";
    }

    /** One table row, formatted the way perftest 4.5 prints it. */
    static String row(Report r) {
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iters(),
                r.peak(), r.average(), r.msgRate());
    }

    /** The latency tools' column header, trailing space included (perftest 4.5). */
    static final String LAT_COLUMNS = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

    /** One latency row, in perftest 4.5's format (its tabs and padding included). */
    static String latRow(long size, long iters, PerftestReport.Latency l) {
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f"
                + " \t\t%-7.2f", size, iters, l.min(), l.max(), l.typical(), l.average(), l.stdev(), l.p99(), l.p999());
    }

    /** A number alone, as perftest's --output prints it ("%lf"). */
    static String value(double v) {
        return String.format(Locale.ROOT, "%f", v);
    }

    static final String LINE = "---------------------------------------------------------------------------------------";

    /** perftest's message sizes with {@code -a}: 2 bytes to 8 MiB, doubling. */
    static long[] allSizes() {
        long[] s = new long[23];
        for (int i = 1; i <= 23; i++) {
            s[i - 1] = 1L << i;
        }
        return s;
    }

    /**
     * Offset of message {@code i} in a buffer: perftest steps by the size rounded up to the cache line and wraps
     * within the cycle buffer, but only when two messages fit in it; larger messages all use offset 0.
     */
    static long offset(long i, long size, int cycleBuffer, int cacheLine) {
        if (size > cycleBuffer / 2) {
            return 0;
        }
        long step = (size + cacheLine - 1) / cacheLine * cacheLine;
        long slots = Math.max(1, cycleBuffer / step);
        return i % slots * step;
    }
}
