package io.jndk.tools.perftest;

import io.jndk.api.IntRef;
import io.jndk.api.NdkConnector;
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
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;

/**
 * The client side of {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw}: connects the control and the data
 * connection (retrying while the server re-listens), then posts the measured Writes, Reads or credited Sends.
 */
final class PerftestClient extends PerftestRun {
    PerftestClient(Params p, PrintStream out, PrintStream err) {
        super(p, out, err);
    }

    @Override
    void body(Arena arena) throws TimeoutException, InterruptedException {
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
        Dest mine = d.dest();
        Dest remote = exchangeDestinations(mine);
        PerftestReport.printHeader(out, p, client, ord, tx, rx);
        PerftestReport.printAddresses(out, mine, remote);
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
            Failure why = Failure.connect(at, conn, st, "start the server first: ./jndk " + tool() + " -R");
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
        return measure(d, size, depth, false, posted -> true, read ? "Read" : "Write", read ? "RDMA Read" : "RDMA Write",
                (sge, off) -> read ? d.qp.read(null, sge, 1, remote.vaddr() + off, remote.rkey(), 0)
                        : d.qp.write(null, sge, 1, remote.vaddr() + off, remote.rkey(), 0));
    }

    /** Send with perftest's credits: at most rx-depth Sends beyond the count the server last wrote into our word. */
    private Report sendAll(Data d, Dest remote, long size, int depth, int rx) {
        return measure(d, size, depth, true, posted -> posted - (d.creditValue() & 0xFFFFFFFFL) < rx, "Send", "Send",
                (sge, off) -> d.qp.send(null, sge, 1, 0));
    }

    /** Posts one measured operation of the buffer at {@code off}; returns its status. */
    private interface Post {
        int post(NdkSge[] sge, long off);
    }

    /**
     * The measured loop: {@code -n} operations (or {@code -D} seconds of them), up to {@code depth} in flight and
     * within {@code credit}, each completion timed; a turn without completions (and, {@code postingIsProgress},
     * without posting) counts towards the stall bound.
     */
    private Report measure(Data d, long size, int depth, boolean postingIsProgress, LongPredicate credit, String postWhat,
            String completionWhat, Post op) {
        int n = p.duration() > 0 ? 0 : p.iters();
        PerftestReport.Timing t = new PerftestReport.Timing(n);
        NdkSge[] sge = {new NdkSge()};
        NdkResultEx[] res = Session.results(Math.min(depth, 64));
        long end = p.duration() > 0 ? System.nanoTime() + p.duration() * 1_000_000_000L : Long.MAX_VALUE;
        long idle = System.nanoTime();
        t.start();
        long done = Loops.stream(new Loops.Window() {
            private long posted, completed;
            private long idleSince = idle;
            private int spins;

            @Override
            public boolean more(long i) {
                return n > 0 ? i < n : System.nanoTime() < end;
            }

            @Override
            public boolean room(long i, long finished) {
                return i - finished < depth && credit.test(i);
            }

            @Override
            public void post(long i) {
                long off = PerftestWire.offset(i, size, cycleBuffer, cacheLine);
                sge[0].set(d.buf.address() + off, (int) size, d.mr.getLocalToken());
                Checks.check(op.post(sge, off), postWhat);
                posted++;
            }

            @Override
            public int reap(long finished) {
                return Loops.reap(d.icq, res, completionWhat, (r, j) -> t.completed(finished + j));
            }

            @Override
            public void pass(int reaped, boolean posting) {
                completed += reaped;
                if (reaped > 0 || postingIsProgress && posting) {
                    idleSince = System.nanoTime();
                } else {
                    stalled(idleSince, completed, posted);
                    spins = Watchdog.spin(spins);
                }
            }
        });
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
}
