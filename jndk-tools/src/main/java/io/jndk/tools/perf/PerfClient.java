package io.jndk.tools.perf;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Loops;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.ToolThread;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.kit.WireTrouble;
import io.jndk.tools.perf.PerfProtocol.Accept;
import io.jndk.tools.perf.PerfProtocol.Op;
import io.jndk.tools.perf.PerfProtocol.Request;
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
import java.util.concurrent.Semaphore;
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
    /** Receive slots for the server's acknowledgements and report. */
    static final int ACK_SLOTS = 8;

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
    private final PerfFormat format;
    private final boolean latency;
    private final int qps;
    private final boolean inline;
    private final boolean block;
    private int inlineLimit;
    private final PrintStream out;
    private final PrintStream err;
    private Map<String, String> providerOptions = Map.of();
    private NdkAdapter adapter;
    private NdkPd pd;
    private InetAddress local;
    private boolean headerPrinted;

    PerfClient(String transport, String hostName, InetSocketAddress server, InetAddress bind, List<String> ops,
            List<Integer> sizes, IntUnaryOperator itersFor, int depth, boolean crc, String pcap, long seed, PerfFormat format,
            boolean latency, int qps, boolean inline, boolean block, PrintStream out, PrintStream err) {
        this.block = block;
        this.inline = inline;
        this.latency = latency;
        this.qps = qps;
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
        this.format = format;
        this.out = out;
        this.err = err;
    }

    /** Provider options for the adapter (perf's {@code -O KEY=VALUE}). */
    PerfClient withOptions(Map<String, String> options) {
        this.providerOptions = Map.copyOf(options);
        return this;
    }

    /**
     * Runs every size and operation, adding the rows to {@code rows}; 0 when all data verified, else the exit code
     * of the {@link Failure} (verification, or a connection that failed).
     */
    int run(List<PerfFormat.Row> rows, PerfProgress progress) {
        try {
            local = bind != null ? bind : Net.localAddressFor(server.getAddress());
        } catch (IOException e) {
            err.println("jndk perf: no local address reaches " + hostName + " (" + e.getMessage() + "; check ip route get "
                    + hostName + ")");
            return Failure.Kind.UNREACHABLE.exit;
        }
        Map<String, String> opts = Session.options(crc, pcap, providerOptions);
        if (transport.equals("iwarp")) {
            opts.putIfAbsent("mpa.timeout.ms", Long.toString(CONNECT_TIMEOUT_MS));
        }
        adapter = Session.open(transport, local, opts);
        try {
            pd = Sync.create("CreatePd", adapter::createPd);
            inlineLimit = inline ? adapter.info().maxInlineDataSize() : 0;
            int index = 0;
            for (int size : sizes) {
                for (String op : ops) {
                    int n = itersFor.applyAsInt(size);
                    progress.row(index++, sizes.size() * ops.size(), op + " " + size + " B",
                            (long) qps * (n + (latency ? 0 : Math.min(n, 5000))), 0, size);
                    PerfFormat.Row r;
                    try {
                        Map<String, Long> wire0 = WireTrouble.sample(List.of(adapter));
                        r = PerfFormat.sum(size, op, latency ? "lat" : "bw", runAll(Op.of(op), size, progress),
                                inlined(Op.of(op), size))
                                .withWire(WireTrouble.growth(wire0, WireTrouble.sample(List.of(adapter))));
                    } catch (Failure e) {
                        progress.close();
                        out.flush();
                        err.println("jndk perf: " + e.getMessage());
                        return e.exit();
                    }
                    rows.add(r);
                    progress.println(() -> format.row(out, r, transport));
                }
            }
        } finally {
            Sync.close(pd);
            adapter.close();
        }
        boolean ok = rows.stream().allMatch(PerfFormat.Row::verified);
        if (format == PerfFormat.TABLE) {
            out.println();
            out.println(ok ? "All data verified: every transfer's bytes matched the pattern both processes derive."
                    : "DATA MISMATCH: see the rows marked FAILED.");
        }
        return ok ? 0 : Failure.Kind.VERIFY.exit;
    }

    /** Whether this operation at this size is posted inline. */
    private boolean inlined(Op op, int size) {
        return op != Op.READ && size <= inlineLimit;
    }

    /** One connection per QP, all at once (each in its own thread when there are several). */
    private List<PerfFormat.Part> runAll(Op op, int size, PerfProgress progress) {
        if (qps == 1) {
            return List.of(runOne(op, size, progress));
        }
        List<PerfFormat.Part> parts = new ArrayList<>();
        List<ToolThread> threads = new ArrayList<>();
        for (int i = 0; i < qps; i++) {
            threads.add(ToolThread.start("perf-client-" + i, () -> {
                PerfFormat.Part p = runOne(op, size, progress);
                synchronized (parts) {
                    parts.add(p);
                }
            }));
        }
        for (ToolThread t : threads) {
            try {
                t.join(java.time.Duration.ofDays(1)); // each connection gives up by itself when it stops progressing
            } catch (IllegalStateException e) {
                if (e.getCause() instanceof Failure f) {
                    throw f;
                }
                throw e;
            }
        }
        return parts;
    }

    /** Prints the table's header once, when the first connection stands. */
    private synchronized void header() {
        if (!headerPrinted) {
            headerPrinted = true;
            if (format == PerfFormat.TABLE) {
                out.printf(Locale.ROOT, "jndk perf: %s transport, client %s of the server at %s:%d (another process), %s,"
                        + " seed %d%n", transport, local.getHostAddress(), hostName, server.getPort(),
                        (latency ? "latency mode" : "bandwidth mode (" + depth + " in flight)") + (qps > 1 ? ", " + qps
                                + " connections at once" : ""), seed);
                out.println(latency ? "latency: write and send: half the round trip of a ping-pong; read: one Read, posting to"
                        + " completion" : "latency: write and read to their completion, send to the server's acknowledgement");
                out.println();
            }
            format.header(out);
        }
    }

    private PerfFormat.Part runOne(Op op, int size, PerfProgress progress) {
        int n = itersFor.applyAsInt(size);
        int m = latency ? 0 : Math.min(n, 5000);
        // Every slot is written at least once (the write read-back compares them all), and the buffer stays bounded.
        int slots = latency ? 1 : (int) Math.max(1, Math.min(Math.min(depth, n), PerfProtocol.MAX_BUFFER / size));
        int window = Math.min(depth, slots);
        Session session = new Session(adapter, pd).quietConnectors();
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
            // The Read-back target (write), or where the server's answers land in latency mode (write, send).
            long backLength = !latency ? length : op == Op.SEND ? 2L * Math.max(size, PerfProtocol.REPORT_LENGTH) : size;
            MemorySegment back = op == Op.WRITE || latency && op == Op.SEND ? arena.allocate(backLength, 4096) : null;
            MemorySegment control = arena.allocate(ACK_SLOTS * 16L, 64);
            NdkMr mr = session.register(buf);
            NdkMr backMr = back == null ? null : session.register(back);
            NdkMr controlMr = session.register(control);
            Semaphore notified = new Semaphore(0);
            NdkCq icq = session.cq(window + 8, notified::release);
            NdkCq rcq = session.cq(ACK_SLOTS + 8, notified::release);
            NdkQp qp = session.qp(rcq, icq, "client", ACK_SLOTS, window + 4, 1, 1, inlineLimit);
            NdkConnector conn = session.connector();
            Request req = latency && back != null
                    ? new Request(op, size, n, m, slots, depth, seed, back.address(), backMr.getRemoteToken(), backLength, true,
                            PerfProtocol.VERSION)
                    : new Request(op, size, n, m, slots, depth, seed, buf.address(), mr.getRemoteToken(), length, latency,
                            PerfProtocol.VERSION);
            IntRef outbound = new IntRef();
            Accept acc = connect(conn, qp, req, outbound);
            int readLimit = Math.max(1, outbound.value);
            header();
            NdkConnector cn = conn;
            Sync.request("CompleteConnect", (rc, c) -> cn.completeConnect(null, null, rc, c));
            PerfLink link = new PerfLink(qp, icq, rcq, control, controlMr, acc, block ? notified : null, progress);
            if (inlined(op, size)) {
                link.flags = NdkOpFlags.INLINE;
                link.inline = new NdkSge[slots][];
                for (int i = 0; i < slots; i++) {
                    link.inline[i] = new NdkSge[] {NdkSge.inline(buf.asSlice((long) i * size, size))};
                }
            }
            PerfFormat.Part row = latency && op != Op.READ ? switch (op) {
                case WRITE -> writeLatency(link, size, n, buf, mr, back);
                default -> sendLatency(link, size, n, buf, mr, back, backMr);
            } : switch (op) {
                case WRITE -> write(link, size, n, m, slots, window, buf, mr, back, backMr);
                case READ -> latency ? read(link, size, 0, n, slots, 1, buf, mr, expected)
                        : read(link, size, n, m, slots, Math.min(window, readLimit), buf, mr, expected);
                case SEND -> send(link, size, n, m, slots, Math.min(window, acc.receiveDepth()), buf, mr);
            };
            Sync.request("Disconnect", (rc, c) -> cn.disconnect(rc, c));
            return row;
        } finally {
            session.close();
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
            throw Failure.connect(at, conn, st, "start one first: ./jndk perf --server");
        }
        Checks.check(conn.getConnectionData(null, outbound, data, length), "GetConnectionData");
        try {
            return Accept.decode(data, length.value);
        } catch (IllegalArgumentException e) {
            throw new Failure(at + " is not a jndk perf server: " + e.getMessage());
        }
    }

    private PerfFormat.Part write(PerfLink l, int size, int n, int m, int slots, int window, MemorySegment src, NdkMr srcMr,
            MemorySegment back, NdkMr backMr) {
        long va = l.server.va();
        int token = l.server.token();
        Watchdog w = new Watchdog("write");
        long t0 = System.nanoTime();
        l.stream(n, window, posted -> {
            long off = posted % slots * size;
            Checks.check(l.qp.write(null, l.out(src, off, size, srcMr), 1, va + off, token, l.flags), "Write");
        }, done -> l.reapInitiator("write completion"), w);
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < m; i++) {
            long off = (long) (i % slots) * size;
            long s = System.nanoTime();
            Checks.check(l.qp.write(null, l.out(src, off, size, srcMr), 1, va + off, token, l.flags), "Write");
            awaitOne(l, "write completion");
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
        }
        // Verification: Read the whole server buffer back; the Read follows the Writes on this QP, so it sees them.
        back.fill((byte) 0);
        Checks.check(l.qp.read(null, l.sge(back, 0, (int) back.byteSize(), backMr), 1, va, token, 0), "Read");
        awaitOne(l, "read-back completion");
        boolean verified = back.mismatch(src) == -1;
        return part(n, elapsed, h, verified);
    }

    private PerfFormat.Part read(PerfLink l, int size, int n, int m, int slots, int window, MemorySegment dst, NdkMr dstMr,
            MemorySegment expected) {
        long va = l.server.va();
        int token = l.server.token();
        Integer[] ctx = new Integer[slots];
        for (int i = 0; i < slots; i++) {
            ctx[i] = i;
        }
        boolean[] placed = {true};
        Watchdog w = new Watchdog("read");
        long t0 = System.nanoTime();
        l.stream(n, window, posted -> {
            int slot = (int) (posted % slots);
            long off = (long) slot * size;
            Checks.check(l.qp.read(ctx[slot], l.sge(dst, off, size, dstMr), 1, va + off, token, 0), "Read");
        }, done -> Loops.reap(l.icq, l.res, "read completion",
                (r, j) -> placed[0] &= placedAndCleared(dst, expected, (Integer) r.requestContext, size)), w);
        boolean verified = placed[0];
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        long t1 = System.nanoTime();
        for (int i = 0; i < m; i++) {
            int slot = i % slots;
            long off = (long) slot * size;
            long s = System.nanoTime();
            Checks.check(l.qp.read(ctx[slot], l.sge(dst, off, size, dstMr), 1, va + off, token, 0), "Read");
            awaitOne(l, "read completion");
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
            verified &= placedAndCleared(dst, expected, slot, size);
        }
        if (n == 0) { // latency mode: the single Reads are the run
            return part(m, System.nanoTime() - t1, h, verified);
        }
        return part(n, elapsed, h, verified);
    }

    private static boolean placedAndCleared(MemorySegment dst, MemorySegment expected, int slot, int size) {
        MemorySegment got = dst.asSlice((long) slot * size, size);
        boolean same = got.mismatch(expected.asSlice((long) slot * size, size)) == -1;
        got.fill((byte) 0);
        return same;
    }

    private PerfFormat.Part send(PerfLink l, int size, int n, int m, int slots, int window, MemorySegment src, NdkMr srcMr) {
        l.postControlReceives();
        long sent = 0, done = 0;
        Watchdog w = new Watchdog("send");
        long t0 = System.nanoTime();
        while (l.acked < n) {
            while (sent < n && sent - l.acked < window && sent - done < window) {
                Checks.check(l.qp.send(null, l.out(src, sent % slots * size, size, srcMr), 1, l.flags), "Send");
                sent++;
            }
            int k = l.reapInitiator("send completion");
            done += k;
            l.progress.add(k);
            int a = l.reapControl();
            if (k + a > 0) {
                w.progress();
            } else {
                l.idle(w);
            }
        }
        long elapsed = System.nanoTime() - t0;
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 0; i < m; i++) {
            long s = System.nanoTime();
            Checks.check(l.qp.send(null, l.out(src, sent % slots * size, size, srcMr), 1, l.flags), "Send");
            sent++;
            w.progress();
            while (l.acked < sent) {
                int k = l.reapInitiator("send completion");
                done += k;
                if (k + l.reapControl() == 0) {
                    l.idle(w);
                }
            }
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
            l.progress.add(1);
        }
        w.progress();
        while (l.good < 0 || done < sent) {
            int k = l.reapInitiator("send completion");
            done += k;
            if (k + l.reapControl() == 0) {
                l.idle(w);
            }
        }
        boolean verified = l.bad == 0 && l.good == sent;
        if (!verified) {
            err.printf(Locale.ROOT, "jndk perf: the server reports %d good and %d bad of %d messages of %d B%n", l.good, l.bad,
                    sent, size);
        }
        return part(n, elapsed, h, verified);
    }

    private static void awaitOne(PerfLink l, String what) {
        Watchdog w = new Watchdog(what);
        while (l.reapInitiator(what) == 0) {
            l.idle(w);
        }
        l.progress.add(1);
    }

    private static PerfFormat.Part part(long n, long elapsedNs, Histogram h, boolean verified) {
        return new PerfFormat.Part(n, elapsedNs, h, verified);
    }

    /**
     * Latency mode, write (ib_write_lat): Writes the pattern with this round's tag as its last byte into the
     * server's buffer; the server Writes it back into {@code back}; half of each round trip is recorded.
     */
    private PerfFormat.Part writeLatency(PerfLink l, int size, int n, MemorySegment src, NdkMr srcMr, MemorySegment back) {
        Watchdog w = new Watchdog("write answer");
        Histogram h = new Histogram(3_600_000_000L, 3);
        Loops.PingPong pp = Loops.writePingPong(src, back, size - 1, n, Long.MAX_VALUE,
                () -> l.qp.write(null, l.out(src, 0, size, srcMr), 1, l.server.va(), l.server.token(), l.flags),
                () -> l.reapInitiator("write completion"), w, h, () -> l.progress.add(256));
        Loops.drain(pp.outstanding(), () -> {
            int k = l.reapInitiator("write completion");
            l.idle(w);
            return k;
        });
        return part(n, pp.elapsedNs(), h, back.asSlice(0, size).mismatch(src.asSlice(0, size)) == -1);
    }

    /**
     * Latency mode, send (ib_send_lat): Sends the pattern; the server answers every message with a Send of the same
     * pattern into one of two receive slots in {@code back}; half of each round trip is recorded. The server's
     * report (good and bad messages) follows the last answer.
     */
    private PerfFormat.Part sendLatency(PerfLink l, int size, int n, MemorySegment src, NdkMr srcMr, MemorySegment back,
            NdkMr backMr) {
        long slot = back.byteSize() / 2;
        NdkSge[] rsge = {new NdkSge()};
        for (int i = 0; i < 2; i++) {
            rsge[0].set(back.address() + i * slot, (int) slot, backMr.getLocalToken());
            Checks.check(l.qp.receive(i, rsge, 1), "Receive");
        }
        MemorySegment expect = src.asSlice(0, size);
        boolean ok = true;
        long sending = 0;
        Watchdog w = new Watchdog("send answer");
        Histogram h = new Histogram(3_600_000_000L, 3);
        long t0 = System.nanoTime(), elapsed = 0;
        for (long i = 0; i <= n; i++) { // round n only takes the report
            long s = System.nanoTime();
            if (i < n) {
                Checks.check(l.qp.send(null, l.out(src, 0, size, srcMr), 1, l.flags), "Send");
                sending++;
            }
            while (l.rcq.getCqResultsEx(l.res, 1) == 0) {
                sending -= l.reapInitiator("send completion");
                l.idle(w);
            }
            w.progress();
            NdkResultEx r = l.res[0];
            Checks.check(r, "receive from the server");
            int at = (Integer) r.requestContext;
            MemorySegment got = back.asSlice(at * slot, slot);
            if (i == n) {
                ok &= r.bytesTransferred == PerfProtocol.REPORT_LENGTH && PerfProtocol.getLong(got, 0) == n
                        && PerfProtocol.getLong(got, 8) == 0;
                if (!ok) {
                    err.printf(Locale.ROOT, "jndk perf: the server reports %d good and %d bad of %d messages of %d B%n",
                            PerfProtocol.getLong(got, 0), PerfProtocol.getLong(got, 8), n, size);
                }
                break;
            }
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 20));
            elapsed = System.nanoTime() - t0;
            l.progress.add(1);
            ok &= r.bytesTransferred == size && got.asSlice(0, size).mismatch(expect) == -1;
            got.fill((byte) 0);
            rsge[0].set(got.address(), (int) slot, backMr.getLocalToken());
            Checks.check(l.qp.receive(r.requestContext, rsge, 1), "Receive");
            sending -= l.reapInitiator("send completion"); // also when the answer came first: the CQ must not overrun
        }
        while (sending > 0) {
            sending -= l.reapInitiator("send completion");
            l.idle(w);
        }
        return part(n, elapsed, h, ok);
    }
}
