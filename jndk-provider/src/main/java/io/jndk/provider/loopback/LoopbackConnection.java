package io.jndk.provider.loopback;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireRequest;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One end of a loopback connection. {@link #kick()} runs this end's initiator requests on the posting thread, one
 * thread at a time, in posting order: each request is taken from this QP's {@link QpPort}, checked and placed by the
 * peer QP's port exactly as an inbound frame would be (a Write through {@code writeTarget}, a Read through
 * {@code readSource}, a Send through {@code beginReceive}/{@code endReceive}), copied between the two checked
 * cursors, and reported back ({@code sent}, {@code readDone}), so it completes when it is placed. A check that fails
 * is answered as the detecting side's Terminate would be: both ports learn of the failure ({@code failed}), the one
 * that detected it as sent, the other as received.
 *
 * <p>Threads: the transmit side of an end belongs to whichever thread holds {@link #work} (a poster; others only
 * add to it, and the holder runs their requests too); the receive-side calls into an end's port are made under that
 * end's {@link #rx} monitor (by the peer's transmit side, and by this end's own for {@code readDone}). No provider
 * lock is held by the caller of {@link #kick()}, and none is held here across a call into the other end.
 */
final class LoopbackConnection implements WireConnection {
    /** Views one slicing call may fill; a longer range is copied in smaller steps. */
    private static final int VIEWS = 128;
    private static final int COPIED = 0, SOURCE_FAILED = 1, TARGET_FAILED = 2;

    private final LoopbackRequest setup;
    private final boolean active;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private LoopbackConnection peer;
    /** Whether the pair is down (disconnected, aborted, reset, failed): shared by both ends. */
    private AtomicBoolean down;
    private volatile QpPort port;
    /** Transmit ownership: kicks owed; whoever raises it from 0 runs the requests until none is owed. */
    private final AtomicInteger work = new AtomicInteger();
    /** Serializes the receive-side calls into {@link #port} (the QpPort contract). */
    private final Object rx = new Object();
    private final WireRequest request = new WireRequest();
    private final BufferCursor[] out = new BufferCursor[1];
    private final ByteBuffer[] views = new ByteBuffer[VIEWS];
    private final WireCounters counters = new WireCounters();

    LoopbackConnection(LoopbackRequest setup, boolean active, InetSocketAddress local, InetSocketAddress remote) {
        this.setup = setup;
        this.active = active;
        this.local = local;
        this.remote = remote;
    }

    /** Joins the two ends of one connection. */
    void pair(LoopbackConnection other) {
        AtomicBoolean shared = new AtomicBoolean();
        this.peer = other;
        this.down = shared;
        other.peer = this;
        other.down = shared;
    }

    /** The acceptor's port, known when it accepts. */
    void bind(QpPort qp) {
        this.port = qp;
    }

    // ---- connection setup ---------------------------------------------------------------------

    @Override
    public int start(QpPort qp) {
        port = qp;
        if (!active || !setup.start()) {
            goDown();
            return NtStatus.STATUS_CONNECTION_ABORTED;
        }
        return NtStatus.STATUS_SUCCESS;
    }

    @Override
    public void reject() {
        goDown();
        if (active) {
            setup.declined();
        }
    }

    // ---- data path ----------------------------------------------------------------------------

    @Override
    public void kick() {
        if (work.getAndIncrement() != 0) {
            return; // the thread running this end's requests takes the new ones too
        }
        int owed = 1;
        do {
            drain();
            owed = work.addAndGet(-owed);
        } while (owed != 0);
    }

    /** Runs every request this end's port hands out, until none is left or the connection is down. */
    private void drain() {
        QpPort me = port;
        while (me != null && !down.get()) {
            switch (me.nextRequest(request, 0)) {
                case QpPort.READY -> execute(me, peer.port);
                case QpPort.FAILED -> {
                    terminate(this, Term.RDMAP_CATASTROPHIC); // a local error: this end sends the Terminate
                    return;
                }
                default -> {
                    return; // NONE (FENCED cannot be: no Read is ever outstanding here)
                }
            }
        }
    }

    private void execute(QpPort me, QpPort them) {
        WireRequest r = request;
        try {
            switch (r.kind) {
                case WireRequest.WRITE -> write(me, them, r);
                case WireRequest.READ -> read(me, them, r);
                default -> send(me, them, r);
            }
        } finally {
            r.local = null;
            r.handle = null;
        }
    }

    private void write(QpPort me, QpPort them, WireRequest r) {
        if (r.length > 0) { // a zero-length Write needs no lookup (siw: the RTR's STag 1)
            int term;
            synchronized (peer.rx) {
                term = them.writeTarget(r.remoteToken, r.remoteAddress, r.length, out);
                if (term == 0) {
                    term = switch (copy(r.local, out[0], r.length)) {
                        case COPIED -> 0;
                        case SOURCE_FAILED -> -1;
                        default -> Term.DDP_TAGGED_BASE_BOUNDS;
                    };
                }
            }
            if (term != 0) {
                failCopy(term, Term.RDMAP_CATASTROPHIC);
                return;
            }
        }
        me.sent(r);
    }

    private void read(QpPort me, QpPort them, WireRequest r) {
        if (them.inboundReadLimit() == 0) {
            terminate(peer, Term.RDMAP_CATASTROPHIC_STREAM); // the responder's inbound read queue has no place
            return;
        }
        if (r.length > 0) {
            int term;
            int copied = COPIED;
            synchronized (peer.rx) {
                term = them.readSource(r.remoteToken, r.remoteAddress, r.length, out);
                if (term == 0) {
                    copied = copy(out[0], r.local, r.length);
                }
            }
            if (term != 0) {
                terminate(peer, term);
                return;
            }
            if (copied == SOURCE_FAILED) {
                terminate(peer, Term.RDMAP_CATASTROPHIC); // the responder could not read its own memory
                return;
            }
            if (copied == TARGET_FAILED) {
                terminate(this, Term.DDP_TAGGED_BASE_BOUNDS); // the response does not fit the sink
                return;
            }
        }
        synchronized (rx) {
            me.readDone(r);
        }
    }

    private void send(QpPort me, QpPort them, WireRequest r) {
        int term;
        synchronized (peer.rx) {
            term = them.beginReceive(out);
            if (term == 0) {
                BufferCursor target = out[0];
                int copied = r.length > target.length() ? TARGET_FAILED : copy(r.local, target, r.length);
                if (copied == TARGET_FAILED) {
                    them.failReceive(NtStatus.STATUS_BUFFER_OVERFLOW, Term.DDP_UNTAGGED_TOO_LONG);
                    term = Term.DDP_UNTAGGED_TOO_LONG;
                } else if (copied == SOURCE_FAILED) {
                    them.failReceive(NtStatus.STATUS_CANCELLED, 0);
                    term = -1;
                } else {
                    term = them.endReceive(r.length, r.solicited, r.invalidate, r.invalidateToken);
                }
            }
        }
        if (term != 0) {
            failCopy(term, Term.RDMAP_CATASTROPHIC);
            return;
        }
        me.sent(r);
    }

    /** A tagged or untagged placement at the peer failed: {@code term} is the peer's Terminate, -1 a local error. */
    private void failCopy(int term, int localTerm) {
        if (term == -1) {
            terminate(this, localTerm);
        } else {
            terminate(peer, term);
        }
    }

    /**
     * Copies {@code length} octets from {@code src} to {@code dst} (both from offset 0), as many views at a time as a
     * slicing call fills.
     */
    private int copy(BufferCursor src, BufferCursor dst, long length) {
        long done = 0;
        long step = length;
        while (done < length) {
            long n = Math.min(step, length - done);
            int k = src.slices(done, n, views, 0);
            if (k < 0) {
                if (n == 1) {
                    return SOURCE_FAILED;
                }
                step = Math.max(1, n / 2); // more pieces than views: a smaller step
                continue;
            }
            long at = done;
            for (int i = 0; i < k; i++) {
                ByteBuffer v = views[i];
                int m = v.remaining();
                if (!dst.place(at, v, v.position(), m)) {
                    return TARGET_FAILED;
                }
                at += m;
            }
            done += n;
        }
        return COPIED;
    }

    // ---- teardown -----------------------------------------------------------------------------

    /**
     * The end {@code detector} found an error and answers with a Terminate carrying {@code term}: both ends go down,
     * the detector's port learns it sent the Terminate, the other's that it received it.
     */
    private void terminate(LoopbackConnection detector, int term) {
        if (!goDown()) {
            return;
        }
        LoopbackConnection other = detector.peer;
        failed(detector.port, NtStatus.STATUS_CANCELLED, term, true, DisconnectReason.TERMINATE_SENT);
        failed(other.port, NtStatus.STATUS_REMOTE_RESOURCES, term, false, DisconnectReason.TERMINATE_RECEIVED);
    }

    private static void failed(QpPort p, int status, int term, boolean sent, int reason) {
        if (p != null) {
            p.failed(status, term, sent, reason);
        }
    }

    /** Marks the pair down and retires both ends' counters; false when it already was. */
    private boolean goDown() {
        if (down == null || !down.compareAndSet(false, true)) {
            counters.retire();
            return false;
        }
        counters.retire();
        peer.counters.retire();
        return true;
    }

    @Override
    public void disconnect() {
        if (goDown()) {
            QpPort p = peer.port;
            if (p != null) {
                p.peerClosed();
            }
        }
    }

    @Override
    public void abort(int term) {
        if (!goDown()) {
            return;
        }
        QpPort p = peer.port;
        if (p == null) {
            return;
        }
        if (term != 0) {
            p.failed(NtStatus.STATUS_REMOTE_RESOURCES, term, false, DisconnectReason.TERMINATE_RECEIVED);
        } else {
            p.peerClosed(); // no Terminate: the peer sees an orderly end of the stream
        }
    }

    @Override
    public void reset() {
        if (goDown()) {
            failed(peer.port, NtStatus.STATUS_CONNECTION_RESET, 0, false, DisconnectReason.CONNECTION_RESET);
        }
    }

    @Override
    public WireCounters counters() {
        return counters;
    }

    @Override
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public String toString() {
        return "LoopbackConnection[" + (active ? "active " : "passive ") + local + " <-> " + remote
                + (down != null && down.get() ? " down" : "") + "]";
    }
}
