package io.jndk.provider;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.Term;

/**
 * The in-JVM transport: executes a QP's initiator requests directly against the peer QP, in posting order,
 * on the posting thread. Every byte goes through the same token/bounds/rights checks that the iWARP
 * receive path applies; a violation is answered as a Terminate would be (the detecting side's QP and the
 * requester's QP both go to error, outstanding requests are flushed, disconnect events are indicated).
 */
final class LoopbackLink implements Link {
    private final SoftQp a;
    private final SoftQp b;
    private volatile boolean up = true;

    /** Per-direction scratch, used under the sending QP's lock: nothing is allocated per request. */
    private static final class Scratch {
        final TokenTable.Target[] src = targets();
        final long[] srcLen = new long[17];
        final TokenTable.Target[] dst = targets();
        final long[] dstLen = new long[17];
        final Chunk c1 = new Chunk();
        final Chunk c2 = new Chunk();
        final WorkRequest recv = new WorkRequest(64, 0);

        private static TokenTable.Target[] targets() {
            TokenTable.Target[] t = new TokenTable.Target[65];
            for (int i = 0; i < t.length; i++) {
                t[i] = new TokenTable.Target();
            }
            return t;
        }
    }

    private final Scratch fromA = new Scratch();
    private final Scratch fromB = new Scratch();

    LoopbackLink(SoftQp a, SoftQp b) {
        this.a = a;
        this.b = b;
    }

    private SoftQp peer(SoftQp q) {
        return q == a ? b : a;
    }

    @Override
    public boolean up() {
        return up;
    }

    @Override
    public void kick(SoftQp qp) {
        Scratch s = qp == a ? fromA : fromB;
        SoftQp peer = peer(qp);
        synchronized (qp.lock) {
            while (qp.sqReleased() > 0) {
                if (!up || qp.state == SoftQp.State.ERROR) {
                    return; // the scheduled flush completes what is left
                }
                WorkRequest w = qp.sq.poll();
                qp.sqUnstarted--;
                try {
                    execute(qp, peer, w, s);
                } finally {
                    w.clearRefs();
                    w.op = 0;
                }
            }
        }
    }

    private void execute(SoftQp qp, SoftQp peer, WorkRequest w, Scratch s) {
        switch (w.op) {
            case NdkOperationType.WRITE -> write(qp, peer, w, s);
            case NdkOperationType.READ -> read(qp, peer, w, s);
            case NdkOperationType.SEND, NdkOperationType.SEND | 0x8000 -> send(qp, peer, w, s);
            case NdkOperationType.BIND -> local(qp, w, LocalOps.bind(qp, w));
            case NdkOperationType.FAST_REGISTER -> local(qp, w, LocalOps.fastRegister(qp, w));
            case NdkOperationType.INVALIDATE -> local(qp, w, LocalOps.invalidate(qp, w));
            default -> localError(qp, w, NtStatus.STATUS_INVALID_DEVICE_REQUEST);
        }
    }

    // ---- local SGE resolution -----------------------------------------------------------------

    /** Resolves the request's local SGEs; returns the total length, or -1 on an access violation. */
    private long resolveLocal(SoftQp qp, WorkRequest w, boolean write, TokenTable.Target[] t, long[] len) {
        if (w.isInline()) {
            TokenTable.Target x = t[0];
            x.logical = true;
            x.region = null;
            x.chunk.segment = w.inline;
            x.chunk.offset = 0;
            x.chunk.length = w.inlineLen;
            len[0] = w.inlineLen;
            return w.inlineLen;
        }
        long total = 0;
        TokenTable tokens = qp.adapter.tokens();
        for (int i = 0; i < w.nSge; i++) {
            long l = Integer.toUnsignedLong(w.len[i]);
            len[i] = l;
            if (l == 0) {
                t[i].logical = true;
                t[i].chunk.length = 0;
                continue;
            }
            if (!tokens.checkLocal(w.token[i], w.addr[i], l, write, qp.pd, qp.adapter.pageMap(), t[i])) {
                qp.adapter.count(NdkCounter.ACCESS_ERRORS);
                return -1;
            }
            if (!t[i].logical && !t[i].region.backed(t[i].offset, l, t[i].chunk)) {
                return -1;
            }
            total += l;
        }
        return total;
    }

