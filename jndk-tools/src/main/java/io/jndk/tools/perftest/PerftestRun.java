package io.jndk.tools.perftest;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Verb;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;

/**
 * One run of {@code ib_write_bw}, {@code ib_read_bw} or {@code ib_send_bw} in rdma_cm mode, as client (a host is
 * given) or server, speaking perftest 4.5's protocol: a control connection carrying the parameter exchange as Sends,
 * then one data connection carrying the measured traffic (docs/INTEROP-PERFTEST.md has the exact sequence).
 */
abstract class PerftestRun {
    /** What the command line asked for. */
    record Params(Verb verb, String host, int port, long size, int iters, boolean all, int duration, boolean gbits,
            int txDepth, int rxDepth, int outReads, boolean crc, String pcap, String bind) {}

    /** Waits on the peer during setup and between phases (a peer that stays silent this long has failed). */
    static final long STEP_TIMEOUT_MS = 30_000;
    /** A connection attempt refused this many times (the server is not listening yet) fails. */
    static final int CONNECT_ATTEMPTS = 20;
    static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    final Params p;
    final PrintStream out;
    final PrintStream err;
    final boolean client;
    final Deque<NdkClosable> owned = new ArrayDeque<>();
    final List<NdkConnector> connected = new ArrayList<>();
    NdkAdapter adapter;
    NdkPd pd;
    InetAddress local;
    InetSocketAddress server;
    PerftestControl ctl;
    int cycleBuffer = PerftestWire.CYCLE_BUFFER;
    int cacheLine = PerftestWire.CACHE_LINE;
    int ord;
    volatile boolean dataGone;

    PerftestRun(Params p, PrintStream out, PrintStream err) {
        this.p = p;
        this.out = out;
        this.err = err;
        this.client = p.host() != null;
    }

    /** The side's part of the test, on resources it allocates from {@code arena}. */
    abstract void body(Arena arena) throws TimeoutException, InterruptedException;

    String tool() {
        return p.verb().tool;
    }

    /** Runs the test; 0 on success, 1 on any failure (the reason printed to the error stream). */
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

    void open(InetAddress at) {
        adapter = Session.open("iwarp", at, Session.options(p.crc(), p.pcap()));
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

    NdkQp qp(NdkCq rcq, NdkCq icq, String name, int rqDepth, int iqDepth) {
        NdkQp q = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(rcq, icq, name, rqDepth, iqDepth, 1, 1, 0, cc, c, o));
        owned.push(q);
        return q;
    }

    PerftestControl control(Arena arena) {
        MemorySegment rbuf = arena.allocate(PerftestControl.RECEIVE_BYTES, 64);
        MemorySegment sbuf = arena.allocate(PerftestControl.SEND_BYTES, 64);
        NdkMr rmr = register(rbuf);
        NdkMr smr = register(sbuf);
        NdkCq c = cq(16);
        NdkQp q = qp(c, c, "perftest control", 4, 4);
        return new PerftestControl(q, c, rbuf, rmr, sbuf, smr, client);
    }

    /** The data connection's resources: buffer, its region, the credit word and the QP. */
    final class Data {
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
    void orderlyClose(NdkConnector dataConn, NdkConnector ctlConn) throws InterruptedException {
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

    static void waitFor(java.util.function.BooleanSupplier done, long ms) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
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
        PerftestWire.parseMtu(xchg(PerftestWire.mtu(PerftestWire.MTU_ENUM), "MTU"));
    }

    Dest handshake(Dest mine, String what) throws TimeoutException {
        return Dest.decode(xchg(mine.encode(), what));
    }

    /**
     * Once the data connection stands: perftest's empty handshake, then the destinations (this side's is sent three
     * times, as perftest does; the peer's first answer is its destination).
     */
    Dest exchangeDestinations(Dest mine) throws TimeoutException {
        handshake(Dest.ZERO, "connected handshake");
        Dest remote = handshake(mine, "destination");
        handshake(mine, "destination");
        handshake(mine, "destination");
        return remote;
    }

    /** Fails when the data connection is gone or nothing completed for {@link #STEP_TIMEOUT_MS}. */
    void stalled(long idleSince, long done, long posted) {
        if (dataGone) {
            throw new Failure("the peer closed the data connection after " + done + " completions");
        }
        if (System.nanoTime() - idleSince > STEP_TIMEOUT_MS * 1_000_000) {
            throw new Failure("no progress for " + STEP_TIMEOUT_MS / 1000 + " s (" + done + " of " + posted + " completed)");
        }
    }
}
