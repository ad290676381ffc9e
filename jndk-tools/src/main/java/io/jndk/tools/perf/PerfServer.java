package io.jndk.tools.perf;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Listening;
import io.jndk.tools.kit.Loops;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.ToolThread;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perf.PerfProtocol.Accept;
import io.jndk.tools.perf.PerfProtocol.Op;
import io.jndk.tools.perf.PerfProtocol.Request;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code jndk perf --server}: listens and serves client connections, each in its own thread. For Writes and Reads it
 * exposes a buffer (filled with the agreed pattern for Reads); for Sends it keeps receives posted, checks every
 * received message against the pattern, acknowledges received messages in batches (the client's credit) and ends
 * with a report of good and bad messages.
 */
final class PerfServer {
    /** Ring of small server-to-client messages (acknowledgements, the report). */
    private static final int CONTROL_SLOTS = 16;
    private static final int CONTROL_SLOT_BYTES = 16;

    private final String transport;
    private final InetAddress bind;
    private final int port;
    private final int clients;
    private final boolean crc;
    private final String pcap;
    private final PrintStream out;
    private final PrintStream err;
    private Map<String, String> providerOptions = Map.of();
    private final boolean flipOneByte;

    PerfServer(String transport, InetAddress bind, int port, int clients, boolean crc, String pcap, boolean flipOneByte,
            PrintStream out, PrintStream err) {
        this.flipOneByte = flipOneByte;
        this.transport = transport;
        this.bind = bind;
        this.port = port;
        this.clients = clients;
        this.crc = crc;
        this.pcap = pcap;
        this.out = out;
        this.err = err;
    }

    /** Provider options for the adapter (perf's {@code -O KEY=VALUE}). */
    PerfServer withOptions(Map<String, String> options) {
        this.providerOptions = Map.copyOf(options);
        return this;
    }

    /**
     * Serves until killed, or until {@code clients} connections (when positive) have been served. An adapter, PD or
     * listener it cannot set up is a {@link io.jndk.tools.kit.Failure} (a taken port: address in use, exit 6); what
     * was opened is closed on every way out.
     */
    int run() throws InterruptedException {
        NdkAdapter adapter = Session.open(transport, bind, Session.options(crc, pcap, providerOptions));
        NdkPd pd = null;
        Listening listener = null;
        List<ToolThread> serving = new ArrayList<>();
        try {
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            listener = new Listening(adapter);
            listener.listen(new InetSocketAddress(bind, port));
            InetSocketAddress where = listener.bound();
            out.println("listening on " + where.getAddress().getHostAddress() + ":" + where.getPort() + " (" + transport + ")");
            out.flush();
            AtomicInteger failures = new AtomicInteger();
            for (int served = 0; clients <= 0 || served < clients; served++) {
                NdkConnector conn = listener.take();
                serving.removeIf(ToolThread::finished);
                NdkPd p = pd;
                serving.add(ToolThread.start("perf-serve-" + served, () -> {
                    try {
                        if (!serve(a, p, conn)) {
                            failures.incrementAndGet();
                        }
                    } catch (RuntimeException | InterruptedException e) {
                        failures.incrementAndGet();
                        err.println("jndk perf: client failed: " + e.getMessage());
                    }
                    out.flush();
                }));
            }
            for (ToolThread t : serving) {
                t.join(java.time.Duration.ofDays(1)); // each connection ends when its client leaves
            }
            return failures.get() == 0 ? 0 : 1;
        } finally {
            if (listener != null) {
                listener.close();
            }
            Sync.close(pd);
            adapter.close();
        }
    }

    private boolean serve(NdkAdapter adapter, NdkPd pd, NdkConnector conn) throws InterruptedException {
        Ref<InetSocketAddress> peer = new Ref<>();
        String who = conn.getPeerAddress(peer, new IntRef(28)) == NtStatus.STATUS_SUCCESS
                ? peer.get().getAddress().getHostAddress() + ":" + peer.get().getPort() : "client";
        byte[] data = new byte[252];
        IntRef length = new IntRef(data.length);
        Request req;
        try {
            int st = conn.getConnectionData(null, null, data, length);
            if (st != NtStatus.STATUS_SUCCESS) {
                throw new IllegalArgumentException("private data unreadable (" + NtStatus.name(st) + ")");
            }
            req = Request.decode(data, length.value);
        } catch (IllegalArgumentException e) {
            conn.reject(PerfProtocol.encodeReject(e.getMessage()));
            Sync.close(conn);
            err.println("jndk perf: rejected " + who + ": " + e.getMessage());
            return false;
        }
        if (req.latency()) {
            out.printf(java.util.Locale.ROOT, "%s: %s, %d B, %d round trips (latency mode)%n", who, req.op().label(),
                    req.size(), req.iters());
        } else {
            out.printf(java.util.Locale.ROOT, "%s: %s, %d B, %d + %d iterations, %d in flight%n", who, req.op().label(),
                    req.size(), req.iters(), req.latencyIters(), req.depth());
        }
        Session session = new Session(adapter, pd);
        session.adopt(conn);
        boolean accepted = false;
        try (Arena arena = Arena.ofShared()) {
            boolean send = req.op() == Op.SEND;
            int depth = 0, batch = 0;
            if (send && req.latency()) {
                depth = 2; // the client has one message in flight; the answer goes out before its receive is re-posted
                batch = 1;
            } else if (send) {
                depth = Math.clamp(2L * req.depth(), 4, 64);
                while (depth > 2 && (long) depth * req.size() > PerfProtocol.MAX_BUFFER) {
                    depth /= 2;
                }
                batch = Math.max(1, Math.min(req.depth(), depth) / 2);
            }
            long regionLength = send ? (long) depth * req.size() : (long) req.slots() * req.size();
            MemorySegment region = arena.allocate(regionLength, 4096);
            if (req.op() == Op.READ) {
                PerfProtocol.fill(region, req.seed(), req.size());
                flip(region);
            }
            MemorySegment expected = null;
            if (send) {
                expected = arena.allocate((long) req.slots() * req.size(), 4096);
                PerfProtocol.fill(expected, req.seed(), req.size());
                flip(expected);
            }
            MemorySegment control = arena.allocate(CONTROL_SLOTS * CONTROL_SLOT_BYTES, 64);
            NdkMr mr = session.register(region);
            NdkMr controlMr = session.register(control);
            NdkMr expectedMr = expected == null ? null : session.register(expected);
            NdkCq rcq = session.cq(depth + 8, null);
            NdkCq scq = session.cq(CONTROL_SLOTS + 8, null);
            NdkQp qp = session.qp(rcq, scq, who, Math.max(depth, 1), CONTROL_SLOTS + 4, 1, 1, 0);
            NdkSge[] sge = {new NdkSge()};
            for (int i = 0; i < depth; i++) {
                Checks.check(qp.receive(i, sge(sge, region, (long) i * req.size(), req.size(), mr), 1), "Receive");
            }
            CompletableFuture<Void> gone = new CompletableFuture<>();
            byte[] answer = new Accept(depth, batch, region.address(), mr.getRemoteToken(), regionLength).encode(req.version());
            NdkQp q = qp;
            Sync.request("Accept", (rc, c) -> conn.accept(q, 16, 16, answer, x -> gone.complete(null), null, rc, c));
            accepted = true;
            boolean ok = true;
            if (send) {
                ok = receiveAll(req, who, qp, rcq, scq, region, mr, expected, expectedMr, control, controlMr, depth, batch,
                        gone);
            } else if (req.op() == Op.WRITE && req.latency()) {
                ok = answerWrites(req, who, qp, scq, region, mr, gone);
            }
            gone.join(); // the client disconnects when it is done (or its process ends: a reset)
            if (!send) {
                out.println(who + ": disconnected");
            }
            return ok;
        } finally {
            if (!accepted) {
                conn.reject(PerfProtocol.encodeReject("server could not set up the connection"));
            }
            session.close();
        }
    }

    private boolean receiveAll(Request req, String who, NdkQp qp, NdkCq rcq, NdkCq scq, MemorySegment region, NdkMr mr,
            MemorySegment expected, NdkMr expectedMr, MemorySegment control, NdkMr controlMr, int depth, int batch,
            CompletableFuture<Void> gone) {
        int size = req.size();
        long total = (long) req.iters() + req.latencyIters();
        long received = 0, good = 0, bad = 0;
        NdkSge[] sge = {new NdkSge()};
        NdkResultEx[] res = Session.results(Math.max(depth, 1));
        Control ctl = new Control(qp, scq, control, controlMr);
        NdkSge[] answer = {new NdkSge(expected.address(), size, expectedMr.getLocalToken())};
        int spins = 0;
        while (received < total) {
            int k = rcq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                NdkResultEx r = res[i];
                if (r.status != NtStatus.STATUS_SUCCESS) {
                    err.println("jndk perf: " + who + ": client left after " + received + " of " + total + " messages"
                            + " (receive " + NtStatus.name(r.status) + ")");
                    return false;
                }
                int slot = (Integer) r.requestContext;
                if (req.latency()) {
                    ctl.post(answer); // at once: the check below overlaps the client's turn
                }
                long want = received % req.slots() * size;
                if (r.bytesTransferred == size
                        && region.asSlice((long) slot * size, size).mismatch(expected.asSlice(want, size)) == -1) {
                    good++;
                } else {
                    bad++;
                }
                received++;
                Checks.check(qp.receive(r.requestContext, sge(sge, region, (long) slot * size, size, mr), 1), "Receive");
                if (!req.latency() && (received > req.iters() || received % batch == 0 || received == req.iters())) {
                    ctl.send(received, -1); // the receive is re-posted before the client hears of it
                }
            }
            if (k == 0) {
                ctl.reap();
                if (gone.isDone()) {
                    err.println("jndk perf: " + who + ": client left after " + received + " of " + total + " messages");
                    return false;
                }
                spins = Watchdog.spin(spins);
            }
        }
        ctl.send(good, bad);
        ctl.drain();
        out.printf(java.util.Locale.ROOT, "%s: %d messages of %d B checked: %d good, %d bad%n", who, received, size, good, bad);
        return bad == 0;
    }

    /**
     * Latency mode, write: waits for the client's Write to land (its last byte becomes this round's tag) and Writes
     * the received bytes back into the client's buffer, {@code iters} times.
     */
    private boolean answerWrites(Request req, String who, NdkQp qp, NdkCq scq, MemorySegment region, NdkMr mr,
            CompletableFuture<Void> gone) {
        int last = req.size() - 1;
        NdkSge[] sge = {new NdkSge(region.address(), req.size(), mr.getLocalToken())};
        NdkResultEx[] res = Session.results(16);
        long outstanding = 0;
        for (long i = 0; i < req.iters(); i++) {
            byte tag = Loops.tag(i);
            long since = System.nanoTime();
            int spins = 0;
            while (Memory.byteAcquire(region, last) != tag) {
                if (gone.isDone() || System.nanoTime() - since > Sync.TIMEOUT_MS * 1_000_000) {
                    err.println("jndk perf: " + who + ": client left after " + i + " of " + req.iters() + " writes");
                    return false;
                }
                spins = Watchdog.spin(spins);
            }
            Checks.check(qp.write(null, sge, 1, req.va(), req.token(), 0), "Write");
            outstanding++;
            Watchdog w = new Watchdog("write answers");
            while (outstanding > 8 || outstanding > 0 && i == req.iters() - 1) {
                int k = Loops.reap(scq, res, "write completion");
                outstanding -= k;
                if (k == 0) {
                    w.idle();
                }
            }
        }
        out.printf(java.util.Locale.ROOT, "%s: %d writes of %d B answered%n", who, req.iters(), req.size());
        return true;
    }

    /** Fault injection for tests of the verification itself: one wrong byte in the middle of a buffer. */
    private void flip(MemorySegment seg) {
        if (flipOneByte) {
            long at = seg.byteSize() / 2;
            seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte) ~seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at));
        }
    }

    private static NdkSge[] sge(NdkSge[] s, MemorySegment seg, long offset, int length, NdkMr mr) {
        s[0].set(seg.address() + offset, length, mr.getLocalToken());
        return s;
    }

    /** Server-to-client acknowledgements (8 bytes: received count) and the report (16 bytes: good, bad). */
    private static final class Control {
        private final NdkQp qp;
        private final NdkCq cq;
        private final MemorySegment buf;
        private final NdkMr mr;
        private final NdkSge[] sge = {new NdkSge()};
        private final NdkResultEx[] res = Session.results(CONTROL_SLOTS);
        private int next, outstanding;

        Control(NdkQp qp, NdkCq cq, MemorySegment buf, NdkMr mr) {
            this.qp = qp;
            this.cq = cq;
            this.buf = buf;
            this.mr = mr;
        }

        /** Sends an acknowledgement ({@code second < 0}) or the report. */
        void send(long first, long second) {
            awaitRoom();
            long off = (long) next * CONTROL_SLOT_BYTES;
            PerfProtocol.putLong(buf, off, first);
            int len = PerfProtocol.ACK_LENGTH;
            if (second >= 0) {
                PerfProtocol.putLong(buf, off + 8, second);
                len = PerfProtocol.REPORT_LENGTH;
            }
            sge[0].set(buf.address() + off, len, mr.getLocalToken());
            post(sge);
            next = (next + 1) % CONTROL_SLOTS;
        }

        /** Posts a Send of {@code list} once fewer than {@link #CONTROL_SLOTS} Sends are outstanding. */
        void post(NdkSge[] list) {
            awaitRoom();
            Checks.check(qp.send(null, list, 1, 0), "Send");
            outstanding++;
        }

        private void awaitRoom() {
            long deadline = System.nanoTime() + Sync.TIMEOUT_MS * 1_000_000;
            int spins = 0;
            while (outstanding == CONTROL_SLOTS) {
                if (reap() == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("acknowledgements to the client do not complete");
                    }
                    spins = Watchdog.spin(spins);
                }
            }
        }

        int reap() {
            int k = Loops.reap(cq, res, "acknowledgement send");
            outstanding -= k;
            return k;
        }

        void drain() {
            long deadline = System.nanoTime() + Sync.TIMEOUT_MS * 1_000_000;
            int spins = 0;
            while (outstanding > 0) {
                if (reap() == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the report to the client does not complete");
                    }
                    spins = Watchdog.spin(spins);
                }
            }
        }
    }
}
