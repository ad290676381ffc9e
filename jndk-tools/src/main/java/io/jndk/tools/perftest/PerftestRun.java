package io.jndk.tools.perftest;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Listening;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.perftest.PerftestCommand.Output;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of a perftest tool in rdma_cm mode, as client (a host is given) or server, speaking perftest 4.5's protocol:
 * a control connection carrying the parameter exchange as Sends, then one data connection per QP carrying the measured
 * traffic (docs/INTEROP-PERFTEST.md has the exact sequences). This class holds what both sides and all six tools share:
 * the adapter and what is opened on it, the control exchange, the data endpoints, connecting and accepting, the
 * destination exchange and the orderly close.
 */
abstract class PerftestRun {
    /** What the command line asked for. */
    record Params(Verb verb, boolean latency, String host, int port, long size, int iters, boolean all, int duration,
            boolean gbits, int txDepth, int rxDepth, int outReads, boolean crc, String pcap, String bind, boolean duplex,
            int qps, Output output, boolean infinite, int inline, boolean noPeak, String transport,
            java.util.Map<String, String> options, boolean rdmaCm) {}

    /** Waits on the peer during setup and between phases (a peer that stays silent this long has failed). */
    static final long STEP_TIMEOUT_MS = 30_000;
    /** A connection attempt refused this many times (the server is not listening yet) fails. */
    static final int CONNECT_ATTEMPTS = 20;
    static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    final Params p;
    final PrintStream out;
    final PrintStream err;
    final boolean client;
    /**
     * Whether a Send test paces its Sends by the receiver's credits, as perftest does on iWARP only (no
     * receiver-not-ready retry there); over RoCE the sender relies on RNR NAKs and retries, as perftest on rxe.
     */
    final boolean credits;
    /**
     * perftest's default mode (no {@code -R}, roce only): the exchange goes over a TCP connection and the data QPs
     * connect without a CM, on QP numbers and PSNs reserved before the exchange ({@code NdkConnector.reserveOutOfBand}).
     */
    final boolean tcp;
    final Deque<NdkClosable> owned = new ArrayDeque<>();
    final List<NdkConnector> connected = new ArrayList<>();
    /** The Accepts of the data connections (their outcome is checked before the close, see {@link #accept}). */
    final List<CompletableFuture<Integer>> dataAccepts = new ArrayList<>();
    NdkAdapter adapter;
    NdkPd pd;
    InetAddress local;
    InetSocketAddress server;
    Listening incoming;
    PerftestChannel ctl;
    NdkConnector ctlConn;
    int cycleBuffer = PerftestWire.CYCLE_BUFFER;
    int cacheLine = PerftestWire.CACHE_LINE;
    /** The path MTU the peer's MTU message named, in bytes (0 until then, or if it named none). */
    int peerMtu;
    int ord;
    volatile boolean dataGone;

    PerftestRun(Params p, PrintStream out, PrintStream err) {
        this.p = p;
        this.out = out;
        this.err = err;
        this.client = p.host() != null;
        this.credits = !"roce".equals(p.transport());
        this.tcp = !p.rdmaCm();
    }

    /** The side's part of the test, on resources it allocates from {@code arena}. */
    abstract void body(Arena arena) throws TimeoutException, InterruptedException;

    String tool() {
        return p.verb().tool(p.latency());
    }

    /** Whether perftest's full output is wanted (not {@code --output}'s one number). */
    boolean full() {
        return p.output() == Output.FULL;
    }

    /** The iterations per QP, 0 in duration mode. */
    int iterations() {
        return p.duration() > 0 ? 0 : p.iters();
    }

