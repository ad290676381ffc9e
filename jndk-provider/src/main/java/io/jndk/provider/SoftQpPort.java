package io.jndk.provider;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireRequest;
import io.jndk.provider.spi.Term;

/**
 * The verbs engine's side of one connected QP, for every transport: the only implementation of the initiator and
 * responder rules. Initiator requests are taken from the QP's {@link SendQueue} in posting order (local operations
 * execute here), stay there until they finish, and complete in posting order. Every local SGE and every inbound
 * tagged access goes through the token table's one check before a transport sees memory (as a {@link BufferCursor});
 * inbound Sends take posted receives, with the overflow and invalidation rules; a failure moves the QP to error and
 * flushes it.
 */
final class SoftQpPort implements QpPort {
    private final SoftQp qp;
    private final WorkRequest recv = new WorkRequest(64, 0);
    private final CheckedCursor.Sgl recvCursor = new CheckedCursor.Sgl(64);
    private final CheckedCursor.Range writeRange = new CheckedCursor.Range();
    /** Source cursors of inbound Reads (receive side only), created with the first. */
    private CheckedCursor.Range[] readRanges;
    private int nextReadRange;
    private boolean receiving;
    private Object receiveContext;

    SoftQpPort(SoftQp qp) {
        this.qp = qp;
    }

    // ---- transmit -----------------------------------------------------------------------------

    @Override
    public int nextRequest(WireRequest out, int readsOutstanding) {
        synchronized (qp.lock) {
            SendQueue sq = qp.sq;
            while (true) {
                WorkRequest w = qp.state() == SoftQp.State.ERROR ? null : sq.peekNext();
                if (w == null) {
                    return NONE;
                }
                if ((w.flags & NdkOpFlags.READ_FENCE) != 0 && readsOutstanding > 0) {
                    return FENCED;
                }
                sq.start(w);
                if (w.op.local()) {
                    int local = switch (w.op) {
                        case BIND -> LocalOps.bind(qp, w);
                        case FAST_REGISTER -> LocalOps.fastRegister(qp, w);
                        default -> LocalOps.invalidate(qp, w);
                    };
                    if (local != NtStatus.STATUS_SUCCESS) {
                        localFailure(w, local);
                        return FAILED;
                    }
                    sq.finish(w, NtStatus.STATUS_SUCCESS, 0, 0);
                    continue;
                }
                boolean read = w.op == WorkRequest.Op.READ;
                if (w.cursor == null) {
                    w.cursor = new CheckedCursor.Sgl(Math.max(qp.maxInitiatorSge, 1));
                }
                if (!w.cursor.resolve(qp, w, read ? qp.adapter.readSinkRights() : 0)) {
                    localFailure(w, NtStatus.STATUS_ACCESS_VIOLATION);
                    return FAILED;
                }
                out.kind = switch (w.op) {
                    case READ -> WireRequest.READ;
                    case WRITE -> WireRequest.WRITE;
                    default -> WireRequest.SEND;
                };
                out.length = w.cursor.total;
                out.remoteAddress = w.remoteAddress;
                out.remoteToken = w.remoteToken;
                out.solicited = (w.flags & NdkOpFlags.SEND_AND_SOLICIT_EVENT) != 0;
                out.invalidate = w.op == WorkRequest.Op.SEND_INVALIDATE;
                out.invalidateToken = out.invalidate ? w.remoteToken : 0;
                out.local = w.cursor;
                out.handle = w;
                return READY;
            }
        }
    }

    /** Under the QP lock: a local error completes the request, the QP goes to error, the rest flushes. */
    private void localFailure(WorkRequest w, int status) {
        qp.sq.finish(w, status, 0, 0);
        qp.toError("local error " + NtStatus.name(status));
        SoftConnector c = qp.connector();
        qp.adapter.dispatcher().run(() -> {
            qp.flushAll();
            if (c != null) {
                c.indicateDisconnect(DisconnectReason.TERMINATE_SENT);
            }
        });
    }

    @Override
    public void sent(WireRequest r) {
        synchronized (qp.lock) {
            WorkRequest w = (WorkRequest) r.handle;
            if (!qp.sq.isStarted(w)) {
                return;
            }
            if (r.kind != WireRequest.READ) { // a Read's bytes count in when its response is placed
                qp.adapter.count(NdkCounter.BYTES_OUT, r.length);
                qp.sq.finish(w, NtStatus.STATUS_SUCCESS, 0, 0);
            }
        }
    }

    @Override
    public void readDone(WireRequest r) {
        synchronized (qp.lock) {
            WorkRequest w = (WorkRequest) r.handle;
            if (!qp.sq.isStarted(w)) {
                return;
            }
            LocalOps.readLocalInvalidate(qp, w);
            qp.adapter.count(NdkCounter.BYTES_IN, r.length);
            qp.sq.finish(w, NtStatus.STATUS_SUCCESS, (int) r.length, 0);
        }
    }

    // ---- receive ------------------------------------------------------------------------------

    @Override
    public int writeTarget(int stag, long to, long length, BufferCursor[] out) {
        if (qp.state() == SoftQp.State.ERROR) {
            return Term.RDMAP_CATASTROPHIC_STREAM;
        }
        int r = qp.adapter.tokens().checkRemote(stag, to, length, TokenTable.RIGHT_REMOTE_WRITE, qp.pd, writeRange.target);
        if (r != TokenTable.OK) {
            qp.adapter.count(NdkCounter.ACCESS_ERRORS);
            return LocalOps.ddpTagged(r);
        }
        writeRange.length = length;
        qp.adapter.count(NdkCounter.BYTES_IN, length);
        out[0] = writeRange;
        return 0;
    }

