package io.jndk.tools.perftest;

import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perftest.PerftestRun.Data;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The measured traffic of the bandwidth tests over every QP of a run, as perftest's run_iter_bw and run_iter_bi do
 * it: each QP keeps up to its depth of operations in flight (Reads also within the negotiated ORD, Sends also within
 * the credits the receiver returns), the QPs take turns, and one timing covers them all (so a row's iterations are
 * -n times the QPs). The receiving half of a Send test re-posts every receive and returns credits by RDMA Write (over
 * iWARP; over RoCE there are no credits: a Send that finds no receive is RNR-NAKed and retried); in a bidirectional
 * Send test both halves run in the same loop.
 */
final class PerftestTraffic {
    /** A credit Write's request context (its completion is not a measured operation). */
    private static final Object CREDIT = "credit";

    private final PerftestRun run;
    private final PerftestRun.Params p;
    private final List<Data> data;
    private final List<Dest> remote;
    /** With --run_infinitely: prints the row of each period (called every -D seconds). */
    Consumer<Report> every;
    /** In duration mode on a receiver: whether the sender's close message has arrived (then the receiving ends). */
    Supplier<Boolean> senderDone = () -> false;

    PerftestTraffic(PerftestRun run, List<Data> data, List<Dest> remote) {
        this.run = run;
        this.p = run.p;
        this.data = data;
        this.remote = remote;
    }

    private int iterations() {
        return p.duration() > 0 ? 0 : p.iters();
    }

    private long deadline() {
        return p.infinite() ? Long.MAX_VALUE : p.duration() > 0 ? System.nanoTime() + p.duration() * 1_000_000_000L
                : Long.MAX_VALUE;
    }

    /**
     * Write or Read of {@code size} on every QP: {@code -n} each (or {@code -D} seconds), up to {@code depth} in
     * flight per QP, every one signalled and timed.
     */
    Report initiate(long size, int depth) {
        boolean read = p.verb() == Verb.READ;
        int perQp = read ? Math.max(1, Math.min(depth, run.ord)) : depth;
        int n = iterations();
        int q = data.size();
        PerftestReport.Timing t = new PerftestReport.Timing(n * q, !p.noPeak());
        long[] posted = new long[q], done = new long[q];
        NdkResultEx[] res = Session.results(Math.min(perQp, 64));
        long end = deadline();
        Period period = new Period(size);
        long total = 0, idleSince = System.nanoTime();
        int spins = 0;
        t.start();
        while (true) {
            boolean more = false;
            boolean progress = false;
            for (int i = 0; i < q; i++) {
                Data d = data.get(i);
                while ((n > 0 ? posted[i] < n : System.nanoTime() < end) && posted[i] - done[i] < perQp) {
                    long off = PerftestWire.offset(posted[i], size, run.cycleBuffer, run.cacheLine);
                    long g = totalPosted(posted);
                    t.posted(g);
                    Checks.check(post(d, remote.get(i), size, off, read), read ? "Read" : "Write");
                    posted[i]++;
                    progress = true;
                }
                more |= n > 0 ? posted[i] < n || done[i] < posted[i] : done[i] < posted[i] || System.nanoTime() < end;
                int k = d.icq.getCqResultsEx(res, res.length);
                for (int j = 0; j < k; j++) {
                    check(res[j], read ? "RDMA Read" : "RDMA Write", total);
                    t.completed(total++);
                }
                done[i] += k;
                period.add(k);
                progress |= k > 0;
            }
            if (!more) {
                break;
            }
            if (progress) {
                idleSince = System.nanoTime();
            } else {
                run.stalled(idleSince, total, totalPosted(posted));
                spins = Watchdog.spin(spins);
            }
            period.tick();
        }
        return t.report(size, total, p.gbits());
    }

    /**
     * Throws unless {@code r} succeeded; a flushed one means the connection went (the peer stopped or closed it), which
     * is said as such, with how far the run got.
     */
    private void check(NdkResultEx r, String what, long done) {
        if (r.status == NtStatus.STATUS_CANCELLED || run.dataGone && r.status != NtStatus.STATUS_SUCCESS) {
            throw new Failure("the peer closed the data connection after " + done + " completions (" + what + " flushed)");
        }
        Checks.check(r, what);
    }

    private static long totalPosted(long[] posted) {
        long s = 0;
        for (long v : posted) {
            s += v;
        }
        return s;
    }

    private int post(Data d, Dest r, long size, long off, boolean read) {
        NdkSge[] sge = d.sge;
        boolean inline = !read && size <= p.inline();
        if (inline) {
            sge = new NdkSge[] {NdkSge.inline(d.buf.asSlice(off, size))};
        } else {
            sge[0].set(d.buf.address() + off, (int) size, d.mr.getLocalToken());
        }
        return read ? d.qp.read(null, sge, 1, r.vaddr() + off, r.rkey(), 0)
                : d.qp.write(null, sge, 1, r.vaddr() + off, r.rkey(), inline ? NdkOpFlags.INLINE : 0);
    }