    /** Runs the test; 0 on success, else the exit status of the failure (the reason printed to the error stream). */
    int run() {
        boolean ok = false;
        int exit = Failure.Kind.OTHER.exit;
        try (Arena arena = Arena.ofShared()) {
            try {
                body(arena);
                ok = true;
            } catch (Failure | TimeoutException e) {
                out.flush();
                err.println(" " + tool() + ": " + e.getMessage());
                exit = e instanceof Failure f ? f.exit() : Failure.Kind.UNREACHABLE.exit;
            } catch (RuntimeException e) {
                out.flush();
                Failure f = Failure.of(e);
                err.println(" " + tool() + ": " + f.getMessage());
                exit = f.exit();
            } finally {
                tearDown(ok);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(" " + tool() + ": interrupted");
            return Failure.Kind.OTHER.exit;
        }
        out.flush();
        return ok ? 0 : exit;
    }

    // ---------------------------------------------------------------- setup

    void open(InetAddress at) {
        java.util.Map<String, String> options = new java.util.HashMap<>(p.options());
        if (!credits) {
            options.putIfAbsent("rnr.retry", "7"); // as perftest asks rdma_cm for: a Send beyond the receives waits
        }
        adapter = Session.open(p.transport(), at, Session.options(p.crc(), p.pcap(), options));
        pd = Sync.create("CreatePd", adapter::createPd);
        owned.push(pd);
    }

    NdkMr register(MemorySegment seg) {
        List<NdkMr> l = new ArrayList<>();
        try {
            return Memory.register(pd, seg, l);
        } finally {
            for (NdkMr m : l) {
                owned.push(m);
            }
        }
    }

    NdkCq cq(int depth) {
        NdkCq c = Session.cq(adapter, depth);
        owned.push(c);
        return c;
    }

    NdkQp qp(NdkCq rcq, NdkCq icq, String name, int rqDepth, int iqDepth, int inline) {
        NdkQp q = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(rcq, icq, name, rqDepth, iqDepth, 1, 1, inline, cc, c,
                o));
        owned.push(q);
        return q;
    }

    PerftestControl control(Arena arena) {
        MemorySegment rbuf = arena.allocate(PerftestControl.RECEIVE_BYTES, 64);
        MemorySegment sbuf = arena.allocate(PerftestControl.SEND_BYTES, 64);
        NdkMr rmr = register(rbuf);
        NdkMr smr = register(sbuf);
        NdkCq c = cq(16);
        NdkQp q = qp(c, c, "perftest control", 4, 4, 0);
        return new PerftestControl(q, c, rbuf, rmr, sbuf, smr, client);
    }

    /**
     * One QP's resources: its buffer (two halves of the largest size, at least the cycle buffer each), its region, the
     * credit word (Send) and the QP with its two CQs.
     */
    final class Data {
        final int index;
        final MemorySegment buf;
        final NdkMr mr;
        final MemorySegment credit;
        final NdkMr creditMr;
        final NdkCq icq;
        final NdkCq rcq;
        final NdkQp qp;
        final long maxSize;
        final long half;
        /** The QP number and starting PSN this side advertises (the device's own ones in the TCP mode). */
        int qpn;
        int psn = ThreadLocalRandom.current().nextInt(0x1000000);
        /** The TCP mode: the connector whose out-of-band numbers this QP uses, and those numbers. */
        NdkConnector outOfBand;
        io.jndk.api.NdkOutOfBandEndpoint reserved;
        final NdkSge[] sge = {new NdkSge()};

        Data(Arena arena, int index, int rqDepth, int iqDepth) {
            this.index = index;
            this.qpn = qpnBase + index;
            maxSize = p.all() ? 1L << 23 : p.size();
            half = Math.max(maxSize, PerftestWire.CYCLE_BUFFER);
            long len = 2 * half;
            buf = arena.allocate(len, 4096);
            if (p.latency() && p.verb() == Verb.WRITE) {
                buf.fill((byte) 0); // the ping-pong's tags land in zeroed memory
            } else {
                for (long i = 0; i < len; i += 8) {
                    buf.set(ValueLayout.JAVA_LONG_UNALIGNED, i, 0x6a6e646b00000000L | i);
                }
            }
            mr = register(buf);
            credit = arena.allocate(64, 64);
            creditMr = register(credit);
            icq = cq(iqDepth + 16);
            rcq = cq(rqDepth + 16);
            qp = qp(rcq, icq, "perftest data " + index, Math.max(1, rqDepth), Math.max(1, iqDepth),
                    Math.min(p.inline(), adapter.info().maxInlineDataSize()));
        }