    private static boolean chunkOf(TokenTable.Target t, long off, Chunk out) {
        if (t.logical) {
            if (off >= t.chunk.length) {
                return false;
            }
            out.segment = t.chunk.segment;
            out.offset = t.chunk.offset + off;
            out.length = t.chunk.length - off;
            return true;
        }
        return t.region.chunk(t.offset + off, out);
    }

    /** Copies {@code total} bytes from one resolved SGE list into another. */
    private static boolean copyLists(TokenTable.Target[] src, long[] srcLen, int ns, TokenTable.Target[] dst, long[] dstLen,
            int nd, long total, Chunk c1, Chunk c2) {
        int si = 0, di = 0;
        long so = 0, dof = 0;
        while (total > 0) {
            while (si < ns && so >= srcLen[si]) {
                si++;
                so = 0;
            }
            while (di < nd && dof >= dstLen[di]) {
                di++;
                dof = 0;
            }
            if (si >= ns || di >= nd || !chunkOf(src[si], so, c1) || !chunkOf(dst[di], dof, c2)) {
                return false;
            }
            long n = Math.min(total, Math.min(Math.min(c1.length, srcLen[si] - so), Math.min(c2.length, dstLen[di] - dof)));
            java.lang.foreign.MemorySegment.copy(c1.segment, c1.offset, c2.segment, c2.offset, n);
            so += n;
            dof += n;
            total -= n;
        }
        return true;
    }

    private static int count(WorkRequest w) {
        return w.isInline() ? 1 : w.nSge;
    }

    // ---- operations ---------------------------------------------------------------------------

    private void write(SoftQp qp, SoftQp peer, WorkRequest w, Scratch s) {
        long total = resolveLocal(qp, w, false, s.src, s.srcLen);
        if (total < 0) {
            localError(qp, w, NtStatus.STATUS_ACCESS_VIOLATION);
            return;
        }
        if (!peerAccepts(qp, peer, w) || !tagged(qp, peer, w, s, total, false)) {
            return;
        }
        qp.adapter.count(NdkCounter.BYTES_OUT, total);
        peer.adapter.count(NdkCounter.BYTES_IN, total);
        qp.completeInitiator(w, NtStatus.STATUS_SUCCESS, 0, 0);
    }

    private void read(SoftQp qp, SoftQp peer, WorkRequest w, Scratch s) {
        long total = resolveLocal(qp, w, true, s.dst, s.dstLen);
        if (total < 0) {
            localError(qp, w, NtStatus.STATUS_ACCESS_VIOLATION);
            return;
        }
        if (!peerAccepts(qp, peer, w)) {
            return;
        }
        if (qp.effectiveOrd == 0 || peer.effectiveIrd == 0) {
            // the Read Request would exceed the responder's inbound read limit
            remoteError(qp, peer, w, Term.RDMAP_CATASTROPHIC_STREAM);
            return;
        }
        if (!tagged(qp, peer, w, s, total, true)) {
            return;
        }
        LocalOps.readLocalInvalidate(qp, w);
        qp.adapter.count(NdkCounter.BYTES_IN, total);
        peer.adapter.count(NdkCounter.BYTES_OUT, total);
        qp.completeInitiator(w, NtStatus.STATUS_SUCCESS, (int) total, 0);
    }

    /** Whether the peer QP takes inbound traffic; otherwise it answers as with a Terminate. */
    private boolean peerAccepts(SoftQp qp, SoftQp peer, WorkRequest w) {
        if (peer.state != SoftQp.State.CONNECTED && peer.state != SoftQp.State.PEER_DISCONNECTED) {
            remoteError(qp, peer, w, Term.RDMAP_CATASTROPHIC_STREAM);
            return false;
        }
        return true;
    }

