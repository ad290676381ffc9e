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
 * state machine, and post-time validation. Data movement is done by the connection's transport, through its {@link WireLink}.
 *
 * <p>Locks: {@link #lock} guards the initiator queue and the state; {@link #rqLock} guards the receive
 * queue. Order: qp lock, then any receive-queue lock, then SRQ, then CQ. Nothing calls back to the consumer
 * while holding them.
 */
final class SoftQp extends SoftObject implements NdkQp {
    /** The QP states of NDKPI.md §7.12 (CLOSED is the object's own lifecycle, {@link SoftObject}). */
    enum State {
        IDLE, CONNECTING, CONNECTED, PEER_DISCONNECTED, ERROR;

        /**
         * The transitions the state machine has. ERROR is entered from every state ({@link #toError}) and left only
         * by {@link #detach}: a connection that failed during establishment leaves a never-connected QP reusable
         * (IDLE), even when the QP was flushed meanwhile.
         */
        boolean canBecome(State to) {
            return switch (this) {
                case IDLE -> to == CONNECTING || to == ERROR;
                case CONNECTING -> to == IDLE || to == CONNECTED || to == ERROR;
                case CONNECTED -> to == PEER_DISCONNECTED || to == ERROR;
                case PEER_DISCONNECTED, ERROR -> to == ERROR;
            };
        }
    }

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
    /** The initiator queue (guarded by {@link #lock}). */
    final SendQueue sq;
    final Ring rq;
    /**
     * Changed only by {@link #transition} and the named state changers below, each a compare-and-set (lock-free:
     * {@link #toError} runs under CQ and receive-queue locks too).
     */
    private volatile State state = State.IDLE;
    private static final java.lang.invoke.VarHandle STATE;

    static {
        try {
            STATE = java.lang.invoke.MethodHandles.lookup().findVarHandle(SoftQp.class, "state", State.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile WireLink link;
    private volatile SoftConnector connector;
    /** Negotiated read limits (set when the connection's limits are known). */
    private volatile int effectiveIrd;
    private volatile int effectiveOrd;
    /** Whether this QP was ever connected (a disconnected QP cannot reconnect). */
    private volatile boolean wasConnected;

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
        this.sq = new SendQueue(this, iqDepth, maxInitSge, inline);
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

    /** Publishes the slot and, unless deferred, releases everything queued to the engine. */
    private int commit(int flags) {
        sq.commit(flags);
        return NtStatus.STATUS_SUCCESS;
    }

    /** An inline failure: first hand every earlier deferred request to the engine (NDK deferral rule). */
    private int fail(int status) {
        sq.releaseOnFailure();
        return status;
    }

    /**
     * Ends a post: kicks the engine outside the QP lock when the post released work, so that an engine that
     * transmits on the posting thread never does socket I/O under a provider lock.
     */
    private int posted(int status) {
        boolean kick;
        synchronized (lock) {
            kick = sq.takeKick();
        }
        WireLink l = link;
        if (kick && l != null) {
            l.kick();
        }
        return status;
    }

    private int postData(WorkRequest.Op op, Object ctx, NdkSge[] sgl, int nSge, int flags, int allowed, int maxSge, long remoteAddress,
            int remoteToken) {
        int s;
        synchronized (lock) {
            s = postDataLocked(op, ctx, sgl, nSge, flags, allowed, maxSge, remoteAddress, remoteToken);
        }
        return posted(s);
    }

    private int postDataLocked(WorkRequest.Op op, Object ctx, NdkSge[] sgl, int nSge, int flags, int allowed, int maxSge,
            long remoteAddress, int remoteToken) {
        int s = checkInitiator(flags, allowed);
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        WorkRequest w = sq.tail();
        s = w.setSgl(sgl, nSge, maxSge, flags, inlineDataSize, adapter.infoInternal().maxTransferLength());
        if (s != NtStatus.STATUS_SUCCESS) {
            return fail(s);
        }
        w.op = op;
        w.flags = flags;
        w.context = ctx;
        w.remoteAddress = remoteAddress;
        w.remoteToken = remoteToken;
        return commit(flags);
    }

    @Override
    public int send(Object ctx, NdkSge[] sgl, int nSge, int flags) {
        return postData(WorkRequest.Op.SEND, ctx, sgl, nSge, flags, SEND_FLAGS, maxInitiatorSge, 0, 0);
    }

    @Override
    public int sendAndInvalidate(Object ctx, NdkSge[] sgl, int nSge, int flags, int remoteToken) {
        return postData(WorkRequest.Op.SEND_INVALIDATE, ctx, sgl, nSge, flags, SEND_FLAGS, maxInitiatorSge, 0, remoteToken);
    }

    @Override
    public int write(Object ctx, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        return postData(WorkRequest.Op.WRITE, ctx, sgl, nSge, flags, WRITE_FLAGS, maxInitiatorSge, remoteAddress,
                remoteToken);
    }

    @Override
    public int read(Object ctx, NdkSge[] sgl, int nSge, long remoteAddress, int remoteToken, int flags) {
        int maxSge = Math.min(maxInitiatorSge, adapter.infoInternal().maxReadRequestSge());
        return postData(WorkRequest.Op.READ, ctx, sgl, nSge, flags, READ_FLAGS, maxSge, remoteAddress, remoteToken);
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
                || w.pd != pd || Long.compareUnsigned(length, adapter.infoInternal().maxWindowSize()) > 0) { // a SIZE_T
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
        // the window starts inside the region ("VA >= the region's VA and < its VA plus its length": a window of
        // length 0 at the region's end starts outside it), and ends inside it
        if (va == 0 || Long.compareUnsigned(va, b.baseVa()) < 0 || Long.compareUnsigned(off, b.length()) >= 0
                || Long.compareUnsigned(length, b.length() - off) > 0) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        if (NdkOpFlags.remoteWrite(flags) && (b.rights() & TokenTable.RIGHT_LOCAL_WRITE) == 0) {
            return fail(NtStatus.STATUS_ACCESS_VIOLATION);
        }
        WorkRequest r = sq.tail();
        r.op = WorkRequest.Op.BIND;
        r.flags = flags;
        r.context = ctx;
        r.mr = m;
        r.mw = w;
        r.va = va;
        r.length = length;
        r.nSge = 0;
        r.newKey = w.issueKey();
        return commit(flags);
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
        // AdapterPageCount and FBO are ULONGs, Length a SIZE_T, BaseVirtualAddress a PVOID: all unsigned
        if (!m.initialized || pageCount == 0 || Integer.compareUnsigned(pageCount, m.frPageCount) > 0 || pageArray == null
                || pageArray.length < pageCount || Integer.compareUnsigned(fbo, PageMap.PAGE) >= 0
                || Long.compareUnsigned(length, (long) pageCount * PageMap.PAGE - fbo) > 0
                || Long.compareUnsigned(length, adapter.infoInternal().maxRegistrationSize()) > 0) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER);
        }
        if ((baseVa & (PageMap.PAGE - 1)) != fbo || (baseVa != 0 && Long.compareUnsigned(length, -baseVa) > 0)) {
            return fail(NtStatus.STATUS_INVALID_PARAMETER); // misaligned, or the region would wrap past 2^64
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
        r.op = WorkRequest.Op.FAST_REGISTER;
        r.flags = flags;
        r.context = ctx;
        r.mr = m;
        r.pages = java.util.Arrays.copyOf(pageArray, pageCount);
        r.fbo = fbo;
        r.length = length;
        r.va = baseVa;
        r.nSge = 0;
        r.newKey = m.issueKey();
        return commit(flags);
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
        r.op = WorkRequest.Op.INVALIDATE;
        r.flags = flags;
        r.context = ctx;
        r.target = target;
        r.nSge = 0;
        return commit(flags);
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
            w.op = WorkRequest.Op.RECEIVE;
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
        if (!initiatorCq.push(status, bytes, qpContext, w.context, w.op.resultType, providerError, 0, false)) {
            overrun();
        }
    }

    /** Queues a receive completion on this QP's receive CQ. */
    void completeReceive(Object ctx, int status, int bytes, int type, int providerError, long tso, boolean solicited) {
        if (!receiveCq.push(status, bytes, qpContext, ctx, type, providerError, tso, solicited)) {
            overrun();
        }
    }

    // ---- state ------------------------------------------------------------------------------

    State state() {
        return state;
    }

    WireLink link() {
        return link;
    }

    SoftConnector connector() {
        return connector;
    }

    int effectiveIrd() {
        return effectiveIrd;
    }

    int effectiveOrd() {
        return effectiveOrd;
    }

    /**
     * Moves from {@code from} to {@code to} (siw's {@code siw_qp_modify}).
     *
     * @return false when the QP is not in {@code from} (another event got there first; nothing changes)
     * @throws IllegalStateException when the state machine has no such transition: a provider bug
     */
    boolean transition(State from, State to) {
        if (!from.canBecome(to)) {
            throw new IllegalStateException("QP state " + from + " -> " + to + " is not a transition");
        }
        boolean moved = STATE.compareAndSet(this, from, to);
        if (moved && to == State.ERROR && from != State.ERROR) {
            QpStateEvent.emit(this, QpStateEvent.ERROR, "transition");
        }
        return moved;
    }

    /**
     * A connection attempt (connect or accept) by {@code c} starts: IDLE to CONNECTING.
     *
     * @return SUCCESS, or STATUS_CONNECTION_ACTIVE when the QP has (or had) a connection or is not idle
     */
    int beginConnect(SoftConnector c) {
        synchronized (lock) {
            if (connector != null || wasConnected || !transition(State.IDLE, State.CONNECTING)) {
                return NtStatus.STATUS_CONNECTION_ACTIVE;
            }
            connector = c;
            return NtStatus.STATUS_SUCCESS;
        }
    }

    /** The read limits negotiated for the connection (known to the transport before the first frame). */
    void readLimits(int ird, int ord) {
        effectiveIrd = ird;
        effectiveOrd = ord;
    }

    /** The connection is established: the QP moves to CONNECTED on {@code l} (a QP flushed meanwhile stays in ERROR). */
    void attach(WireLink l) {
        synchronized (lock) {
            link = l;
            wasConnected = true;
            transition(State.CONNECTING, State.CONNECTED);
        }
    }

    /**
     * The connection {@link #attach}ed it to never started (the transport refused to start it: the peer abandoned it
     * first): back to CONNECTING, as if never attached, so that {@link #detach} leaves the QP reusable.
     */
    void attachFailed() {
        synchronized (lock) {
            link = null;
            wasConnected = false;
            STATE.compareAndSet(this, State.CONNECTED, State.CONNECTING);
        }
    }

    /** {@code c}'s attempt is over without a connection: the QP no longer depends on it and is reusable. */
    void detach(SoftConnector c) {
        synchronized (lock) {
            if (connector != c) {
                return;
            }
            connector = null;
            if (!transition(State.CONNECTING, State.IDLE) && !wasConnected) {
                STATE.compareAndSet(this, State.ERROR, State.IDLE); // flushed while connecting: reusable all the same
            }
        }
    }

    /** {@code c} closed: the QP forgets it (its state stays). */
    void forgetConnector(SoftConnector c) {
        synchronized (lock) {
            if (connector == c) {
                connector = null;
            }
        }
    }

    /** Moves to ERROR from any state; the first move records a {@link QpStateEvent} with {@code reason}. */
    void toError(String reason) {
        State prev = (State) STATE.getAndSet(this, State.ERROR);
        if (prev != State.ERROR) {
            QpStateEvent.emit(this, QpStateEvent.ERROR, reason);
        }
    }

    private void overrun() {
        State prev = state;
        toError("completion queue overrun");
        WireLink l = link;
        if (l != null && prev != State.ERROR) {
            adapter.dispatcher().run(() -> l.abort(this, Term.LLP_LOCAL_CATASTROPHIC));
        }
    }

    /** Moves to ERROR and cancels every outstanding request of both queues. */
    void flushAll() {
        int n;
        synchronized (lock) {
            toError("flushed");
            n = sq.flush();
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

    /**
     * The close completes only once the transport's threads have left this QP's memory ({@link WireLink#released}):
     * a consumer that frees its buffers after the close must find nothing still reading or writing them (a Read
     * Response streaming from them, a direct read into them). The transport bounds the wait.
     */
    @Override
    boolean extraCloseConditionMet() {
        WireLink l = link;
        return l == null || l.released();
    }

    @Override
    void onClose() {
        // Flushes happen now and an existing connection is aborted; the close itself pends while the
        // connector still references the QP.
        WireLink l = link;
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