        /**
         * What this side advertises: the data buffer for the bandwidth Writes and Reads, the credit word for a Send
         * test with credits (as perftest; without them the data buffer), the second half of the buffer for the
         * latency tests (where the peer's Writes land and this side watches for their tags).
         */
        Dest dest() {
            boolean send = p.verb() == Verb.SEND && !p.latency() && credits;
            int rkey = send ? creditMr.getRemoteToken() : mr.getRemoteToken();
            long vaddr = send ? credit.address() : p.latency() ? buf.address() + half : buf.address();
            int reads = p.verb() != Verb.READ ? 1 : tcp ? p.outReads() : Math.max(1, ord);
            return new Dest(0, reads, qpn, psn, rkey, vaddr, reserved != null ? reserved.gid() : gid(local), 0, 0);
        }

        int creditValue() {
            return (int) INT_LE.getAcquire(credit, 0L);
        }

        void setCredit(int v) {
            INT_LE.setRelease(credit, 0L, v);
        }

        /** Where the credit Writes to the peer take their value from (the word at 0 is the peer's to write). */
        static final long OUTGOING = 8;

        void setOutgoingCredit(int v) {
            INT_LE.setRelease(credit, OUTGOING, v);
        }

        /** Posts {@code n} receives, each covering the largest size from the buffer's start (perftest's overlap too). */
        void postReceives(int n) {
            sge[0].set(buf.address(), (int) maxSize, mr.getLocalToken());
            for (int i = 0; i < n; i++) {
                Checks.check(qp.receive(index, sge, 1), "Receive");
            }
        }
    }

    /** QP numbers as printed (perftest's are the device's; jndk numbers its QPs from a random base). */
    private final int qpnBase = ThreadLocalRandom.current().nextInt(1, 0x3c0);

    /** {@code n} data endpoints, each with {@code rq} receive and {@code iq} initiator entries. */
    List<Data> data(Arena arena, int n, int rq, int iq) {
        List<Data> d = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            d.add(new Data(arena, i, rq, iq));
        }
        return d;
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

    // ---------------------------------------------------------------- connections

    /** The client's control connection: adapter, control QP, connect, the four system exchanges. */
    void clientControl(Arena arena) throws InterruptedException, TimeoutException {
        InetAddress host = Net.resolve(p.host());
        server = new InetSocketAddress(host, p.port());
        try {
            local = p.bind() != null ? Net.resolve(p.bind()) : Net.localAddressFor(host);
        } catch (IOException e) {
            throw new Failure(Failure.Kind.UNREACHABLE, "no local address reaches " + p.host() + " (" + e.getMessage() + ")");
        }
        open(local);
        if (tcp) {
            ctl = PerftestTcpControl.connect(hostAddress(local) ? new InetSocketAddress(local, 0) : null, server,
                    STEP_TIMEOUT_MS, CONNECT_ATTEMPTS);
        } else {
            PerftestControl c = control(arena);
            ctl = c;
            c.postReceive();
            connect(c.qp(), 0, 0, "control", 1, c::markPeerGone);
            ctlConn = connected.getLast();
        }
        exchangeSystem();
    }

    /** The server's control connection: listen, the banner, accept, the four system exchanges. */
    void serverControl(Arena arena) throws InterruptedException, TimeoutException {
        local = Net.resolve(p.bind() != null ? p.bind() : "127.0.0.1");
        open(local);
        if (!tcp) {
            incoming = new Listening(adapter);
            owned.push(incoming.listener());
            incoming.listen(new InetSocketAddress(local, p.port()));
        }
        if (full()) {
            out.println();
            out.println("************************************");
            out.println("* Waiting for client to connect... *");
            out.println("************************************");
            out.flush();
        }
        if (tcp) {
            // perftest's server listens on every address; this one on the bound address (default 127.0.0.1)
            long wait = p.infinite() ? java.util.concurrent.TimeUnit.DAYS.toMillis(1) : 600_000L;
            InetAddress tcpAt = hostAddress(local) ? local : InetAddress.getLoopbackAddress();
            ctl = PerftestTcpControl.accept(new InetSocketAddress(tcpAt, p.port()), wait);
            exchangeSystem();
            return;
        }
        PerftestControl c = control(arena);
        ctl = c;
        c.postReceive();
        NdkConnector cc = incoming.take();
        owned.push(cc);
        List<CompletableFuture<Integer>> ctlAccept = new ArrayList<>();
        accept(cc, c.qp(), c::markPeerGone, ctlAccept);
        awaitAccepted(ctlAccept, "control"); // the client's first message completes it
        ctlConn = cc;
        exchangeSystem();
    }

