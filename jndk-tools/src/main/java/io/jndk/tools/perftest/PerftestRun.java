package io.jndk.tools.perftest;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of {@code ib_write_bw}, {@code ib_read_bw} or {@code ib_send_bw} in rdma_cm mode, as client (a host is
 * given) or server, speaking perftest 4.5's protocol: a control connection carrying the parameter exchange as Sends,
 * then one data connection carrying the measured traffic (docs/INTEROP-PERFTEST.md has the exact sequence).
 */
final class PerftestRun {
    /** What the command line asked for. */
    record Params(Verb verb, String host, int port, long size, int iters, boolean all, int duration, boolean gbits,
            int txDepth, int rxDepth, int outReads, boolean crc, String pcap, String bind) {}

    /** Waits on the peer during setup and between phases (a peer that stays silent this long has failed). */
    static final long STEP_TIMEOUT_MS = 30_000;
    /** A connection attempt refused this many times (the server is not listening yet) fails. */
    static final int CONNECT_ATTEMPTS = 20;
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    private final Params p;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean client;
    private final Deque<NdkClosable> owned = new ArrayDeque<>();
    private final List<NdkConnector> connected = new ArrayList<>();
    private NdkAdapter adapter;
    private NdkPd pd;
    private InetAddress local;
    private InetSocketAddress server;
    private PerftestControl ctl;
    private int cycleBuffer = PerftestWire.CYCLE_BUFFER;
    private int cacheLine = PerftestWire.CACHE_LINE;
    private int ord;
    private volatile boolean dataGone;

    PerftestRun(Params p, PrintStream out, PrintStream err) {
        this.p = p;
        this.out = out;
        this.err = err;
        this.client = p.host() != null;
    }

    private String tool() {
        return p.verb().tool;
    }

