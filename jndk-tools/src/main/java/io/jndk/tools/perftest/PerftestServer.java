package io.jndk.tools.perftest;

import io.jndk.api.IntRef;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Listening;
import io.jndk.tools.kit.Loops;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The server side of {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw}: accepts the control and the data
 * connection, lends its buffer (Write, Read) or receives and returns credits (Send), and prints the client's report.
 */
final class PerftestServer extends PerftestRun {
    PerftestServer(Params p, PrintStream out, PrintStream err) {
        super(p, out, err);
    }

    @Override
    void body(Arena arena) throws TimeoutException, InterruptedException {
        try {
            local = InetAddress.getByName(p.bind() != null ? p.bind() : "127.0.0.1");
        } catch (IOException e) {
            throw new Failure("unknown address " + p.bind());
        }
        open(local);
        Listening incoming = new Listening(adapter);
        owned.push(incoming.listener());
        incoming.listen(new InetSocketAddress(local, p.port()));
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
        NdkConnector dc = incoming.poll(STEP_TIMEOUT_MS);
        if (dc == null) {
            throw new Failure("the client did not open its data connection within " + STEP_TIMEOUT_MS / 1000 + " s");
        }
        owned.push(dc);
        List<CompletableFuture<Integer>> dataAccept = new ArrayList<>();
        ord = accept(dc, d.qp, "data", () -> dataGone = true, dataAccept);
        Dest mine = d.dest();
        Dest remote = exchangeDestinations(mine);
        PerftestReport.printHeader(out, p, client, ord, tx, rx);
        out.println(" Waiting for client rdma_cm QP to connect");
        out.println(PerftestWire.LINE);
        PerftestReport.printAddresses(out, mine, remote);
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
        PerftestReport.Timing t = new PerftestReport.Timing(n);
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
            int c = Loops.reap(d.icq, res, "credit Write");
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
            int c = Loops.reap(d.icq, res, "credit Write");
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
}