    /**
     * The tagged half of an RDMA Write (into the peer) or Read (from the peer): the peer's one access check of
     * {@code [remoteAddress, +total)}, then the copy. A violation is answered as the peer's Terminate would be:
     * DDP tagged codes for a Write target, RDMAP protection codes for a Read source.
     */
    private boolean tagged(SoftQp qp, SoftQp peer, WorkRequest w, Scratch s, long total, boolean read) {
        if (total == 0) {
            return true; // zero-length tagged messages need no lookup (siw: the RTR's STag 1)
        }
        TokenTable.Target t = read ? s.src[0] : s.dst[0];
        int r = peer.adapter.tokens().checkRemote(w.remoteToken, w.remoteAddress, total,
                read ? TokenTable.RIGHT_REMOTE_READ : TokenTable.RIGHT_REMOTE_WRITE, peer.pd, t);
        if (r != TokenTable.OK) {
            peer.adapter.count(NdkCounter.ACCESS_ERRORS);
            remoteError(qp, peer, w, read ? LocalOps.rdmapProtection(r) : LocalOps.ddpTagged(r));
            return false;
        }
        boolean copied;
        if (read) {
            s.srcLen[0] = total;
            copied = copyLists(s.src, s.srcLen, 1, s.dst, s.dstLen, w.nSge, total, s.c1, s.c2);
        } else {
            s.dstLen[0] = total;
            copied = copyLists(s.src, s.srcLen, count(w), s.dst, s.dstLen, 1, total, s.c1, s.c2);
        }
        if (!copied) {
            remoteError(qp, peer, w, read ? Term.RDMAP_BASE_BOUNDS : Term.DDP_TAGGED_BASE_BOUNDS);
        }
        return copied;
    }

    private void send(SoftQp qp, SoftQp peer, WorkRequest w, Scratch s) {
        long total = resolveLocal(qp, w, false, s.src, s.srcLen);
        if (total < 0) {
            localError(qp, w, NtStatus.STATUS_ACCESS_VIOLATION);
            return;
        }
        if (!peerAccepts(qp, peer, w)) {
            return;
        }
        WorkRequest r = s.recv;
        if (!peer.takeReceive(r)) {
            remoteError(qp, peer, w, Term.DDP_UNTAGGED_NO_BUFFER);
            return;
        }
        Object rctx = r.context;
        r.context = null;
        boolean solicited = (w.flags & NdkOpFlags.SEND_AND_SOLICIT_EVENT) != 0;
        long capacity = 0;
        for (int i = 0; i < r.nSge; i++) {
            capacity += Integer.toUnsignedLong(r.len[i]);
        }
        if (total > capacity) {
            peer.completeReceive(rctx, NtStatus.STATUS_BUFFER_OVERFLOW, 0, NdkOperationType.RECEIVE,
                    Term.DDP_UNTAGGED_TOO_LONG, 0, solicited);
            remoteError(qp, peer, w, Term.DDP_UNTAGGED_TOO_LONG);
            return;
        }
        long need = total;
        int nd = 0;
        for (int i = 0; i < r.nSge && need > 0; i++) {
            long l = Math.min(Integer.toUnsignedLong(r.len[i]), need);
            s.dstLen[i] = l;
            nd = i + 1;
            if (l == 0) {
                s.dst[i].logical = true;
                s.dst[i].chunk.length = 0;
                continue;
            }
            if (!peer.adapter.tokens().checkLocal(r.token[i], r.addr[i], l, true, peer.pd, peer.adapter.pageMap(),
                    s.dst[i])) {
                peer.adapter.count(NdkCounter.ACCESS_ERRORS);
                peer.completeReceive(rctx, NtStatus.STATUS_ACCESS_VIOLATION, 0, NdkOperationType.RECEIVE,
                        Term.DDP_CATASTROPHIC, 0, solicited);
                remoteError(qp, peer, w, Term.DDP_CATASTROPHIC);
                return;
            }
            need -= l;
        }
        if (!copyLists(s.src, s.srcLen, count(w), s.dst, s.dstLen, nd, total, s.c1, s.c2)) {
            peer.completeReceive(rctx, NtStatus.STATUS_ACCESS_VIOLATION, 0, NdkOperationType.RECEIVE,
                    Term.DDP_CATASTROPHIC, 0, solicited);
            remoteError(qp, peer, w, Term.DDP_CATASTROPHIC);
            return;
        }
        int type = NdkOperationType.RECEIVE;
        long invalidated = 0;
        if (w.op == (NdkOperationType.SEND | 0x8000)) {
            int term = LocalOps.remoteInvalidate(peer, w.remoteToken);
            if (term != 0) {
                peer.completeReceive(rctx, NtStatus.STATUS_ACCESS_VIOLATION, 0, NdkOperationType.RECEIVE, term, 0, solicited);
                remoteError(qp, peer, w, term);
                return;
            }
            type = NdkOperationType.RECEIVE_AND_INVALIDATE;
            invalidated = Integer.toUnsignedLong(w.remoteToken);
        }
        qp.adapter.count(NdkCounter.BYTES_OUT, total);
        peer.adapter.count(NdkCounter.BYTES_IN, total);
        peer.completeReceive(rctx, NtStatus.STATUS_SUCCESS, (int) total, type, 0, invalidated, solicited);
        qp.completeInitiator(w, NtStatus.STATUS_SUCCESS, 0, 0);
    }