    /**
     * Send of {@code size}: {@code sending}, up to {@code depth} Sends in flight per QP and at most {@code rx} beyond
     * the count the receiver last wrote into this side's credit word; {@code receiving}, every receive re-posted and,
     * every rx/3 messages and at the last, the received count RDMA-Written into the sender's credit word of that QP
     * (4 bytes, little-endian, as perftest on x86). Returns the sending half's report, or the receiving half's when
     * this side only receives (then without a peak, as perftest's receiver).
     */
    Report sends(long size, int depth, int rx, boolean sending, boolean receiving) {
        int n = iterations();
        int q = data.size();
        int creditEvery = Math.max(1, rx / 3);
        PerftestReport.Timing t = new PerftestReport.Timing(n * q, sending && !p.noPeak());
        long[] posted = new long[q], done = new long[q], received = new long[q];
        int creditsOut = 0;
        long total = 0, wrongLength = 0;
        NdkResultEx[] res = Session.results(64);
        NdkSge[] csge = {new NdkSge()};
        long end = deadline();
        Period period = new Period(size);
        long idleSince = System.nanoTime();
        int spins = 0;
        t.start();
        while (true) {
            boolean more = false;
            boolean progress = false;
            for (int i = 0; i < q; i++) {
                Data d = data.get(i);
                if (sending) {
                    while ((n > 0 ? posted[i] < n : System.nanoTime() < end) && posted[i] - done[i] < depth
                            && (!run.credits || posted[i] - (d.creditValue() & 0xFFFFFFFFL) < rx)) {
                        t.posted(totalPosted(posted));
                        boolean inline = size <= p.inline();
                        NdkSge[] sge = d.sge;
                        if (inline) {
                            sge = new NdkSge[] {NdkSge.inline(d.buf.asSlice(0, size))};
                        } else {
                            sge[0].set(d.buf.address(), (int) size, d.mr.getLocalToken());
                        }
                        Checks.check(d.qp.send(null, sge, 1, inline ? NdkOpFlags.INLINE : 0), "Send");
                        posted[i]++;
                        progress = true;
                    }
                    more |= n > 0 ? posted[i] < n || done[i] < posted[i] : done[i] < posted[i] || System.nanoTime() < end;
                }
                if (receiving) {
                    int k = d.rcq.getCqResultsEx(res, res.length);
                    for (int j = 0; j < k; j++) {
                        NdkResultEx r = res[j];
                        check(r, "receive of message " + (received[i] + 1), totalPosted(received));
                        if (r.bytesTransferred != size) {
                            wrongLength++;
                        }
                        d.postReceives(1);
                        received[i]++;
                        if (!sending) {
                            t.completed(total++);
                        }
                        if (run.credits && (received[i] % creditEvery == 0 || received[i] == n)) {
                            Dest to = remote.get(i);
                            d.setOutgoingCredit((int) received[i]);
                            csge[0].set(d.credit.address() + Data.OUTGOING, 4, d.creditMr.getLocalToken());
                            Checks.check(d.qp.write(CREDIT, csge, 1, to.vaddr(), to.rkey(), 0), "credit Write");
                            creditsOut++;
                        }
                    }
                    if (k > 0) {
                        progress = true;
                        if (!sending) {
                            period.add(k);
                        }
                    }
                    more |= n > 0 ? received[i] < n : !senderDone.get();
                }
                int k = d.icq.getCqResultsEx(res, res.length);
                for (int j = 0; j < k; j++) {
                    NdkResultEx r = res[j];
                    if (r.requestContext == CREDIT) {
                        check(r, "credit Write", total);
                        creditsOut--;
                    } else {
                        check(r, "Send", total);
                        done[i]++;
                        t.completed(total++);
                        period.add(1);
                    }
                    progress = true;
                }
            }
            if (!more && creditsOut == 0) {
                break;
            }
            if (progress) {
                idleSince = System.nanoTime();
            } else {
                if (!sending && n == 0 && !p.infinite() && t.elapsedSeconds() < p.duration() + 60) {
                    idleSince = System.nanoTime(); // a duration receiver waits for the sender's close message
                }
                run.stalled(idleSince, total, totalPosted(posted));
                spins = Watchdog.spin(spins);
            }
            period.tick();
        }
        if (wrongLength > 0) {
            throw new Failure(wrongLength + " of " + totalPosted(received) + " messages were not " + size
                    + " bytes long: run both sides with the same -s");
        }
        return t.report(size, total, p.gbits());
    }

    /** --run_infinitely: the operations of the current period and its start; a row every -D seconds. */
    private final class Period {
        private final long size;
        private final long every = p.duration() * 1_000_000_000L;
        private long start = System.nanoTime();
        private long ops;
        private int checks;

        Period(long size) {
            this.size = size;
        }

        void add(long k) {
            ops += k;
        }

        void tick() {
            if (PerftestTraffic.this.every == null || (++checks & 255) != 0) {
                return;
            }
            long now = System.nanoTime();
            if (now - start >= every) {
                double secs = (now - start) / 1e9;
                double unit = p.gbits() ? 125e6 : 1048576.0;
                PerftestTraffic.this.every.accept(new Report(size, ops, 0, size * ops / secs / unit, ops / secs / 1e6));
                start = now;
                ops = 0;
            }
        }
    }
}
