package io.jndk.tools;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.PerfProtocol.Accept;
import io.jndk.tools.PerfProtocol.Op;
import io.jndk.tools.PerfProtocol.Request;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntUnaryOperator;
import org.HdrHistogram.Histogram;

/**
 * {@code jndk perf --client HOST}: one connection to a {@code jndk perf --server} per size and operation. The
 * request in the Connect private data tells the server the operation, size, iterations and the pattern's seed.
 *
 * <ul>
 *   <li>write: Writes the pattern into the server's buffer, then Reads the whole buffer back (a Read behind Writes
 *       on one QP sees them) and compares every byte;</li>
 *   <li>read: the server filled its buffer with the pattern; every Read's bytes are compared when it completes,
 *       then cleared;</li>
 *   <li>send: Sends pattern messages, never more than the server's advertised receive depth unacknowledged; the
 *       server compares every message and reports the count of good and bad ones.</li>
 * </ul>
 */
final class PerfClient {
    /** Connection setup must end (either way) within this bound. */
    static final long CONNECT_TIMEOUT_MS = 3_000;
    private static final int ACK_SLOTS = 8;

    private final String transport;
    private final String hostName;
    private final InetSocketAddress server;
    private final InetAddress bind;
    private final List<String> ops;
    private final List<Integer> sizes;
    private final IntUnaryOperator itersFor;
    private final int depth;
    private final boolean crc;
    private final String pcap;
    private final long seed;
    private final boolean json;
    private final PrintStream out;
    private final PrintStream err;
    private NdkAdapter adapter;
    private NdkPd pd;
    private InetAddress local;
    private boolean headerPrinted;

    PerfClient(String transport, String hostName, InetSocketAddress server, InetAddress bind, List<String> ops,
            List<Integer> sizes, IntUnaryOperator itersFor, int depth, boolean crc, String pcap, long seed, boolean json,
            PrintStream out, PrintStream err) {
        this.transport = transport;
        this.hostName = hostName;
        this.server = server;
        this.bind = bind;
        this.ops = ops;
        this.sizes = sizes;
        this.itersFor = itersFor;
        this.depth = depth;
        this.crc = crc;
        this.pcap = pcap;
        this.seed = seed;
        this.json = json;
        this.out = out;
        this.err = err;
    }

    /** Runs every size and operation; 0 when all data verified, 1 on a mismatch, 2 when a connection failed. */
    int run() {
        try {
            local = bind != null ? bind : PerfSupport.localAddressFor(server.getAddress());
        } catch (IOException e) {
            err.println("jndk perf: no local address reaches " + hostName + " (" + e.getMessage() + "; check ip route get "
                    + hostName + ")");
            return Failure.Kind.UNREACHABLE.exit;
        }
        Map<String, String> opts = PerfSupport.options(crc, pcap);
        opts.putIfAbsent("mpa.timeout.ms", Long.toString(CONNECT_TIMEOUT_MS));
        adapter = Ndk.open(NdkOpenParameters.of(transport, local).withOptions(opts));
        pd = Sync.create("CreatePd", adapter::createPd);
        List<PerfCommand.Row> rows = new ArrayList<>();
        for (int size : sizes) {
            for (String op : ops) {
                PerfCommand.Row r;
                try {
                    r = runOne(Op.of(op), size);
                } catch (Failure e) {
                    out.flush();
                    err.println("jndk perf: " + e.getMessage());
                    return e.exit(); // nothing is closed: the process ends here
                }
                rows.add(r);
                PerfCommand.printRow(out, r, json, transport);
            }
        }
        Sync.close(pd);
        adapter.close();
        boolean ok = rows.stream().allMatch(PerfCommand.Row::verified);
        if (!json) {
            out.println();
            out.println(ok ? "All data verified: every transfer's bytes matched the pattern both processes derive."
                    : "DATA MISMATCH: see the rows marked FAILED.");
        }
        return ok ? 0 : Failure.Kind.VERIFY.exit;
    }

    /** Prints the table's header once, when the first connection stands. */
    private void header() {
        if (!json && !headerPrinted) {
            headerPrinted = true;
            out.printf(Locale.ROOT, "jndk perf: %s transport, client %s of the server at %s:%d (another process), %d in flight,"
                    + " seed %d%n", transport, local.getHostAddress(), hostName, server.getPort(), depth, seed);
            out.println("latency: write and read to their completion, send to the server's acknowledgement");
            out.println();
            PerfCommand.printHeader(out);
        }
    }

