package io.jndk.tools.nd;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Watchdog;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One end's resources for an ND test: a CQ for both queues, an RC QP, and one registered buffer holding two regions of
 * the largest size and a {@value #CTL}-octet control area (credits, notices). The source region holds
 * {@link #pattern} and is what the client Sends and Writes; everything that arrives (receives, Reads, the peer's
 * Writes) lands in the sink region, which is also what a server lends, echoes and Writes back. Completions are polled (spinning) or, with
 * {@code blocking}, waited for with CQ notifications. Posting reuses preallocated SGE lists: nothing is allocated per
 * operation.
 */
final class NdSession implements AutoCloseable {
    /** The control area's size, after the data. */
    static final int CTL = 64;
    /** Where control receives land inside the control area (sends go out from its start). */
    static final int CTL_RECEIVE = 32;

    final int maxSize;
    final int nSge;
    private final boolean blocking;
    private final Session session;
    private final Semaphore wake = new Semaphore(0);
    private final NdkResultEx[] res = Session.results(1);
    private final NdkSge[] out;
    private final NdkSge[] in;
    private final NdkSge[] ctl = {new NdkSge()};
    final MemorySegment buf;
    final NdkMr mr;
    final NdkCq cq;
    final NdkQp qp;
    volatile boolean disconnected;

    NdSession(NdkAdapter adapter, NdkPd pd, int maxSize, int nSge, int depth, boolean blocking) {
        this.maxSize = maxSize;
        this.nSge = nSge;
        this.blocking = blocking;
        this.out = sges(nSge);
        this.in = sges(nSge);
        int queue = Math.max(depth, 4) + 4;
        this.session = new Session(adapter, pd).quietConnectors();
        boolean ok = false;
        NdkCq c = null;
        NdkQp q = null;
        MemorySegment b = null;
        NdkMr m = null;
        try {
            c = session.cq(2 * queue + 4, wake::release);
            q = session.qp(c, c, "nd", queue, queue, nSge, nSge, 0);
            b = session.allocate(2L * maxSize + CTL, 4096);
            for (long i = 0; i < maxSize; i++) {
                b.set(ValueLayout.JAVA_BYTE, i, pattern(i));
            }
            m = session.register(b);
            ok = true;
        } finally {
            cq = c;
            qp = q;
            buf = b;
            mr = m;
            if (!ok) {
                close();
            }
        }
    }

    private static NdkSge[] sges(int n) {
        NdkSge[] s = new NdkSge[n];
        for (int i = 0; i < n; i++) {
            s[i] = new NdkSge();
        }
        return s;
    }

    /** The source region's octet {@code i}. */
    static byte pattern(long i) {
        return (byte) (i * 31 + 7);
    }

    /** The sink region's address (for the peer's RDMA). */
    long address() {
        return buf.address() + maxSize;
    }

    /** Puts the pattern into the sink region too (a server lending it for RDMA Reads). */
    void lendPattern() {
        sink().copyFrom(source());
    }

    /** Zeroes the first {@code length} octets of the sink region. */
    void clearSink(int length) {
        buf.asSlice(maxSize, length).fill((byte) 0);
    }

    /** The first octet of the sink region that differs from the pattern within {@code length}, or -1. */
    long mismatch(int length) {
        return buf.asSlice(maxSize, length).mismatch(buf.asSlice(0, length));
    }

    /** The sink region (what arrived). */
    MemorySegment sink() {
        return buf.asSlice(maxSize, maxSize);
    }

    /** The source region. */
    MemorySegment source() {
        return buf.asSlice(0, maxSize);
    }

    /** Splits {@code length} octets from {@code at} into at most {@code nSge} pieces; returns how many. */
    private int split(NdkSge[] sgl, long at, int length) {
        int n = Math.max(1, Math.min(nSge, length));
        int piece = length / n;
        for (int i = 0; i < n; i++) {
            int len = i == n - 1 ? length - piece * (n - 1) : piece;
            sgl[i].set(at, len, mr.getLocalToken());
            at += len;
        }
        return length == 0 ? 0 : n;
    }

    /** Posts a receive for a whole data message (up to the largest size) into the sink region. */
    void receiveData() {
        Checks.check(qp.receive(null, in, split(in, address(), maxSize)), "post receive");
    }

    /** Posts a receive for a control message (credit, notice, end). */
    void receiveControl() {
        ctl[0].set(buf.address() + 2L * maxSize + CTL_RECEIVE, CTL - CTL_RECEIVE, mr.getLocalToken());
        Checks.check(qp.receive(null, ctl, 1), "post receive");
    }

    /** Sends {@code length} octets of the source region, or of the sink region ({@code echo}); 0: an empty message. */
    void sendData(int length, boolean echo) {
        Checks.check(qp.send(null, out, split(out, echo ? address() : buf.address(), length), 0), "post send");
    }

    /** Sends the first {@code length} octets of the control area. */
    void sendControl(int length) {
        ctl[0].set(buf.address() + 2L * maxSize, length, mr.getLocalToken());
        Checks.check(qp.send(null, ctl, length == 0 ? 0 : 1, 0), "post send");
    }

    /** The int at {@code offset} of the control area. */
    int control(int offset) {
        return buf.get(ValueLayout.JAVA_INT_UNALIGNED, 2L * maxSize + offset);
    }

    void control(int offset, int value) {
        buf.set(ValueLayout.JAVA_INT_UNALIGNED, 2L * maxSize + offset, value);
    }

    /** RDMA Reads {@code length} octets of the peer's buffer into the sink region. */
    void read(int length, long remote, int token) {
        Checks.check(qp.read(null, out, split(out, address(), length), remote, token, 0), "post read");
    }

    /** RDMA Writes {@code length} octets of the source region, or of the sink region ({@code echo}), into the peer's. */
    void write(int length, boolean echo, long remote, int token) {
        Checks.check(qp.write(null, out, split(out, echo ? address() : buf.address(), length), remote, token, 0),
                "post write");
    }

    /** Called by the connector when the peer disconnects. */
    void onDisconnect() {
        disconnected = true;
        wake.release();
    }

    /**
     * The next successful completion, or {@code null} once the connection is gone (flushed completions, disconnect).
     * Fails with a one-line reason on an error completion or when nothing completes within {@code timeoutMs}.
     */
    NdkResultEx next(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int spins = 0;
        while (true) {
            if (cq.getCqResultsEx(res, 1) == 1) {
                return checked(res[0]);
            }
            if (disconnected) {
                return null;
            }
            if (blocking) {
                cq.armCq(NdkCqNotifyType.ANY);
                if (cq.getCqResultsEx(res, 1) == 1) {
                    return checked(res[0]);
                }
                long left = deadline - System.nanoTime();
                try {
                    if (left <= 0 || !wake.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                        throw stalled(timeoutMs);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Failure("interrupted");
                }
            } else {
                spins = Watchdog.spin(spins);
                if ((spins & 4095) == 0 && System.nanoTime() - deadline > 0) {
                    throw stalled(timeoutMs);
                }
            }
        }
    }

    private static Failure stalled(long timeoutMs) {
        return new Failure(Failure.Kind.UNREACHABLE, "no completion for " + timeoutMs / 1000
                + " s: the peer stopped answering (check that it still runs and what it printed)");
    }

    private NdkResultEx checked(NdkResultEx r) {
        if (r.status == NtStatus.STATUS_SUCCESS) {
            return r;
        }
        if (r.status == NtStatus.STATUS_CANCELLED) {
            return null; // flushed: the connection is going away
        }
        throw new Failure(NdkOperationType.name(r.type).toLowerCase(Locale.ROOT) + " failed: " + NtStatus.describe(r.status)
                + Checks.terminate(r.providerErrorCode));
    }

    /** Waits (without a deadline) until the peer disconnects, passing over any completion. */
    void awaitDisconnect() throws InterruptedException {
        while (!disconnected) {
            while (cq.getCqResultsEx(res, 1) == 1) {
                checked(res[0]);
            }
            wake.tryAcquire(1, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        session.close();
    }

    /** The session holding this end's objects (and its connector). */
    Session session() {
        return session;
    }
}