    /** Runs the test; 0 on success, 1 on any failure (the reason printed to the error stream). */
    int run() {
        boolean ok = false;
        int exit = Failure.Kind.OTHER.exit;
        try (Arena arena = Arena.ofShared()) {
            try {
                if (client) {
                    runClient(arena);
                } else {
                    runServer(arena);
                }
                ok = true;
            } catch (Failure | TimeoutException e) {
                out.flush();
                err.println(" " + tool() + ": " + e.getMessage());
                exit = e instanceof Failure f ? f.exit() : Failure.Kind.UNREACHABLE.exit;
            } catch (RuntimeException e) {
                out.flush();
                err.println(" " + tool() + ": " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            } finally {
                tearDown(ok);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(" " + tool() + ": interrupted");
            return 1;
        }
        out.flush();
        return ok ? 0 : exit;
    }

    // ---------------------------------------------------------------- setup

    private void open(InetAddress at) {
        Map<String, String> opts = Session.options(p.crc(), p.pcap());
        try {
            adapter = Ndk.open(NdkOpenParameters.of("iwarp", at).withOptions(opts));
        } catch (RuntimeException e) {
            throw new Failure("cannot open an iwarp adapter on " + at.getHostAddress() + ": " + e.getMessage());
        }
        pd = Sync.create("CreatePd", adapter::createPd);
        owned.push(pd);
    }

    private NdkMr register(MemorySegment seg) {
        List<NdkMr> l = new ArrayList<>();
        try {
            return Memory.register(pd, seg, l);
        } finally {
            for (NdkMr m : l) {
                owned.push(m);
            }
        }
    }

    private NdkCq cq(int depth) {
        NdkCq c = Session.cq(adapter, depth);
        owned.push(c);
        return c;
    }

    private NdkQp qp(NdkCq rcq, NdkCq icq, String name, int rqDepth, int iqDepth) {
        NdkQp q = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(rcq, icq, name, rqDepth, iqDepth, 1, 1, 0, cc, c, o));
        owned.push(q);
        return q;
    }

    private PerftestControl control(Arena arena) {
        MemorySegment rbuf = arena.allocate(PerftestControl.RECEIVE_BYTES, 64);
        MemorySegment sbuf = arena.allocate(PerftestControl.SEND_BYTES, 64);
        NdkMr rmr = register(rbuf);
        NdkMr smr = register(sbuf);
        NdkCq c = cq(16);
        NdkQp q = qp(c, c, "perftest control", 4, 4);
        return new PerftestControl(q, c, rbuf, rmr, sbuf, smr, client);
    }

    /** The data connection's resources: buffer, its region, the credit word and the QP. */
    private final class Data {
        final MemorySegment buf;
        final NdkMr mr;
        final MemorySegment credit;
        final NdkMr creditMr;
        final NdkCq icq;
        final NdkCq rcq;
        final NdkQp qp;
        final long maxSize;
        final int qpn = ThreadLocalRandom.current().nextInt(2, 0x400);
        final int psn = ThreadLocalRandom.current().nextInt(0x1000000);

        Data(Arena arena, int rqDepth, int iqDepth) {
            maxSize = p.all() ? 1L << 23 : p.size();
            long len = 2 * Math.max(maxSize, PerftestWire.CYCLE_BUFFER);
            buf = arena.allocate(len, 4096);
            for (long i = 0; i < len; i += 8) {
                buf.set(ValueLayout.JAVA_LONG_UNALIGNED, i, 0x6a6e646b00000000L | i);
            }
            mr = register(buf);
            credit = arena.allocate(64, 64);
            creditMr = register(credit);
            icq = cq(iqDepth + 16);
            rcq = cq(rqDepth + 16);
            qp = qp(rcq, icq, "perftest data", Math.max(1, rqDepth), Math.max(1, iqDepth));
        }

        /** What this side advertises: the data buffer for Write and Read, the credit word for Send (as perftest). */
        Dest dest() {
            boolean send = p.verb() == Verb.SEND;
            int rkey = send ? creditMr.getRemoteToken() : mr.getRemoteToken();
            long vaddr = send ? credit.address() : buf.address();
            return new Dest(0, p.verb() == Verb.READ ? Math.max(1, ord) : 1, qpn, psn, rkey, vaddr, gid(local), 0, 0);
        }

        int creditValue() {
            return (int) INT_LE.getAcquire(credit, 0L);
        }

        void setCredit(int v) {
            INT_LE.setRelease(credit, 0L, v);
        }
    }

    /** An IPv4-mapped IPv6 address as the GID (iWARP has none; perftest shows siw's MAC-based one). */
    static byte[] gid(InetAddress a) {
        byte[] g = new byte[16];
        if (a instanceof Inet4Address) {
            g[10] = (byte) 0xFF;
            g[11] = (byte) 0xFF;
            System.arraycopy(a.getAddress(), 0, g, 12, 4);
        } else if (a != null) {
            System.arraycopy(a.getAddress(), 0, g, 0, 16);
        }
        return g;
    }

    /**
     * perftest's order after the close exchange: the client disconnects the data connection, the server then closes
     * the control connection, and the client closes its end last. Closing faster than that can catch a siw peer
     * before it has completed its last Send (siw flushes the Send it is still working on with a local QP operation
     * error, and perftest then reports "Failed to close connection").
     */
    private void orderlyClose(NdkConnector dataConn, NdkConnector ctlConn) throws InterruptedException {
        if (client) {
            disconnect(dataConn);
            waitFor(ctl::peerGone, 3000);
            disconnect(ctlConn);
        } else {
            waitFor(() -> dataGone || ctl.peerGone(), 5000);
            disconnect(dataConn);
            disconnect(ctlConn);
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier done, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private void disconnect(NdkConnector c) {
        if (c != null && connected.remove(c)) {
            try {
                Sync.get(Sync.start((rc, x) -> c.disconnect(rc, x)), "Disconnect");
            } catch (RuntimeException e) {
                // already gone: nothing to do
            }
        }
    }

    private void tearDown(boolean ok) {
        for (NdkConnector c : connected.reversed()) {
            try {
                Sync.get(Sync.start((rc, x) -> c.disconnect(rc, x)), "Disconnect");
            } catch (RuntimeException e) {
                // already gone: nothing to do
            }
        }
        while (!owned.isEmpty()) {
            NdkClosable o = owned.pop();
            try {
                Sync.close(o);
            } catch (RuntimeException e) {
                ok = false;
            }
        }
        if (ok && adapter != null) {
            adapter.close();
        }
    }

    // ---------------------------------------------------------------- parameter exchange

    private byte[] xchg(byte[] mine, String what) throws TimeoutException {
        return ctl.exchange(mine, STEP_TIMEOUT_MS, what);
    }

    /** Steps 1-4: version, cycle buffer, cache line, MTU. */
    private void exchangeSystem() throws TimeoutException {
        String v = PerftestWire.parseVersion(xchg(PerftestWire.version(PerftestWire.VERSION), "version"));
        double n = PerftestWire.versionNumber(v);
        if (n < 0) {
            throw new Failure("the peer's version message '" + v + "' is not a perftest version");
        }
        if (n < 5.32) {
            throw new Failure("the peer speaks perftest version " + v + "; this side needs 5.32 or newer");
        }
        if (n >= 6.28) {
            err.println(" Warning: the peer speaks perftest version " + v + ", which also negotiates parameters;"
                    + " this side speaks " + PerftestWire.VERSION);
        }
        int cyc = PerftestWire.parseInt32(xchg(PerftestWire.int32(PerftestWire.CYCLE_BUFFER), "cycle buffer"), "cycle buffer");
        int cl = PerftestWire.parseInt32(xchg(PerftestWire.int32(PerftestWire.CACHE_LINE), "cache line"), "cache line");
        if (cyc > 0 && (cyc & (cyc - 1)) == 0) {
            cycleBuffer = Math.min(cycleBuffer, cyc);
        }
        if (cl > 0 && (cl & (cl - 1)) == 0 && cl <= 4096) {
            cacheLine = Math.max(cacheLine, cl);
        }
        PerftestWire.parseMtu(xchg(PerftestWire.mtu(PerftestWire.MTU_ENUM), "MTU"));
    }

    private Dest handshake(Dest mine, String what) throws TimeoutException {
        return Dest.decode(xchg(mine.encode(), what));
    }

    // ---------------------------------------------------------------- client

    private void runClient(Arena arena) throws TimeoutException, InterruptedException {
        InetAddress host;
        try {
            host = InetAddress.getByName(p.host());
        } catch (IOException e) {
            throw new Failure("unknown host " + p.host());
        }
        server = new InetSocketAddress(host, p.port());
        try {
            local = p.bind() != null ? InetAddress.getByName(p.bind()) : Net.localAddressFor(host);
        } catch (IOException e) {
            throw new Failure("no local address reaches " + p.host() + " (" + e.getMessage() + ")");
        }
        open(local);
        ctl = control(arena);
        ctl.postReceive();
        connect(ctl.qp(), 0, 0, "control", 1, ctl::markPeerGone);
        NdkConnector ctlConn = connected.getLast();
        exchangeSystem();
        int n = p.duration() > 0 ? 0 : p.iters();
        int tx = Math.min(p.txDepth(), n > 0 ? n : p.txDepth());
        int rx = Math.min(p.rxDepth(), n > 0 ? n : p.rxDepth());
        handshake(Dest.ZERO, "pre-connect handshake");
        Data d = new Data(arena, 1, tx);
        int reads = p.verb() == Verb.READ ? p.outReads() : 0;
        ord = connect(d.qp, reads, reads, "data", CONNECT_ATTEMPTS, () -> dataGone = true);
        NdkConnector dataConn = connected.getLast();
        handshake(Dest.ZERO, "connected handshake");
        Dest mine = d.dest();
        Dest remote = handshake(mine, "destination");
        handshake(mine, "destination");
        handshake(mine, "destination");
        printHeader(tx, rx);
        printAddresses(mine, remote);
        out.println(PerftestWire.columns(p.gbits()));
        long[] sizes = p.all() ? PerftestWire.allSizes() : new long[] {p.size()};
        if (p.verb() == Verb.SEND) {
            for (long size : sizes) {
                handshake(mine, "start");
                d.setCredit(0);
                Report r = sendAll(d, remote, size, tx, rx);
                out.println(PerftestWire.row(r));
                if (p.all()) {
                    awaitCredit(d, r.iters());
                    handshake(mine, "end of size");
                }
            }
        } else {
            Report last = null;
            for (long size : sizes) {
                last = initiate(d, remote, size, tx);
                out.println(PerftestWire.row(last));
            }
            handshake(mine, "end of test");
            for (byte[] m : last.encode()) {
                xchg(m, "report");
            }
        }
        out.println(PerftestWire.LINE);
        if (dataGone) {
            throw new Failure("the data connection was closed by the peer during the test");
        }
        handshake(mine, "close");
        orderlyClose(dataConn, ctlConn);
    }

    /** Connects with retries while the peer refuses (it re-listens between its two connections). */
    private int connect(NdkQp qp, int ird, int ordWanted, String what, int attempts, Runnable onDisconnect)
            throws InterruptedException {
        String at = p.host() + ":" + p.port();
        NdkConnector conn = Sync.create("CreateConnector", adapter::createConnector);
        owned.push(conn);
        for (int attempt = 1; ; attempt++) {
            CompletableFuture<Integer> f = Sync.start((rc, c) -> conn.connect(qp, new InetSocketAddress(local, 0), server, ird,
                    ordWanted, null, rc, c));
            int st;
            try {
                st = f.get(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                throw new Failure(Failure.Kind.UNREACHABLE, "the " + what + " connection to " + at + " got no answer within "
                    + STEP_TIMEOUT_MS / 1000 + " s (is a server running there? does a firewall drop the port?)");
            }
            if (st == NtStatus.STATUS_SUCCESS) {
                break;
            }
            if (st == NtStatus.STATUS_CONNECTION_REFUSED && attempt < attempts) {
                Thread.sleep(Math.min(500, 50L * attempt)); // the server re-listens: a back-off, not a synchronisation
                continue;
            }
            Failure why = Failure.connect(at, st, null, "start the server first: ./jndk " + tool() + " -R");
            throw new Failure(why.kind(), "Unable to connect the " + what + " connection: " + why.getMessage());
        }
        IntRef outbound = new IntRef();
        Checks.check(conn.getConnectionData(null, outbound, null, new IntRef(0)), "GetConnectionData");
        Sync.request("CompleteConnect", (rc, c) -> conn.completeConnect(x -> onDisconnect.run(), null, rc, c));
        connected.add(conn);
        return outbound.value;
    }

    /** Write or Read: up to {@code depth} in flight (Reads also within the negotiated ORD), every one signalled. */
    private Report initiate(Data d, Dest remote, long size, int depth) {
        boolean read = p.verb() == Verb.READ;
        if (read) {
            depth = Math.max(1, Math.min(depth, ord));
        }
        int n = p.duration() > 0 ? 0 : p.iters();
        Timing t = new Timing(n);
        NdkSge[] sge = {new NdkSge()};
        NdkResultEx[] res = Session.results(Math.min(depth, 64));
        long posted = 0, done = 0;
        long end = p.duration() > 0 ? System.nanoTime() + p.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long idleSince = System.nanoTime();
        int spins = 0;
        t.start();
        while (true) {
            boolean more = n > 0 ? posted < n : System.nanoTime() < end;
            if (!more && done == posted) {
                break;
            }
            while (more && posted - done < depth) {
                long off = PerftestWire.offset(posted, size, cycleBuffer, cacheLine);
                sge[0].set(d.buf.address() + off, (int) size, d.mr.getLocalToken());
                int st = read ? d.qp.read(null, sge, 1, remote.vaddr() + off, remote.rkey(), 0)
                        : d.qp.write(null, sge, 1, remote.vaddr() + off, remote.rkey(), 0);
                Checks.check(st, read ? "Read" : "Write");
                posted++;
                more = n > 0 ? posted < n : System.nanoTime() < end;
            }
            int k = d.icq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                Checks.check(res[i], read ? "RDMA Read" : "RDMA Write");
                t.completed(done++);
            }
            if (k > 0) {
                idleSince = System.nanoTime();
            } else {
                stalled(idleSince, done, posted);
                spins = Watchdog.spin(spins);
            }
        }
        return t.report(size, done, depth, p.gbits());
    }

    /** Send with perftest's credits: at most rx-depth Sends beyond the count the server last wrote into our word. */
    private Report sendAll(Data d, Dest remote, long size, int depth, int rx) {
        int n = p.duration() > 0 ? 0 : p.iters();
        Timing t = new Timing(n);
        NdkSge[] sge = {new NdkSge()};
        NdkResultEx[] res = Session.results(Math.min(depth, 64));
        long posted = 0, done = 0;
        long end = p.duration() > 0 ? System.nanoTime() + p.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long idleSince = System.nanoTime();
        int spins = 0;
        t.start();
        while (true) {
            boolean more = n > 0 ? posted < n : System.nanoTime() < end;
            if (!more && done == posted) {
                break;
            }
            boolean progress = false;
            while (more && posted - done < depth && posted - (d.creditValue() & 0xFFFFFFFFL) < rx) {
                long off = PerftestWire.offset(posted, size, cycleBuffer, cacheLine);
                sge[0].set(d.buf.address() + off, (int) size, d.mr.getLocalToken());
                Checks.check(d.qp.send(null, sge, 1, 0), "Send");
                posted++;
                progress = true;
                more = n > 0 ? posted < n : System.nanoTime() < end;
            }
            int k = d.icq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                Checks.check(res[i], "Send");
                t.completed(done++);
            }
            if (k > 0 || progress) {
                idleSince = System.nanoTime();
            } else {
                stalled(idleSince, done, posted);
                spins = Watchdog.spin(spins);
            }
        }
        return t.report(size, done, depth, p.gbits());
    }

    /** With -a the next size resets the credit: first the server's last credit write (its count) must have landed. */
    private void awaitCredit(Data d, long count) {
        long deadline = System.nanoTime() + STEP_TIMEOUT_MS * 1_000_000;
        int spins = 0;
        while ((d.creditValue() & 0xFFFFFFFFL) < count && p.duration() == 0) {
            if (System.nanoTime() > deadline) {
                throw new Failure("the server's last credit (" + count + ") did not arrive");
            }
            spins = Watchdog.spin(spins);
        }
    }

    private void stalled(long idleSince, long done, long posted) {
        if (dataGone) {
            throw new Failure("the peer closed the data connection after " + done + " completions");
        }
        if (System.nanoTime() - idleSince > STEP_TIMEOUT_MS * 1_000_000) {
            throw new Failure("no progress for " + STEP_TIMEOUT_MS / 1000 + " s (" + done + " of " + posted + " completed)");
        }
    }

    // ---------------------------------------------------------------- server

    private void runServer(Arena arena) throws TimeoutException, InterruptedException {
        try {
            local = InetAddress.getByName(p.bind() != null ? p.bind() : "127.0.0.1");
        } catch (IOException e) {
            throw new Failure("unknown address " + p.bind());
        }
        open(local);
        LinkedBlockingQueue<NdkConnector> incoming = new LinkedBlockingQueue<>();
        NdkListener listener = Sync.create("CreateListener",
                (cc, c, o) -> adapter.createListener((x, conn) -> incoming.add(conn), null, cc, c, o));
        owned.push(listener);
        int s = Sync.get(Sync.start((rc, c) -> listener.listen(new InetSocketAddress(local, p.port()), rc, c)), "Listen");
        if (s != NtStatus.STATUS_SUCCESS) {
            throw Failure.listen(local.getHostAddress() + ":" + p.port(), s);
        }
        out.println();
        out.println("************************************");
        out.println("* Waiting for client to connect... *");
        out.println("************************************");
        out.flush();
        ctl = control(arena);
        ctl.postReceive();
        NdkConnector cc = incoming.take();
        owned.push(cc);
        List<CompletableFuture<Integer>> ctlAccept = new ArrayList<>();
        accept(cc, ctl.qp(), "control", ctl::markPeerGone, ctlAccept);
        awaitAccepted(ctlAccept, "control"); // the client's first message completes it
        exchangeSystem();
        int n = p.duration() > 0 ? 0 : p.iters();
        int tx = Math.min(p.txDepth(), n > 0 ? n : p.txDepth());
        int rx = Math.min(p.rxDepth(), n > 0 ? n : p.rxDepth());
        boolean send = p.verb() == Verb.SEND;
        Data d = new Data(arena, send ? rx : 1, 16);
        NdkSge[] sge = {new NdkSge()};
        if (send) {
            // Every receive covers the largest size from the buffer's start (perftest's receives overlap too).
            sge[0].set(d.buf.address(), (int) d.maxSize, d.mr.getLocalToken());
            for (int i = 0; i < rx; i++) {
                Checks.check(d.qp.receive(null, sge, 1), "Receive");
            }
        }
        handshake(Dest.ZERO, "pre-connect handshake");
        NdkConnector dc = incoming.poll(STEP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (dc == null) {
            throw new Failure("the client did not open its data connection within " + STEP_TIMEOUT_MS / 1000 + " s");
        }
        owned.push(dc);
        List<CompletableFuture<Integer>> dataAccept = new ArrayList<>();
        ord = accept(dc, d.qp, "data", () -> dataGone = true, dataAccept);
        handshake(Dest.ZERO, "connected handshake");
        Dest mine = d.dest();
        Dest remote = handshake(mine, "destination");
        handshake(mine, "destination");
        handshake(mine, "destination");
        printHeader(tx, rx);
        out.println(" Waiting for client rdma_cm QP to connect");
        out.println(PerftestWire.LINE);
        printAddresses(mine, remote);
        out.println(PerftestWire.columns(p.gbits()));
        out.flush();
        if (send) {
            long[] sizes = p.all() ? PerftestWire.allSizes() : new long[] {p.size()};
            for (long size : sizes) {
                handshake(mine, "start");
                Report r = receiveAll(d, remote, size, rx);
                out.println(PerftestWire.row(r));
                out.flush();
                if (p.all()) {
                    handshake(mine, "end of size");
                }
            }
        } else {
            long wait = p.duration() > 0 ? (p.duration() + 120) * 1000L : 600_000L;
            ctl.exchange(mine.encode(), wait, "end of test");
            long size = PerftestWire.parseU64(xchg(PerftestWire.u64(0), "report size"), "report size");
            long iters = PerftestWire.parseU64(xchg(PerftestWire.u64(0), "report iterations"), "report iterations");
            double peak = PerftestWire.parseF64(xchg(PerftestWire.f64(0), "report peak"), "report peak");
            double avg = PerftestWire.parseF64(xchg(PerftestWire.f64(0), "report average"), "report average");
            double rate = PerftestWire.parseF64(xchg(PerftestWire.f64(0), "report message rate"), "report message rate");
            out.println(PerftestWire.row(new Report(size, iters, peak, avg, rate)));
        }
        out.println(PerftestWire.LINE);
        awaitAccepted(dataAccept, "data");
        handshake(mine, "close");
        orderlyClose(dc, cc);
    }

    /**
     * Accepts with the requester's read limits (as perftest's rdma_accept does) and returns the outbound limit. The
     * Accept's outcome is not awaited here: an MPA responder's connection completes with the initiator's first frame,
     * and perftest's client sends nothing on its data connection before the control exchange that follows; the
     * outcome is checked before the close ({@link #awaitAccepted}).
     */
    private int accept(NdkConnector conn, NdkQp qp, String what, Runnable onDisconnect, List<CompletableFuture<Integer>> outcome) {
        IntRef in = new IntRef(), outb = new IntRef();
        Checks.check(conn.getConnectionData(in, outb, null, new IntRef(0)), "GetConnectionData");
        int ird = in.value, o = outb.value;
        outcome.add(Sync.start((rc, c) -> conn.accept(qp, ird, o, null, x -> onDisconnect.run(), null, rc, c)));
        connected.add(conn);
        return o;
    }

    private static void awaitAccepted(List<CompletableFuture<Integer>> outcome, String what) {
        for (CompletableFuture<Integer> f : outcome) {
            Sync.check("Accept (" + what + ")", Sync.get(f, "Accept (" + what + ")"));
        }
    }

    /**
     * Send receiver: re-posts each receive at once and, every rx-depth/3 messages and at the last, RDMA-Writes the
     * received count (a 4-byte little-endian word, as perftest on x86) into the client's credit word.
     */
    private Report receiveAll(Data d, Dest remote, long size, int rx) throws TimeoutException {
        int n = p.duration() > 0 ? 0 : p.iters();
        int creditEvery = Math.max(1, rx / 3);
        Timing t = new Timing(n);
        NdkSge[] rsge = {new NdkSge(d.buf.address(), (int) d.maxSize, d.mr.getLocalToken())};
        NdkSge[] csge = {new NdkSge(d.credit.address(), 4, d.creditMr.getLocalToken())};
        NdkResultEx[] res = Session.results(64);
        long received = 0, wrongLength = 0;
        int creditsOut = 0;
        long idleSince = System.nanoTime();
        int spins = 0;
        t.start();
        while (n > 0 ? received < n : true) {
            int k = d.rcq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                NdkResultEx r = res[i];
                Checks.check(r, "receive of message " + (received + 1));
                if (r.bytesTransferred != size) {
                    wrongLength++;
                }
                Checks.check(d.qp.receive(null, rsge, 1), "Receive");
                t.completed(received++);
                if (received % creditEvery == 0 || received == n) {
                    d.setCredit((int) received);
                    Checks.check(d.qp.write(null, csge, 1, remote.vaddr(), remote.rkey(), 0), "credit Write");
                    creditsOut++;
                }
            }
            int c = d.icq.getCqResultsEx(res, res.length);
            for (int i = 0; i < c; i++) {
                Checks.check(res[i], "credit Write");
            }
            creditsOut -= c;
            if (k > 0) {
                idleSince = System.nanoTime();
            } else {
                if (n == 0) {
                    // Duration mode: receive (and return credits) until the client's close message arrives, which
                    // it sends once its time is up and its Sends have completed; the close exchange then uses it.
                    byte[] m = ctl.tryReceive();
                    if (m != null) {
                        ctl.pushBack(m);
                        break;
                    }
                    idleSince = t.elapsedSeconds() < p.duration() + 60 ? System.nanoTime() : idleSince;
                }
                stalled(idleSince, received, n);
                spins = Watchdog.spin(spins);
            }
        }
        long deadline = System.nanoTime() + STEP_TIMEOUT_MS * 1_000_000;
        while (creditsOut > 0) {
            int c = d.icq.getCqResultsEx(res, res.length);
            for (int i = 0; i < c; i++) {
                Checks.check(res[i], "credit Write");
            }
            creditsOut -= c;
            if (c == 0 && System.nanoTime() > deadline) {
                throw new TimeoutException("credit Writes did not complete");
            }
        }
        if (wrongLength > 0) {
            throw new Failure(wrongLength + " of " + received + " messages were not " + size
                    + " bytes long: run both sides with the same -s");
        }
        return t.report(size, received, rx, p.gbits());
    }

    // ---------------------------------------------------------------- output

    private void printHeader(int tx, int rx) {
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

    private void printAddresses(Dest mine, Dest remote) {
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
