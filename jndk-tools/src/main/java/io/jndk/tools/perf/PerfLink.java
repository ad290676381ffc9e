package io.jndk.tools.perf;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Loops;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perf.PerfProtocol.Accept;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongToIntFunction;

/**
 * One perf client connection: its QP, its two CQs, the control receives (acknowledgements and the report the server
 * Sends) and what the server advertised; with {@code --block}, the idle step sleeps on either CQ's notification.
 */
final class PerfLink {
    final NdkQp qp;
    final NdkCq icq;
    final NdkCq rcq;
    final MemorySegment control;
    final NdkMr controlMr;
    final Accept server;
    final NdkSge[] sge = {new NdkSge()};
    final NdkResultEx[] res = Session.results(32);
    long acked;
    long good = -1, bad = -1;

    /** With {@code --block}: released by either CQ's notification. */
    final Semaphore notified;
    /** The terminal's progress bar (operations done in the current row). */
    final PerfProgress progress;

    PerfLink(NdkQp qp, NdkCq icq, NdkCq rcq, MemorySegment control, NdkMr controlMr, Accept server, Semaphore notified,
            PerfProgress progress) {
        this.notified = notified;
        this.progress = progress;
        this.qp = qp;
        this.icq = icq;
        this.rcq = rcq;
        this.control = control;
        this.controlMr = controlMr;
        this.server = server;
    }

    /**
     * Nothing completed: spin a little ({@code --poll}), or arm both CQs and sleep until either notifies
     * ({@code --block}; at most 10 ms, so that a completion that slipped in before the arm costs no more).
     */
    void idle(Watchdog w) {
        if (notified == null) {
            w.idle();
            return;
        }
        w.check();
        notified.drainPermits();
        icq.armCq(NdkCqNotifyType.ANY);
        rcq.armCq(NdkCqNotifyType.ANY);
        try {
            notified.tryAcquire(10, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Inline SGEs, one per slot of the outgoing buffer, when Writes and Sends go inline. */
    NdkSge[][] inline;
    int flags;

    /** The SGE of an outgoing Write or Send: an inline one when the connection posts inline. */
    NdkSge[] out(MemorySegment seg, long offset, int length, NdkMr mr) {
        return inline != null ? inline[(int) (offset / length)] : sge(seg, offset, length, mr);
    }

    NdkSge[] sge(MemorySegment seg, long offset, int length, NdkMr mr) {
        sge[0].set(seg.address() + offset, length, mr.getLocalToken());
        return sge;
    }

    void postControlReceives() {
        for (int i = 0; i < PerfClient.ACK_SLOTS; i++) {
            Checks.check(qp.receive(i, sge(control, i * 16L, 16, controlMr), 1), "Receive");
        }
    }

    /** Takes acknowledgements and the report; re-posts their receives. */
    int reapControl() {
        int k = rcq.getCqResultsEx(res, res.length);
        for (int i = 0; i < k; i++) {
            NdkResultEx r = res[i];
            Checks.check(r, "receive from the server");
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
            Checks.check(qp.receive(r.requestContext, sge(control, off, 16, controlMr), 1), "Receive");
        }
        return k;
    }

    int reapInitiator(String what) {
        return Loops.reap(icq, res, what);
    }

    /**
     * The bandwidth phase of write and read: {@code n} operations, {@code window} in flight; after each reap,
     * progress, or the idle step when nothing completed.
     */
    void stream(long n, int window, LongConsumer post, LongToIntFunction reap, Watchdog w) {
        Loops.stream(new Loops.Window() {
            @Override
            public boolean more(long posted) {
                return posted < n;
            }

            @Override
            public boolean room(long posted, long done) {
                return posted - done < window;
            }

            @Override
            public void post(long i) {
                post.accept(i);
            }

            @Override
            public int reap(long done) {
                return reap.applyAsInt(done);
            }

            @Override
            public void pass(int reaped, boolean posted) {
                if (reaped > 0) {
                    w.progress();
                    progress.add(reaped);
                } else {
                    idle(w);
                }
            }
        });
    }
}