    /** rdma_cm mode: the empty handshake before the data connections (perftest's TCP exchange has none). */
    void preConnect() throws TimeoutException {
        if (!tcp) {
            handshake(Dest.ZERO, "pre-connect handshake");
        }
    }

    /**
     * The data connections and the destination exchange, in each mode's order: rdma_cm connects first and then
     * exchanges; the TCP mode reserves each QP's numbers, exchanges them and then connects each QP to its peer's
     * (both sides alike: neither listens).
     */
    List<Dest> connectAndExchange(List<Data> data) throws InterruptedException, TimeoutException {
        if (!tcp) {
            connectData(data);
            return exchangeDestinations(data);
        }
        for (Data d : data) {
            NdkConnector c = Sync.create("CreateConnector", adapter::createConnector);
            owned.push(c);
            io.jndk.api.Ref<io.jndk.api.NdkOutOfBandEndpoint> r = new io.jndk.api.Ref<>();
            Checks.check(c.reserveOutOfBand(r), "ReserveOutOfBand");
            d.outOfBand = c;
            d.reserved = r.get();
            d.qpn = d.reserved.qpn();
            d.psn = d.reserved.psn();
        }
        List<Dest> remote = exchangeDestinations(data);
        int reads = p.verb() == Verb.READ ? p.outReads() : 0;
        int mtuBytes = Math.min(PerftestWire.mtuBytes(PerftestWire.MTU_ENUM), peerMtu == 0 ? 4096 : peerMtu);
        for (int i = 0; i < data.size(); i++) {
            Data d = data.get(i);
            Dest theirs = remote.get(i);
            InetAddress at = addressOfGid(theirs.gid());
            int peerReads = p.verb() == Verb.READ ? Math.max(1, Math.min(reads, theirs.outReads())) : 0;
            io.jndk.api.NdkOutOfBandEndpoint peer = new io.jndk.api.NdkOutOfBandEndpoint(theirs.qpn() & 0xFFFFFF,
                    theirs.psn() & 0xFFFFFF, theirs.gid(), mtuBytes);
            NdkConnector c = d.outOfBand;
            int st = Sync.get(Sync.start((rc, x) -> c.connectOutOfBand(d.qp, new InetSocketAddress(local, 0),
                    new InetSocketAddress(at, p.port()), peer, peerReads, peerReads, rc, x)), "ConnectOutOfBand");
            Sync.check("ConnectOutOfBand", st);
            IntRef outbound = new IntRef();
            Checks.check(c.getConnectionData(null, outbound, null, new IntRef(0)), "GetConnectionData");
            ord = outbound.value;
            Sync.request("CompleteConnect", (rc, x) -> c.completeConnect(e -> dataGone = true, null, rc, x));
            connected.add(c);
        }
        return remote;
    }

    /**
     * Whether {@code a} is an address of this host's own interfaces (the TCP exchange binds to it). A frame link's
     * address (roce {@code link=dgram:...}) is jndk's station of its own, not the host's: the exchange then goes from
     * the host's default address, and a server listens on the loopback address.
     */
    static boolean hostAddress(InetAddress a) {
        try {
            return a.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(a) != null;
        } catch (java.net.SocketException e) {
            return false;
        }
    }

