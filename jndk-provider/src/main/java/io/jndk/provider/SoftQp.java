package io.jndk.provider;

import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.provider.events.QpStateEvent;
import java.lang.foreign.MemorySegment;
import io.jndk.provider.spi.Term;

/**
 * A queue pair: a receive queue (own, or an SRQ) and an initiator queue of preallocated slots, the QP
 * state machine, and post-time validation. Data movement is done by the connection's {@link Link}.
 *
 * <p>Locks: {@link #lock} guards the initiator queue and the state; {@link #rqLock} guards the receive
 * queue. Order: qp lock, then any receive-queue lock, then SRQ, then CQ. Nothing calls back to the consumer
 * while holding them.
 */
final class SoftQp extends SoftObject implements NdkQp {
    enum State { IDLE, CONNECTING, CONNECTED, PEER_DISCONNECTED, ERROR }

    static final int SEND_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE | NdkOpFlags.SEND_AND_SOLICIT_EVENT
            | NdkOpFlags.INLINE | NdkOpFlags.DEFER;
    static final int WRITE_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE | NdkOpFlags.INLINE | NdkOpFlags.DEFER;
    static final int READ_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE
            | NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE | NdkOpFlags.DEFER;
    static final int BIND_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE | NdkOpFlags.ALLOW_REMOTE_READ
            | NdkOpFlags.ALLOW_REMOTE_WRITE | NdkOpFlags.DEFER;
    static final int FR_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE | NdkOpFlags.ALLOW_REMOTE_READ
            | NdkOpFlags.ALLOW_REMOTE_WRITE | NdkOpFlags.RDMA_READ_SINK | NdkOpFlags.DEFER;
    static final int INVALIDATE_FLAGS = NdkOpFlags.SILENT_SUCCESS | NdkOpFlags.READ_FENCE | NdkOpFlags.DEFER;

    final SoftPd pd;
    final SoftCq receiveCq;
    final SoftCq initiatorCq;
    final SoftSrq srq;
    final Object qpContext;
    final int maxReceiveSge;
    final int maxInitiatorSge;
    final int inlineDataSize;
    final Object lock = new Object();
    final Object rqLock = new Object();
    final Ring sq;
    final Ring rq;
    /** Initiator requests posted and not yet taken by the engine. */
    int sqUnstarted;
    /** The newest of them that were posted deferred and not yet released by a non-deferred post (guarded by lock). */
    int sqDeferred;
    /** Set under {@link #lock} when the engine must be kicked; the kick happens after the lock is released. */
    private boolean kickOwed;
    volatile State state = State.IDLE;
    volatile Link link;
    volatile SoftConnector connector;
    /** Negotiated read limits (set when connected). */
    volatile int effectiveIrd;
    volatile int effectiveOrd;
    /** Whether this QP was ever connected (a disconnected QP cannot reconnect). */
    volatile boolean wasConnected;

    SoftQp(SoftPd pd, SoftCq rcq, SoftCq icq, SoftSrq srq, Object qpContext, int rqDepth, int iqDepth, int maxRecvSge,
            int maxInitSge, int inline) {
        super(pd.adapter, NdkObjectType.QP);
        this.pd = pd;
        this.receiveCq = rcq;
        this.initiatorCq = icq;
        this.srq = srq;
        this.qpContext = qpContext;
        this.maxReceiveSge = maxRecvSge;
        this.maxInitiatorSge = maxInitSge;
        this.inlineDataSize = inline;
        this.sq = new Ring(iqDepth, maxInitSge, inline);
        this.rq = srq == null ? new Ring(rqDepth, maxRecvSge, 0) : null;
    }

    // ---- posting -----------------------------------------------------------------------------