    private PerfCommand.Row runOne(Op op, int size) {
        int n = itersFor.applyAsInt(size);
        int m = Math.min(n, 5000);
        // Every slot is written at least once (the write read-back compares them all), and the buffer stays bounded.
        int slots = (int) Math.max(1, Math.min(Math.min(depth, n), PerfProtocol.MAX_BUFFER / size));
        int window = Math.min(depth, slots);
        List<NdkMr> mrs = new ArrayList<>();
        NdkCq icq = null, rcq = null;
        NdkQp qp = null;
        NdkConnector conn = null;
        boolean abandon = false;
        try (Arena arena = Arena.ofShared()) {
            long length = (long) slots * size;
            MemorySegment buf = arena.allocate(length, 4096);
            MemorySegment expected = buf;
            if (op == Op.READ) {
                expected = arena.allocate(length, 4096);
                PerfProtocol.fill(expected, seed, size);
            } else {
                PerfProtocol.fill(buf, seed, size);
            }
            MemorySegment back = op == Op.WRITE ? arena.allocate(length, 4096) : null;
            MemorySegment control = arena.allocate(ACK_SLOTS * 16L, 64);
            NdkMr mr = PerfSupport.register(pd, buf, mrs);
            NdkMr backMr = back == null ? null : PerfSupport.register(pd, back, mrs);
            NdkMr controlMr = PerfSupport.register(pd, control, mrs);
            icq = PerfSupport.cq(adapter, window + 8);
            rcq = PerfSupport.cq(adapter, ACK_SLOTS + 8);
            NdkCq ic = icq, rc0 = rcq;
            qp = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(rc0, ic, "client", ACK_SLOTS, window + 4, 1, 1, 0, cc, c, o));
            conn = Sync.create("CreateConnector", adapter::createConnector);
            Request req = new Request(op, size, n, m, slots, depth, seed, buf.address(), mr.getRemoteToken(), length);
            Accept acc;
            int readLimit;
            abandon = true; // a failed connection ends the process: nothing is closed then
            IntRef outbound = new IntRef();
            acc = connect(conn, qp, req, outbound);
            readLimit = Math.max(1, outbound.value);
            abandon = false;
            header();
            NdkConnector cn = conn;
            Sync.request("CompleteConnect", (rc, c) -> cn.completeConnect(null, null, rc, c));
            Link link = new Link(qp, icq, rcq, control, controlMr, acc);
            PerfCommand.Row row = switch (op) {
                case WRITE -> write(link, size, n, m, slots, window, buf, mr, back, backMr);
                case READ -> read(link, size, n, m, slots, Math.min(window, readLimit), buf, mr, expected);
                case SEND -> send(link, size, n, m, slots, Math.min(window, acc.receiveDepth()), buf, mr);
            };
            Sync.request("Disconnect", (rc, c) -> cn.disconnect(rc, c));
            return row;
        } finally {
            if (!abandon) {
                Sync.close(conn);
                Sync.close(qp);
                for (NdkMr x : mrs) {
                    Sync.close(x);
                }
                Sync.close(icq);
                Sync.close(rcq);
            }
        }
    }

    /** Connects within {@link #CONNECT_TIMEOUT_MS}, or throws a {@link Failure} with the line to print. */
    private Accept connect(NdkConnector conn, NdkQp qp, Request req, IntRef outbound) {
        String at = hostName + ":" + server.getPort();
        byte[] pd0 = req.encode();
        CompletableFuture<Integer> f = Sync.start((rc, c) -> conn.connect(qp, new InetSocketAddress(local, 0), server, 16, 16,
                pd0, rc, c));
        int st;
        try {
            st = f.get(CONNECT_TIMEOUT_MS + 500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw Failure.connect(at, NtStatus.STATUS_IO_TIMEOUT, null, null);
        } catch (Exception e) {
            throw new Failure("connection to " + at + " failed: " + e);
        }
        byte[] data = new byte[252];
        IntRef length = new IntRef(data.length);
        if (st != NtStatus.STATUS_SUCCESS) {
            String reason = null;
            if (conn.getConnectionData(null, null, data, length) == NtStatus.STATUS_SUCCESS) {
                reason = PerfProtocol.decodeReject(data, length.value);
            }
            if (reason != null) {
                throw new Failure(Failure.Kind.REJECTED, "the jndk server at " + at + " rejected the request: " + reason);
            }
throw Failure.connect(at, st, null, "start one first: ./jndk perf --server");
        }
        PerfSupport.check(conn.getConnectionData(null, outbound, data, length), "GetConnectionData");
        try {
            return Accept.decode(data, length.value);
        } catch (IllegalArgumentException e) {
            throw new Failure(at + " is not a jndk perf server: " + e.getMessage());
        }
    }

    /** The connection's QP, its two CQs, the control receives and what the server advertised. */
    private static final class Link {
        final NdkQp qp;
        final NdkCq icq;
        final NdkCq rcq;
        final MemorySegment control;
        final NdkMr controlMr;
        final Accept server;
        final NdkSge[] sge = {new NdkSge()};
        final NdkResultEx[] res = PerfSupport.results(32);
        long acked;
        long good = -1, bad = -1;

        Link(NdkQp qp, NdkCq icq, NdkCq rcq, MemorySegment control, NdkMr controlMr, Accept server) {
            this.qp = qp;
            this.icq = icq;
            this.rcq = rcq;
            this.control = control;
            this.controlMr = controlMr;
            this.server = server;
        }

        NdkSge[] sge(MemorySegment seg, long offset, int length, NdkMr mr) {
            sge[0].set(seg.address() + offset, length, mr.getLocalToken());
            return sge;
        }

        void postControlReceives() {
            for (int i = 0; i < ACK_SLOTS; i++) {
                PerfSupport.check(qp.receive(i, sge(control, i * 16L, 16, controlMr), 1), "Receive");
            }
        }

        /** Takes acknowledgements and the report; re-posts their receives. */
        int reapControl() {
            int k = rcq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                NdkResultEx r = res[i];
                PerfSupport.check(r, "receive from the server");
                int slot = (Integer) r.requestContext;
                long off = slot * 16L;
                if (r.bytesTransferred == PerfProtocol.REPORT_LENGTH) {
                    good = PerfProtocol.getLong(control, off);
                    bad = PerfProtocol.getLong(control, off + 8);
                } else if (r.bytesTransferred == PerfProtocol.ACK_LENGTH) {
                    acked = Math.max(acked, PerfProtocol.getLong(control, off));
                } else {
                    throw new IllegalStateException("unexpected " + r.bytesTransferred + "-byte message from the server");
                }
                PerfSupport.check(qp.receive(r.requestContext, sge(control, off, 16, controlMr), 1), "Receive");
            }
            return k;
        }

        int reapInitiator(String what) {
            int k = icq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                PerfSupport.check(res[i], what);
            }
            return k;
        }
    }

    /** Fails when no progress was made for {@link Sync#TIMEOUT_MS}. */
    private static final class Watchdog {
        private final String what;
        private long last = System.nanoTime();
        private int spins;

        Watchdog(String what) {
            this.what = what;
        }

        void progress() {
            last = System.nanoTime();
        }

        void idle() {
            if (System.nanoTime() - last > Sync.TIMEOUT_MS * 1_000_000) {
                throw new IllegalStateException(what + ": no progress for " + Sync.TIMEOUT_MS + " ms");
            }
            spins = PerfSupport.idle(spins);
        }
    }

    private PerfCommand.Row write(Link l, int size, int n, int m, int slots, int window, MemorySegment src, NdkMr srcMr,
            MemorySegment back, NdkMr backMr) {
        long va = l.server.va();
        int token = l.server.token();
        int posted = 0, completed = 0;
        Watchdog w = new Watchdog("write");
        long t0 = System.nanoTime();
        while (completed < n) {
            while (posted < n && posted - completed < window) {
                long off = (long) (posted % slots) * size;
                PerfSupport.check(l.qp.write(null, l.sge(src, off, size, srcMr), 1, va + off, token, 0), "Write");
                posted++;
            }
            int k = l.reapInitiator("write completion");
            completed += k;
            if (k > 0) {
                w.progress();
            } else {
                w.idle();
            }
        }
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < m; i++) {
            long off = (long) (i % slots) * size;
            long s = System.nanoTime();
            PerfSupport.check(l.qp.write(null, l.sge(src, off, size, srcMr), 1, va + off, token, 0), "Write");
            awaitOne(l, "write completion");
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
        }
        // Verification: Read the whole server buffer back; the Read follows the Writes on this QP, so it sees them.
        back.fill((byte) 0);
        PerfSupport.check(l.qp.read(null, l.sge(back, 0, (int) back.byteSize(), backMr), 1, va, token, 0), "Read");
        awaitOne(l, "read-back completion");
        boolean verified = back.mismatch(src) == -1;
        return row(size, "write", n, elapsed, h, verified);
    }

    private PerfCommand.Row read(Link l, int size, int n, int m, int slots, int window, MemorySegment dst, NdkMr dstMr,
            MemorySegment expected) {
        long va = l.server.va();
        int token = l.server.token();
        Integer[] ctx = new Integer[slots];
        for (int i = 0; i < slots; i++) {
            ctx[i] = i;
        }
        boolean verified = true;
        int posted = 0, completed = 0;
        Watchdog w = new Watchdog("read");
        long t0 = System.nanoTime();
        while (completed < n) {
            while (posted < n && posted - completed < window) {
                int slot = posted % slots;
                long off = (long) slot * size;
                PerfSupport.check(l.qp.read(ctx[slot], l.sge(dst, off, size, dstMr), 1, va + off, token, 0), "Read");
                posted++;
            }
            int k = l.icq.getCqResultsEx(l.res, l.res.length);
            for (int i = 0; i < k; i++) {
                PerfSupport.check(l.res[i], "read completion");
                verified &= placedAndCleared(dst, expected, (Integer) l.res[i].requestContext, size);
            }
            completed += k;
            if (k > 0) {
                w.progress();
            } else {
                w.idle();
            }
        }
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < m; i++) {
            int slot = i % slots;
            long off = (long) slot * size;
            long s = System.nanoTime();
            PerfSupport.check(l.qp.read(ctx[slot], l.sge(dst, off, size, dstMr), 1, va + off, token, 0), "Read");
            awaitOne(l, "read completion");
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
            verified &= placedAndCleared(dst, expected, slot, size);
        }
        return row(size, "read", n, elapsed, h, verified);
    }

    private static boolean placedAndCleared(MemorySegment dst, MemorySegment expected, int slot, int size) {
        MemorySegment got = dst.asSlice((long) slot * size, size);
        boolean same = got.mismatch(expected.asSlice((long) slot * size, size)) == -1;
        got.fill((byte) 0);
        return same;
    }

    private PerfCommand.Row send(Link l, int size, int n, int m, int slots, int window, MemorySegment src, NdkMr srcMr) {
        l.postControlReceives();
        long sent = 0, done = 0;
        Watchdog w = new Watchdog("send");
        long t0 = System.nanoTime();
        while (l.acked < n) {
            while (sent < n && sent - l.acked < window && sent - done < window) {
                PerfSupport.check(l.qp.send(null, l.sge(src, sent % slots * size, size, srcMr), 1, 0), "Send");
                sent++;
            }
            int k = l.reapInitiator("send completion");
            done += k;
            int a = l.reapControl();
            if (k + a > 0) {
                w.progress();
            } else {
                w.idle();
            }
        }
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < m; i++) {
            long s = System.nanoTime();
            PerfSupport.check(l.qp.send(null, l.sge(src, sent % slots * size, size, srcMr), 1, 0), "Send");
            sent++;
            w.progress();
            while (l.acked < sent) {
                int k = l.reapInitiator("send completion");
                done += k;
                if (k + l.reapControl() == 0) {
                    w.idle();
                }
            }
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
        }
        w.progress();
        while (l.good < 0 || done < sent) {
            int k = l.reapInitiator("send completion");
            done += k;
            if (k + l.reapControl() == 0) {
                w.idle();
            }
        }
        boolean verified = l.bad == 0 && l.good == sent;
        if (!verified && !json) {
            err.printf(Locale.ROOT, "jndk perf: the server reports %d good and %d bad of %d messages of %d B%n", l.good, l.bad,
                    sent, size);
        }
        return row(size, "send", n, elapsed, h, verified);
    }

    private static void awaitOne(Link l, String what) {
        Watchdog w = new Watchdog(what);
        while (l.reapInitiator(what) == 0) {
            w.idle();
        }
    }

    private static PerfCommand.Row row(int size, String op, int n, long elapsedNs, Histogram h, boolean verified) {
        double secs = elapsedNs / 1e9;
        return new PerfCommand.Row(size, op, n, (double) size * n / secs / 1e9, n / secs / 1e6,
                h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 100.0,
                h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 100.0, h.getMaxValue() / 100.0, verified);
    }
}