    /** The address a GID stands for (an IPv4-mapped one: the IPv4 address, as the JDK maps 16 such octets). */
    static InetAddress addressOfGid(byte[] g) {
        try {
            return InetAddress.getByAddress(g);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The data connections: the client connects one per QP (retrying while the server re-listens), the server accepts. */
    void connectData(List<Data> data) throws InterruptedException {
        int reads = p.verb() == Verb.READ ? p.outReads() : 0;
        for (Data d : data) {
            if (client) {
                ord = connect(d.qp, reads, reads, "data", CONNECT_ATTEMPTS, () -> dataGone = true);
            } else {
                NdkConnector dc = incoming.poll(STEP_TIMEOUT_MS);
                if (dc == null) {
                    throw new Failure("the client did not open its data connection" + (data.size() > 1 ? " for QP "
                            + d.index : "") + " within " + STEP_TIMEOUT_MS / 1000 + " s (does it run with the same -q?)");
                }
                owned.push(dc);
                ord = accept(dc, d.qp, () -> dataGone = true, dataAccepts);
            }
        }
    }

    /** Connects with retries while the peer refuses (it re-listens between its connections); returns the ORD granted. */
    int connect(NdkQp qp, int ird, int ordWanted, String what, int attempts, Runnable onDisconnect)
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
            Failure why = Failure.connect(at, conn, st, "start the server first: ./jndk " + tool() + " -R");
            throw new Failure(why.kind(), "Unable to connect the " + what + " connection: " + why.getMessage());
        }
        IntRef outbound = new IntRef();
        Checks.check(conn.getConnectionData(null, outbound, null, new IntRef(0)), "GetConnectionData");
        Sync.request("CompleteConnect", (rc, c) -> conn.completeConnect(x -> onDisconnect.run(), null, rc, c));
        connected.add(conn);
        return outbound.value;
    }

    /**
     * Accepts with the requester's read limits (as perftest's rdma_accept does) and returns the outbound limit. The
     * Accept's outcome is not awaited here: an MPA responder's connection completes with the initiator's first frame,
     * and perftest's client sends nothing on its data connection before the control exchange that follows; the
     * servers await it ({@link #awaitAccepted}) after the destination exchange, before they post.
     */
    int accept(NdkConnector conn, NdkQp qp, Runnable onDisconnect, List<CompletableFuture<Integer>> outcome) {
        IntRef in = new IntRef(), outb = new IntRef();
        Checks.check(conn.getConnectionData(in, outb, null, new IntRef(0)), "GetConnectionData");
        int ird = in.value, o = outb.value;
        outcome.add(Sync.start((rc, c) -> conn.accept(qp, ird, o, null, x -> onDisconnect.run(), null, rc, c)));
        connected.add(conn);
        return o;
    }

    static void awaitAccepted(List<CompletableFuture<Integer>> outcome, String what) {
        for (CompletableFuture<Integer> f : outcome) {
            Sync.check("Accept (" + what + ")", Sync.get(f, "Accept (" + what + ")"));
        }
    }

    /**
     * perftest's order after the close exchange: the client disconnects its data connections, the server then closes
     * the control connection, and the client closes its end last. Closing faster than that can catch a siw peer
     * before it has completed its last Send (siw flushes the Send it is still working on with a local QP operation
     * error, and perftest then reports "Failed to close connection").
     */
    void orderlyClose() throws InterruptedException, TimeoutException {
        List<NdkConnector> data = new ArrayList<>(connected);
        if (tcp) {
            // perftest's last TCP messages: each side writes "done" and reads the peer's; the QPs end on their own.
            // ib_write_lat has no such exchange (it returns after its report and the TCP connection closes; rxe's
            // closed without "done" in the interop run); both sides have seen the other's last Write by then.
            PerftestTcpControl t = (PerftestTcpControl) ctl;
            boolean closeExchange = !(p.latency() && p.verb() == Verb.WRITE);
            byte[] done = closeExchange ? t.sendThenReceive(PerftestWire.DONE, STEP_TIMEOUT_MS, "done") : PerftestWire.DONE;
            if (!java.util.Arrays.equals(done, PerftestWire.DONE)) {
                err.println(" Warning: the peer's last message is not \"done\"");
            }
            data.forEach(this::disconnect);
            t.close();
            return;
        }
        data.remove(ctlConn);
        if (client) {
            data.forEach(this::disconnect);
            waitFor(ctl::peerGone, 3000);
            disconnect(ctlConn);
        } else {
            waitFor(() -> dataGone || ctl.peerGone(), 5000);
            data.forEach(this::disconnect);
            disconnect(ctlConn);
        }
    }