    private void local(SoftQp qp, WorkRequest w, int status) {
        if (status == NtStatus.STATUS_SUCCESS) {
            qp.completeInitiator(w, NtStatus.STATUS_SUCCESS, 0, 0);
        } else {
            localError(qp, w, status);
        }
    }

    // ---- errors -------------------------------------------------------------------------------

    /** A local error completes the request with {@code status}; the QP goes to error and the connection is aborted. */
    private void localError(SoftQp qp, WorkRequest w, int status) {
        qp.completeInitiator(w, status, 0, 0);
        abort(qp, Term.RDMAP_CATASTROPHIC);
    }

    /** The peer detected an error in {@code w}: it sends a Terminate; the request completes with REMOTE_RESOURCES. */
    private void remoteError(SoftQp qp, SoftQp peer, WorkRequest w, int term) {
        qp.completeInitiator(w, NtStatus.STATUS_REMOTE_RESOURCES, 0, term);
        abort(peer, term);
    }

    @Override
    public void disconnect(SoftQp from) {
        boolean wasUp = up;
        up = false;
        SoftQp other = peer(from);
        from.flushAll();
        if (wasUp && other.state == SoftQp.State.CONNECTED) {
            other.state = SoftQp.State.PEER_DISCONNECTED;
            SoftConnector c = other.connector;
            if (c != null) {
                c.indicateDisconnect(DisconnectReason.PEER_GRACEFUL_CLOSE);
            }
        }
    }

    @Override
    public void abort(SoftQp detector, int term) {
        if (!up) {
            return;
        }
        up = false;
        SoftQp other = peer(detector);
        detector.toError("Terminate sent");
        other.toError("Terminate received");
        detector.adapter.terminate(true, term, detector);
        other.adapter.terminate(false, term, other);
        detector.adapter.dispatcher().run(() -> {
            detector.flushAll();
            SoftConnector c = detector.connector;
            if (c != null) {
                c.indicateDisconnect(DisconnectReason.TERMINATE_SENT);
            }
        });
        other.adapter.dispatcher().run(() -> {
            other.flushAll();
            SoftConnector c = other.connector;
            if (c != null) {
                c.indicateDisconnect(DisconnectReason.TERMINATE_RECEIVED);
            }
        });
    }

    @Override
    public void reset(SoftQp from) {
        if (!up) {
            from.flushAll();
            return;
        }
        up = false;
        SoftQp other = peer(from);
        other.toError("connection reset");
        from.flushAll();
        other.adapter.dispatcher().run(() -> {
            other.flushAll();
            SoftConnector c = other.connector;
            if (c != null) {
                c.indicateDisconnect(DisconnectReason.CONNECTION_RESET);
            }
        });
    }
}