    /** Common checks of an initiator post; returns a failure status or SUCCESS. */
    private int checkInitiator(int flags, int allowed) {
        if ((flags & ~allowed) != 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (state != State.CONNECTED || !isOpen()) {
            return NtStatus.STATUS_CONNECTION_INVALID;
        }
        if (sq.full()) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** Copies the SGE list (or the inline bytes) into {@code w}; returns a failure status or SUCCESS. */
    private int copySgl(WorkRequest w, NdkSge[] sgl, int nSge, int maxSge, int flags) {
        if (nSge < 0 || (nSge > 0 && (sgl == null || sgl.length < nSge))) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        long total = 0;
        if ((flags & NdkOpFlags.INLINE) != 0) {
            for (int i = 0; i < nSge; i++) {
                NdkSge s = sgl[i];
                if (s == null) {
                    return NtStatus.STATUS_INVALID_PARAMETER;
                }
                total += Integer.toUnsignedLong(s.length);
            }
            if (total > inlineDataSize) {
                return NtStatus.STATUS_INVALID_PARAMETER;
            }
            int pos = 0;
            for (int i = 0; i < nSge; i++) {
                NdkSge s = sgl[i];
                if (s.length == 0) {
                    continue;
                }
                if (s.inlineSource == null || s.inlineSource.byteSize() < Integer.toUnsignedLong(s.length)) {
                    return NtStatus.STATUS_INVALID_PARAMETER;
                }
                MemorySegment.copy(s.inlineSource, 0, w.inline, pos, s.length);
                pos += s.length;
            }
            w.inlineLen = pos;
            w.nSge = 0;
            return NtStatus.STATUS_SUCCESS;
        }
        if (nSge > maxSge) {
            return NtStatus.STATUS_DATA_OVERRUN;
        }
        for (int i = 0; i < nSge; i++) {
            NdkSge s = sgl[i];
            if (s == null) {
                return NtStatus.STATUS_INVALID_PARAMETER;
            }
            w.addr[i] = s.address;
            w.len[i] = s.length;
            w.token[i] = s.token;
            total += Integer.toUnsignedLong(s.length);
        }
        if (total > Integer.toUnsignedLong(adapter.infoInternal().maxTransferLength())) {
            return NtStatus.STATUS_BUFFER_OVERFLOW;
        }
        w.nSge = nSge;
        w.inlineLen = 0;
        return NtStatus.STATUS_SUCCESS;
    }

    /** Publishes the slot and, unless deferred, releases everything queued to the engine. */
    private int commit(WorkRequest w, int flags) {
        sq.commit();
        sqUnstarted++;
        adapter.count(NdkCounter.WORK_REQUESTS);
        if ((flags & NdkOpFlags.DEFER) != 0) {
            sqDeferred++;
        } else {
            release();
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** An inline failure: first hand every earlier deferred request to the engine (NDK deferral rule). */
    private int fail(int status) {
        if (sqUnstarted > 0) {
            release();
        }
        return status;
    }

    /** Under the lock: every queued request may start; the engine is kicked once the lock is released. */
    private void release() {
        sqDeferred = 0;
        kickOwed = true;
    }

    /** Under the lock: requests the engine may take now (deferred ones wait for a release). */
    int sqReleased() {
        return sqUnstarted - sqDeferred;
    }

    /**
     * Ends a post: kicks the engine outside the QP lock when the post released work, so that an engine that
     * transmits on the posting thread never does socket I/O under a provider lock.
     */
    private int posted(int status) {
        boolean kick;
        synchronized (lock) {
            kick = kickOwed;
            kickOwed = false;
        }
        Link l = link;
        if (kick && l != null) {
            l.kick(this);
        }
        return status;
    }

    private int postData(int op, Object ctx, NdkSge[] sgl, int nSge, int flags, int allowed, int maxSge, long remoteAddress,
            int remoteToken) {
        int s;
        synchronized (lock) {
            s = postDataLocked(op, ctx, sgl, nSge, flags, allowed, maxSge, remoteAddress, remoteToken);
        }
        return posted(s);
    }

    private int postDataLocked(int op, Object ctx, NdkSge[] sgl, int nSge, int flags, int allowed, int maxSge,
            long remoteAddress, int remoteToken) {
        int s = checkInitiator(flags, allowed);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        WorkRequest w = sq.tail();
        s = copySgl(w, sgl, nSge, maxSge, flags);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        w.op = op;
        w.flags = flags;
        w.context = ctx;
        w.remoteAddress = remoteAddress;
        w.remoteToken = remoteToken;
        return commit(w, flags);
    }

    @Override
    public int send(Object ctx, NdkSge[] sgl, int nSge, int flags) {
        return postData(NdkOperationType.SEND, ctx, sgl, nSge, flags, SEND_FLAGS, maxInitiatorSge, 0, 0);
    }

    @Override
    public int sendAndInvalidate(Object ctx, NdkSge[] sgl, int nSge, int flags, int remoteToken) {
        // marked as a send whose peer invalidates remoteToken: op SEND with the RECEIVE_AND_INVALIDATE bit kept aside
        return postData(NdkOperationType.SEND | 0x8000, ctx, sgl, nSge, flags, SEND_FLAGS, maxInitiatorSge, 0, remoteToken);
    }

    @Override
    public int write(Object ctx, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        return postData(NdkOperationType.WRITE, ctx, sgl, nSge, flags, WRITE_FLAGS, maxInitiatorSge, remoteAddress,
                remoteToken);
    }

    @Override
    public int read(Object ctx, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        int maxSge = Math.min(maxInitiatorSge, adapter.infoInternal().maxReadRequestSge());
        return postData(NdkOperationType.READ, ctx, sgl, nSge, flags, READ_FLAGS, maxSge, remoteAddress, remoteToken);
    }

    @Override
    public int bind(Object ctx, NdkMr mr, NdkMw mw, long va, long length, int flags) {
        int s;
        synchronized (lock) {
            s = bindLocked(ctx, mr, mw, va, length, flags);
        }
        return posted(s);
    }

    private int bindLocked(Object ctx, NdkMr mr, NdkMw mw, long va, long length, int flags) {
        if ((flags & ~BIND_FLAGS) != 0 || !(mr instanceof SoftMr m) || !(mw instanceof SoftMw w) || m.pd != pd
                || w.pd != pd || length < 0 || length > adapter.infoInternal().maxWindowSize()) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        int s = checkInitiator(flags, BIND_FLAGS);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        TokenTable.Binding b = m.entry.binding;
        if (b == null) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        long off = va - b.baseVa();
        if (va == 0 || Long.compareUnsigned(va, b.baseVa()) < 0 || Long.compareUnsigned(off, b.length()) > 0
                || Long.compareUnsigned(length, b.length() - off) > 0) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        if (NdkOpFlags.remoteWrite(flags) && (b.rights() & TokenTable.RIGHT_LOCAL_WRITE) == 0) {
            return fail(NtStatus.STATUS_ACCESS_VIOLATION);
        }
        WorkRequest r = sq.tail();
        r.op = NdkOperationType.BIND;
        r.flags = flags;
        r.context = ctx;
        r.mr = m;
        r.mw = w;
        r.va = va;
        r.length = length;
        r.nSge = 0;
        r.newKey = w.issueKey();
        return commit(r, flags);
    }

    @Override
    public int fastRegister(Object ctx, NdkMr mr, int pageCount, long[] pageArray, int fbo, long length, long baseVa,
            int flags) {
        int s;
        synchronized (lock) {
            s = fastRegisterLocked(ctx, mr, pageCount, pageArray, fbo, length, baseVa, flags);
        }
        return posted(s);
    }

    private int fastRegisterLocked(Object ctx, NdkMr mr, int pageCount, long[] pageArray, int fbo, long length, long baseVa,
            int flags) {
        if ((flags & ~FR_FLAGS) != 0 || !(mr instanceof SoftMr m) || !m.fastRegister || m.pd != pd) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        if (!m.initialized || pageCount <= 0 || pageCount > m.frPageCount || pageArray == null
                || pageArray.length < pageCount || fbo < 0 || fbo >= PageMap.PAGE || length < 0
                || length > (long) pageCount * PageMap.PAGE - fbo
                || length > adapter.infoInternal().maxRegistrationSize()) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        if ((baseVa & (PageMap.PAGE - 1)) != fbo) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        for (int i = 0; i < pageCount; i++) {
            if ((pageArray[i] & (PageMap.PAGE - 1)) != 0) {
                return fail(NtStatus.STATUS_INVALID_PARAMETER);
            }
        }
        int s = checkInitiator(flags, FR_FLAGS);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        boolean remote = NdkOpFlags.remoteRead(flags) || NdkOpFlags.remoteWrite(flags);
        if (remote && !m.frRemoteAccess) {
            return fail(NtStatus.STATUS_ACCESS_VIOLATION);
        }
        WorkRequest r = sq.tail();
        r.op = NdkOperationType.FAST_REGISTER;
        r.flags = flags;
        r.context = ctx;
        r.mr = m;
        r.pages = java.util.Arrays.copyOf(pageArray, pageCount);
        r.fbo = fbo;
        r.length = length;
        r.va = baseVa;
        r.nSge = 0;
        r.newKey = m.issueKey();
        return commit(r, flags);
    }

    @Override
    public int invalidate(Object ctx, NdkObject mrOrMw, int flags) {
        int s;
        synchronized (lock) {
            s = invalidateLocked(ctx, mrOrMw, flags);
        }
        return posted(s);
    }

    private int invalidateLocked(Object ctx, NdkObject mrOrMw, int flags) {
        if ((flags & ~INVALIDATE_FLAGS) != 0) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        SoftObject target;
        if (mrOrMw instanceof SoftMr m && m.fastRegister && m.pd == pd) {
            target = m;
        } else if (mrOrMw instanceof SoftMw w && w.pd == pd) {
            target = w;
        } else {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        int s = checkInitiator(flags, INVALIDATE_FLAGS);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        WorkRequest r = sq.tail();
        r.op = NdkOperationType.INVALIDATE;
        r.flags = flags;
        r.context = ctx;
        r.target = target;
        r.nSge = 0;
        return commit(r, flags);
    }

    @Override
    public int receive(Object ctx, NdkSge[] sgl, int nSge) {
        if (srq != null) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        int s = WorkRequest.checkReceive(sgl, nSge, maxReceiveSge, adapter.infoInternal().maxTransferLength());
        if (s != NtStatus.STATUS_SUCCESS) {
            return s;
        }
        boolean flushNow;
        synchronized (rqLock) {
            if (rq.full()) {
                return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
            }
            WorkRequest w = rq.tail();
            w.op = NdkOperationType.RECEIVE;
            w.setReceive(ctx, sgl, nSge);
            rq.commit();
            flushNow = state == State.ERROR;
        }
        adapter.count(NdkCounter.WORK_REQUESTS);
        if (flushNow) {
            flushReceives();
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** Takes the next posted receive (own queue or SRQ) into {@code into}; false if none. Engine use. */
    boolean takeReceive(WorkRequest into) {
        if (srq != null) {
            return srq.take(into);
        }
        synchronized (rqLock) {
            WorkRequest w = rq.poll();
            if (w == null) {
                return false;
            }
            copyRecv(w, into);
            w.clearRefs();
            return true;
        }
    }

    static void copyRecv(WorkRequest from, WorkRequest into) {
        into.context = from.context;
        into.nSge = from.nSge;
        System.arraycopy(from.addr, 0, into.addr, 0, from.nSge);
        System.arraycopy(from.len, 0, into.len, 0, from.nSge);
        System.arraycopy(from.token, 0, into.token, 0, from.nSge);
    }

    // ---- completions and errors ---------------------------------------------------------------

    /** Queues an initiator completion (suppressed for a silent success). */
    void completeInitiator(WorkRequest w, int status, int bytes, int providerError) {
        if (status == NtStatus.STATUS_SUCCESS && (w.flags & NdkOpFlags.SILENT_SUCCESS) != 0) {
            return;
        }
        int type = w.op & 0x7FFF;
        if (!initiatorCq.push(status, bytes, qpContext, w.context, type, providerError, 0, false)) {
            overrun();
        }
    }

    /** Queues a receive completion on this QP's receive CQ. */
    void completeReceive(Object ctx, int status, int bytes, int type, int providerError, long tso, boolean solicited) {
        if (!receiveCq.push(status, bytes, qpContext, ctx, type, providerError, tso, solicited)) {
            overrun();
        }
    }

    /** Moves to ERROR; the first move records a {@link QpStateEvent} with {@code reason}. */
    void toError(String reason) {
        State prev = state;
        state = State.ERROR;
        if (prev != State.ERROR) {
            QpStateEvent.emit(this, QpStateEvent.ERROR, reason);
        }
    }

    private void overrun() {
        State prev = state;
        toError("completion queue overrun");
        Link l = link;
        if (l != null && prev != State.ERROR) {
            adapter.dispatcher().run(() -> l.abort(this, Term.LLP_LOCAL_CATASTROPHIC));
        }
    }

    /** Moves to ERROR and cancels every outstanding request of both queues. */
    void flushAll() {
        int n = 0;
        synchronized (lock) {
            toError("flushed");
            WorkRequest w;
            while ((w = sq.poll()) != null) {
                if (w.op != 0) {
                    // a request a wire engine already finished keeps its outcome; the rest are cancelled
                    if (w.wireState == 2) {
                        completeInitiator(w, w.wireStatus, w.wireBytes, w.wirePerr);
                    } else {
                        completeInitiator(w, NtStatus.STATUS_CANCELLED, 0, 0);
                        n++;
                    }
                }
                w.wireState = 0;
                w.op = 0;
                w.clearRefs();
            }
            sqUnstarted = 0;
            sqDeferred = 0;
        }
        adapter.count(NdkCounter.FLUSHED_REQUESTS, n);
        flushReceives();
    }

    void flushReceives() {
        if (srq != null) {
            return;
        }
        int n = 0;
        synchronized (rqLock) {
            WorkRequest w;
            while ((w = rq.poll()) != null) {
                completeReceive(w.context, NtStatus.STATUS_CANCELLED, 0, NdkOperationType.RECEIVE, 0, 0, false);
                w.clearRefs();
                n++;
            }
        }
        adapter.count(NdkCounter.FLUSHED_REQUESTS, n);
    }

    @Override
    public void flush() {
        flushAll();
    }

    /** Whether RDMA Read with local invalidate is honoured. */
    boolean readLocalInvalidate() {
        return adapter.infoInternal().hasFlag(NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED);
    }

    @Override
    void onClose() {
        // Flushes happen now and an existing connection is aborted; the close itself pends while the
        // connector still references the QP.
        Link l = link;
        if (l != null && l.up()) {
            l.abort(this, Term.LLP_LOCAL_CATASTROPHIC);
        }
        flushAll();
        QpStateEvent.emit(this, QpStateEvent.CLOSED, "closed");
    }

    @Override
    public String toString() {
        return "SoftQp[" + qpContext + ", " + state + "]";
    }
}