    static void waitFor(java.util.function.BooleanSupplier done, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5); // polls a flag the connector's disconnect event sets; bounded
        }
    }

    void disconnect(NdkConnector c) {
        if (c != null && connected.remove(c)) {
            try {
                Sync.get(Sync.start((rc, x) -> c.disconnect(rc, x)), "Disconnect");
            } catch (RuntimeException e) {
                // already gone: nothing to do
            }
        }
    }

    void tearDown(boolean ok) {
        if (ctl != null) {
            ctl.close();
        }
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
                // a connection being torn down: go on closing the rest
            }
        }
        if (adapter != null) {
            adapter.close();
        }
    }

    // ---------------------------------------------------------------- parameter exchange

    byte[] xchg(byte[] mine, String what) throws TimeoutException {
        return ctl.exchange(mine, STEP_TIMEOUT_MS, what);
    }

    /** Steps 1-4: version, cycle buffer, cache line, MTU. */
    void exchangeSystem() throws TimeoutException {
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
        peerMtu = PerftestWire.mtuBytes(PerftestWire.parseMtu(xchg(PerftestWire.mtu(PerftestWire.MTU_ENUM), "MTU")));
    }

    Dest handshake(Dest mine, String what) throws TimeoutException {
        byte[] theirs = xchg(encode(mine), what);
        return tcp ? Dest.decodeKeys(theirs) : Dest.decode(theirs);
    }

    /** A destination as this mode sends it: ASCII keys over TCP, perftest's structure in a control Send. */
    byte[] encode(Dest d) {
        return tcp ? d.encodeKeys() : d.encode();
    }

    /** The length of a destination message in this mode. */
    int destLength() {
        return tcp ? PerftestWire.KEYS_LENGTH : PerftestWire.DEST_LENGTH;
    }

    /**
     * Once the data connections stand: perftest's empty "connected" handshake, then the destinations, in the order
     * perftest 4.5 sends them (seen between two siw peers): for N QPs, Write and Read send every QP's twice and then
     * the first one's again (N, N, 1); Send sends every QP's, the first's, every QP's again (N, 1, N); the latency
     * tests (one QP) send it four times. The peer's destinations are its answers to the first round.
     */
    List<Dest> exchangeDestinations(List<Data> data) throws TimeoutException {
        List<Dest> mine = data.stream().map(Data::dest).toList();
        if (!tcp) {
            handshake(Dest.ZERO, "connected handshake");
        }
        List<Dest> remote = new ArrayList<>();
        for (Dest d : mine) {
            remote.add(handshake(d, "destination"));
        }
        if (p.latency()) {
            handshake(mine.getFirst(), "destination");
            handshake(mine.getFirst(), "destination");
            handshake(mine.getFirst(), "destination");
        } else if (p.verb() == Verb.SEND) {
            handshake(mine.getFirst(), "destination");
            for (Dest d : mine) {
                handshake(d, "destination");
            }
        } else {
            for (Dest d : mine) {
                handshake(d, "destination");
            }
            handshake(mine.getFirst(), "destination");
        }
        return remote;
    }

    /** A row, or the one number {@code --output} asks for. */
    void print(Report r) {
        out.println(switch (p.output()) {
            case BANDWIDTH -> PerftestWire.value(r.average());
            case MESSAGE_RATE -> PerftestWire.value(r.msgRate());
            default -> PerftestWire.row(r);
        });
        out.flush();
    }

    /**
     * The five report messages (xchg_bw_reports), the client's first; returns the peer's: the client's real one to a
     * server, a server's zeros (perftest's noise) to a client unless the server measured too ({@code -b}).
     */
    Report exchangeReports(Report mine) throws TimeoutException {
        byte[][] m = mine.encode();
        long size = PerftestWire.parseU64(xchg(m[0], "report size"), "report size");
        long iters = PerftestWire.parseU64(xchg(m[1], "report iterations"), "report iterations");
        double peak = PerftestWire.parseF64(xchg(m[2], "report peak"), "report peak");
        double avg = PerftestWire.parseF64(xchg(m[3], "report average"), "report average");
        double rate = PerftestWire.parseF64(xchg(m[4], "report message rate"), "report message rate");
        return new Report(size, iters, peak, avg, rate);
    }

    /** Fails when a data connection is gone or nothing completed for {@link #STEP_TIMEOUT_MS}. */
    void stalled(long idleSince, long done, long posted) {
        if (dataGone) {
            throw new Failure("the peer closed the data connection after " + done + " completions");
        }
        if (System.nanoTime() - idleSince > STEP_TIMEOUT_MS * 1_000_000) {
            throw new Failure("no progress for " + STEP_TIMEOUT_MS / 1000 + " s (" + done + " of " + posted + " completed)");
        }
    }
}
