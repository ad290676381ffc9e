package io.jndk.tools.nd;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.Failure;
import io.jndk.tools.PerfSupport;
import io.jndk.tools.Sync;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One end's resources for an ND test: a CQ for both queues, an RC QP, and one registered buffer of the largest size
 * followed by a {@value #CTL}-octet control area (credits, notices). Completions are polled (spinning) or, with
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
    private final Arena arena = Arena.ofShared();
    private final List<NdkMr> mrs = new ArrayList<>();
    private final Semaphore wake = new Semaphore(0);
    private final NdkResultEx[] res = PerfSupport.results(1);
    private final NdkSge[] out;
    private final NdkSge[] in;
    private final NdkSge[] ctl = {new NdkSge()};
    final MemorySegment buf;
    final NdkMr mr;
    final NdkCq cq;
    final NdkQp qp;
    volatile boolean disconnected;
    NdkConnector connector;

    NdSession(NdkAdapter adapter, NdkPd pd, int maxSize, int nSge, int depth, boolean blocking) {
        this.maxSize = maxSize;
        this.nSge = nSge;
        this.blocking = blocking;
        this.out = sges(nSge);
        this.in = sges(nSge);
        int queue = Math.max(depth, 4) + 4;
        boolean ok = false;
        NdkCq c = null;
        NdkQp q = null;
        MemorySegment b = null;
        NdkMr m = null;
        try {
            c = Sync.create("CreateCq", (cc, x, o) -> adapter.createCq(2 * queue + 4, (ctx, st) -> wake.release(), null, null,
                    cc, x, o));
            NdkCq c0 = c;
            q = Sync.create("CreateQp", (cc, x, o) -> pd.createQp(c0, c0, "nd", queue, queue, nSge, nSge, 0, cc, x, o));
            b = arena.allocate((long) maxSize + CTL, 4096);
            m = PerfSupport.register(pd, b, mrs);
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

    /** The buffer's address (for the peer's RDMA). */
    long address() {
        return buf.address();
    }

    /** Splits {@code length} octets from the buffer's start into at most {@code nSge} pieces; returns how many. */
    private int split(NdkSge[] sgl, int length) {
        int n = Math.max(1, Math.min(nSge, length));
        int piece = length / n;
        long at = buf.address();
        for (int i = 0; i < n; i++) {
            int len = i == n - 1 ? length - piece * (n - 1) : piece;
            sgl[i].set(at, len, mr.getLocalToken());
            at += len;
        }
        return length == 0 ? 0 : n;
    }

    /** Posts a receive for a whole data message (up to the largest size). */
    void receiveData() {
        PerfSupport.check(qp.receive(null, in, split(in, maxSize)), "post receive");
    }

    /** Posts a receive for a control message (credit, notice, end). */
    void receiveControl() {
        ctl[0].set(buf.address() + maxSize + CTL_RECEIVE, CTL - CTL_RECEIVE, mr.getLocalToken());
        PerfSupport.check(qp.receive(null, ctl, 1), "post receive");
    }

    /** Sends {@code length} octets of data (0: an empty message). */
    void sendData(int length) {
        PerfSupport.check(qp.send(null, out, split(out, length), 0), "post send");
    }

    /** Sends the first {@code length} octets of the control area. */
    void sendControl(int length) {
        ctl[0].set(buf.address() + maxSize, length, mr.getLocalToken());
        PerfSupport.check(qp.send(null, ctl, length == 0 ? 0 : 1, 0), "post send");
    }

    /** The int at {@code offset} of the control area. */
    int control(int offset) {
        return buf.get(ValueLayout.JAVA_INT_UNALIGNED, (long) maxSize + offset);
    }

    void control(int offset, int value) {
        buf.set(ValueLayout.JAVA_INT_UNALIGNED, (long) maxSize + offset, value);
    }

    /** RDMA Reads {@code length} octets of the peer's buffer into this one. */
    void read(int length, long remote, int token) {
        PerfSupport.check(qp.read(null, out, split(out, length), remote, token, 0), "post read");
    }

    /** RDMA Writes {@code length} octets of this buffer into the peer's. */
    void write(int length, long remote, int token) {
        PerfSupport.check(qp.write(null, out, split(out, length), remote, token, 0), "post write");
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
                spins = PerfSupport.idle(spins);
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
                + (r.providerErrorCode != 0 ? String.format(" (peer Terminate layer %d, type %d, code 0x%02X)",
                        r.providerErrorCode >>> 12 & 0xF, r.providerErrorCode >>> 8 & 0xF, r.providerErrorCode & 0xFF) : ""));
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
        if (connector != null) {
            try {
                Sync.close(connector);
            } catch (RuntimeException e) {
                // the connection is being torn down anyway
            }
        }
        Sync.close(qp);
        for (NdkMr m : mrs) {
            Sync.close(m);
        }
        Sync.close(cq);
        arena.close();
    }
}