    @Override
    public int readSource(int stag, long to, long length, BufferCursor[] out) {
        if (qp.state() == SoftQp.State.ERROR) {
            return Term.RDMAP_CATASTROPHIC_STREAM;
        }
        CheckedCursor.Range range = nextReadRange();
        int r = qp.adapter.tokens().checkRemote(stag, to, length, TokenTable.RIGHT_REMOTE_READ, qp.pd, range.target);
        if (r != TokenTable.OK) {
            qp.adapter.count(NdkCounter.ACCESS_ERRORS);
            return LocalOps.rdmapProtection(r);
        }
        range.length = length;
        qp.adapter.count(NdkCounter.BYTES_OUT, length);
        out[0] = range;
        return 0;
    }

    /**
     * The source cursor for the next inbound Read. The transport queues at most the inbound read limit and frees
     * a queue place when the last segment of a response joins a batch, with at most
     * {@link #READ_RESPONSE_BATCH} responses in one batch, so a ring that much longer never hands out a cursor
     * still in use.
     */
    private CheckedCursor.Range nextReadRange() {
        if (readRanges == null) {
            readRanges = new CheckedCursor.Range[Math.max(1, qp.effectiveIrd()) + READ_RESPONSE_BATCH];
            for (int i = 0; i < readRanges.length; i++) {
                readRanges[i] = new CheckedCursor.Range();
            }
        }
        CheckedCursor.Range r = readRanges[nextReadRange];
        nextReadRange = (nextReadRange + 1) % readRanges.length;
        return r;
    }

    @Override
    public boolean postedAlone() {
        return qp.sq.sizeHint() <= 1 && !qp.initiatorCq.holdsEntriesHint();
    }

    @Override
    public int inboundReadLimit() {
        return qp.effectiveIrd();
    }

    @Override
    public int outboundReadLimit() {
        return qp.effectiveOrd();
    }

    /**
     * The receive in progress changes under this lock: the receive side begins and ends it, while a failure reported
     * by the transmit side ({@link #failed}) may end it at the same moment; exactly one of them completes it.
     */
    private final Object receiveLock = new Object();

    @Override
    public int beginReceive(BufferCursor[] out) {
        synchronized (receiveLock) {
            return beginReceiveLocked(out);
        }
    }

    private int beginReceiveLocked(BufferCursor[] out) {
        if (qp.state() == SoftQp.State.ERROR) {
            return Term.RDMAP_CATASTROPHIC_STREAM;
        }
        if (!qp.takeReceive(recv)) {
            return Term.DDP_UNTAGGED_NO_BUFFER;
        }
        receiveContext = recv.context;
        recv.context = null;
        recv.flags = 0;
        if (!recvCursor.resolve(qp, recv, TokenTable.RIGHT_LOCAL_WRITE)) {
            qp.completeReceive(receiveContext, NtStatus.STATUS_ACCESS_VIOLATION, 0, NdkOperationType.RECEIVE,
                    Term.DDP_CATASTROPHIC, 0, false);
            receiveContext = null;
            return Term.DDP_CATASTROPHIC;
        }
        receiving = true;
        out[0] = recvCursor;
        return 0;
    }

    @Override
    public int endReceive(long bytes, boolean solicited, boolean invalidate, int token) {
        synchronized (receiveLock) {
            return endReceiveLocked(bytes, solicited, invalidate, token);
        }
    }

    private int endReceiveLocked(long bytes, boolean solicited, boolean invalidate, int token) {
        if (!receiving) {
            return Term.DDP_UNTAGGED_NO_BUFFER;
        }
        receiving = false;
        Object ctx = receiveContext;
        receiveContext = null;
        int type = NdkOperationType.RECEIVE;
        long tso = 0;
        if (invalidate) {
            int term = LocalOps.remoteInvalidate(qp, token);
            if (term != 0) {
                qp.completeReceive(ctx, NtStatus.STATUS_ACCESS_VIOLATION, 0, NdkOperationType.RECEIVE, term, 0, solicited);
                return term;
            }
            type = NdkOperationType.RECEIVE_AND_INVALIDATE;
            tso = Integer.toUnsignedLong(token);
        }
        qp.adapter.count(NdkCounter.BYTES_IN, bytes);
        qp.completeReceive(ctx, NtStatus.STATUS_SUCCESS, (int) bytes, type, 0, tso, solicited);
        return 0;
    }

    @Override
    public void failReceive(int status, int term) {
        synchronized (receiveLock) {
            if (!receiving) {
                return;
            }
            receiving = false;
            Object ctx = receiveContext;
            receiveContext = null;
            qp.completeReceive(ctx, status, 0, NdkOperationType.RECEIVE, term, 0, false);
        }
    }

    // ---- connection events --------------------------------------------------------------------

    @Override
    public void failed(int status, int term, boolean sent, int reason) {
        synchronized (qp.lock) {
            qp.toError(DisconnectReason.name(reason));
            qp.sq.failOldestStarted(status, term);
        }
        if (term != 0 || reason == DisconnectReason.TERMINATE_RECEIVED) {
            qp.adapter.terminate(sent, term, qp);
        }
        failReceive(NtStatus.STATUS_CANCELLED, 0);
        WireLink l = qp.link();
        if (l != null) {
            l.down();
        }
        qp.flushAll();
        SoftConnector c = qp.connector();
        if (c != null) {
            c.indicateDisconnect(reason);
        }
    }

    @Override
    public void peerClosed() {
        qp.transition(SoftQp.State.CONNECTED, SoftQp.State.PEER_DISCONNECTED);
        WireLink l = qp.link();
        if (l != null) {
            l.down();
        }
        SoftConnector c = qp.connector();
        if (c != null) {
            c.indicateDisconnect(DisconnectReason.PEER_GRACEFUL_CLOSE);
        }
    }
}
