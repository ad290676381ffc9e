package io.jndk.provider;

import io.jndk.api.DisconnectEventCallback;
import io.jndk.api.DisconnectReason;
import io.jndk.api.DisconnectEventCallbackEx;
import io.jndk.api.IntRef;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import io.jndk.provider.events.ConnectionStateEvent;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireTransport;

/**
 * A connector: the connection state machine of one QP, active or passive. Over the loopback transport the
 * two connectors of a connection talk to each other directly; every outcome reaches the consumer as an
 * inline status or through the request's completion, never under a provider lock.
 */
final class SoftConnector extends SoftObject implements NdkConnector {
    enum State { IDLE, CONNECTING, REPLIED, INCOMING, ACCEPTING, CONNECTED, DISCONNECTED, REJECTED, DEAD }

    private final SoftListener listener;
    private State state;
    private SoftConnector peer;
    private SoftQp qp;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private boolean ownsEndpoint;
    /** Wire connects on a provider-chosen port: the source asked for, the request, and new ports tried so far. */
    private static final int MAX_AUTO_PORT_RETRIES = 8;
    private InetSocketAddress autoPortSource;
    private ConnectRequest wireRequest;
    private int autoPortRetries;
    private SoftSharedEndpoint sharedEndpoint;
    private byte[] peerPrivateData;
    /** Read limits as requested (after local capping) and as negotiated. */
    private int reqIrd, reqOrd, effIrd, effOrd;
    private RequestCompletion pendingRc;
    private Object pendingCtx;
    /** Written under this; read without it by the close check, which runs under the lifetime lock. */
    private volatile int pendingRequests;
    private DisconnectEventCallback disconnectCb;
    private DisconnectEventCallbackEx disconnectCbEx;
    private Object disconnectCtx;
    private boolean disconnectIndicated;
    private ScheduledFuture<?> timer;
    private Link link;
    /** Wire transports: the connection after the reply (active) or once established (passive). */
    private WireConnection wireConn;
    /** Wire transports: the request a passive connector stands for. */
    private IncomingRequest incoming;

    SoftConnector(SoftAdapter adapter, SoftListener listener) {
        super(adapter, NdkObjectType.CONNECTOR);
        this.listener = listener;
        this.state = listener == null ? State.IDLE : State.INCOMING;
    }

    private long timeout(String key, long def) {
        return adapter.limit(key, (int) def);
    }

    // ---- address helpers ----------------------------------------------------------------------

    static int copyAddress(InetSocketAddress a, Ref<InetSocketAddress> out, IntRef length) {
        int need = a == null || a.getAddress() instanceof Inet4Address ? 16 : 28;
        if (length == null || length.value < need) {
            if (length != null) {
                length.value = need;
            }
            return NtStatus.STATUS_BUFFER_TOO_SMALL;
        }
        length.value = need;
        if (out != null) {
            out.set(a);
        }
        return NtStatus.STATUS_SUCCESS;
    }

    // ---- pending request bookkeeping ----------------------------------------------------------

    /** Under this: parks a pending request; returns STATUS_PENDING. */
    private int park(RequestCompletion rc, Object ctx) {
        pendingRc = rc;
        pendingCtx = ctx;
        pendingRequests++;
        return NtStatus.STATUS_PENDING;
    }

    /** Completes the parked request (if any) with {@code status}, through the dispatcher. */
    private void completeParked(int status) {
        RequestCompletion rc;
        Object ctx;
        synchronized (this) {
            if (pendingRequests == 0) {
                return;
            }
            rc = pendingRc;
            ctx = pendingCtx;
            pendingRc = null;
            pendingCtx = null;
        }
        adapter.dispatcher().run(() -> {
            try {
                if (rc != null) {
                    rc.onCompleted(ctx, status);
                }
            } finally {
                synchronized (this) {
                    pendingRequests--;
                }
                recheckClose();
            }
        });
    }

    @Override
    boolean extraCloseConditionMet() {
        // Called under the lifetime lock: taking this connector's monitor here would invert the lock order
        // of paths that hold the monitor and ask isOpen() (deadlock between a close and a disconnect event).
        return pendingRequests == 0;
    }

    private void cancelTimer() {
        ScheduledFuture<?> t = timer;
        timer = null;
        adapter.dispatcher().cancel(t);
    }

    // ---- active side --------------------------------------------------------------------------

    @Override
    public int connect(NdkQp q, InetSocketAddress src, InetSocketAddress dst, int ird, int ord, byte[] pd,
            RequestCompletion rc, Object ctx) {
        if (src == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        return startConnect(q, src, null, dst, ird, ord, pd, rc, ctx);
    }

    @Override
    public int connectWithSharedEndpoint(NdkQp q, NdkSharedEndpoint se, InetSocketAddress dst, int ird, int ord, byte[] pd,
            RequestCompletion rc, Object ctx) {
        if (!(se instanceof SoftSharedEndpoint s) || s.adapter != adapter) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        return startConnect(q, s.bound(), s, dst, ird, ord, pd, rc, ctx);
    }

    private int startConnect(NdkQp q, InetSocketAddress src, SoftSharedEndpoint se, InetSocketAddress dst, int ird, int ord,
            byte[] pd, RequestCompletion rc, Object ctx) {
        if (!(q instanceof SoftQp sq) || sq.adapter != adapter || dst == null || dst.getAddress() == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (pd != null && pd.length > adapter.infoInternal().maxCallerData()) {
            return NtStatus.STATUS_INVALID_BUFFER_SIZE;
        }
        Transport t = adapter.transportImpl();
        SoftListener target;
        SoftConnector passive;
        synchronized (this) {
            if (state != State.IDLE || !isOpen()) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            synchronized (sq.lock) {
                if (sq.connector != null || sq.wasConnected || sq.state != SoftQp.State.IDLE) {
                    return NtStatus.STATUS_CONNECTION_ACTIVE;
                }
            }
            if ((src.getAddress() instanceof Inet4Address) != (dst.getAddress() instanceof Inet4Address)) {
                return adapter.completeRequest(NtStatus.STATUS_NETWORK_UNREACHABLE, rc, ctx);
            }
            InetSocketAddress bound;
            if (se == null) {
                InetSocketAddress[] out = new InetSocketAddress[1];
                int s = t.bind(adapter, src, true, out);
                if (s != NtStatus.STATUS_SUCCESS) {
                    return s;
                }
                bound = out[0];
                ownsEndpoint = true;
            } else {
                bound = se.bound();
                if (!t.addTuple(bound, dst)) {
                    return adapter.completeRequest(NtStatus.STATUS_ADDRESS_ALREADY_EXISTS, rc, ctx);
                }
                t.removeTuple(bound, dst);
                t.retain(bound);
                ownsEndpoint = true;
                sharedEndpoint = se;
            }
            local = localAddress(bound);
            remote = dst;
            target = null;
            event(ConnectionStateEvent.REQUESTED, null);
            if (adapter.wire() == null) {
                // in-JVM: the listener must exist and take the request now
                target = t.findListener(dst);
                if (target == null || !target.admit()) {
                    int st = target == null && !t.owned(dst.getAddress()) ? NtStatus.STATUS_HOST_UNREACHABLE
                            : NtStatus.STATUS_CONNECTION_REFUSED;
                    releaseEndpoint();
                    adapter.count(NdkCounter.CONNECT_FAILURES);
                    event(ConnectionStateEvent.FAILED, NtStatus.name(st));
                    return adapter.completeRequest(st, rc, ctx);
                }
                if (!target.adapter.reserve(NdkObjectType.CONNECTOR)) {
                    target.decided();
                    releaseEndpoint();
                    return adapter.completeRequest(NtStatus.STATUS_CONNECTION_REFUSED, rc, ctx);
                }
            }
            if (se != null) {
                se.addSuccessor(this);
            }
            var info = adapter.infoInternal();
            reqIrd = Math.min(ird, info.maxInboundReadLimit());
            reqOrd = Math.min(ord, info.maxOutboundReadLimit());
            passive = null;
            if (target != null) {
                passive = new SoftConnector(target.adapter, target);
                passive.peer = this;
                passive.local = new InetSocketAddress(dst.getAddress(), target.bound().getPort());
                passive.remote = local;
                passive.peerPrivateData = pd == null ? new byte[0] : pd.clone();
                var pinfo = target.adapter.infoInternal();
                passive.reqIrd = Math.min(reqOrd, pinfo.maxInboundReadLimit());
                passive.reqOrd = Math.min(reqIrd, pinfo.maxOutboundReadLimit());
                target.addSuccessor(passive);
                target.adapter.transportImpl().retain(target.bound());
                passive.ownsEndpoint = false;
                peer = passive;
            }
            qp = sq;
            synchronized (sq.lock) {
                sq.connector = this;
                sq.state = SoftQp.State.CONNECTING;
            }
            sq.addSuccessor(this);
            state = State.CONNECTING;
            park(rc, ctx);
            timer = adapter.dispatcher().schedule(() -> connectTimedOut(), timeout("connect.timeout.ms", 60_000),
                    TimeUnit.MILLISECONDS);
        }
        if (target == null) {
            ConnectRequest request = new ConnectRequest(pd == null ? new byte[0] : pd.clone(), reqIrd, reqOrd,
                    "true".equals(adapter.option("crc", "false")), timeout("connect.timeout.ms", 60_000));
            synchronized (this) {
                autoPortSource = se == null && src.getPort() == 0 ? src : null;
                wireRequest = request;
                autoPortRetries = 0;
            }
            adapter.wire().connect(local, dst, se != null, request, activeHandler());
            return NtStatus.STATUS_PENDING;
        }
        target.indicate(passive);
        return NtStatus.STATUS_PENDING;
    }

    private void connectTimedOut() {
        SoftConnector p;
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
            p = peer;
            failActive(State.IDLE);
        }
        if (p != null) {
            p.peerGone();
        }
        completeParked(NtStatus.STATUS_IO_TIMEOUT);
    }

    /** Wire transports: the outcome of the active attempt. */
    private ActiveHandler activeHandler() {
        return new ActiveHandler() {
            @Override
            public void onReply(WireConnection c, InetSocketAddress l, byte[] pd, int peerIrd, int peerOrd) {
                synchronized (SoftConnector.this) {
                    if (state != State.CONNECTING) {
                        c.reject();
                        return;
                    }
                    cancelTimer();
                    wireConn = c;
                    peerPrivateData = pd == null ? new byte[0] : pd;
                    effIrd = Math.min(reqIrd, peerOrd);
                    effOrd = Math.min(reqOrd, peerIrd);
                    state = State.REPLIED;
                }
                completeParked(NtStatus.STATUS_SUCCESS);
            }

            @Override
            public void onRejected(byte[] pd) {
                rejectedByPeer(pd == null ? new byte[0] : pd);
            }

            @Override
            public void onFailed(int status) {
                InetSocketAddress retryFrom;
                synchronized (SoftConnector.this) {
                    if (state != State.CONNECTING) {
                        return;
                    }
                    retryFrom = status == NtStatus.STATUS_SHARING_VIOLATION ? newAutoPort() : null;
                    if (retryFrom == null) {
                        failActive(State.IDLE);
                    }
                }
                if (retryFrom != null) {
                    adapter.wire().connect(retryFrom, remote, false, wireRequest, this);
                    return;
                }
                completeParked(status);
            }
        };
    }

    /**
     * Under this: the port the provider chose for a connect turned out taken when the socket bound it (another
     * process's connection took it after the free-port probe). The consumer asked for any port, so a fresh one is
     * chosen, a bounded number of times; returns the new local address, or null to fail the connect.
     */
    private InetSocketAddress newAutoPort() {
        if (autoPortSource == null || autoPortRetries >= MAX_AUTO_PORT_RETRIES) {
            return null;
        }
        autoPortRetries++;
        releaseEndpoint();
        InetSocketAddress[] out = new InetSocketAddress[1];
        if (adapter.transportImpl().bind(adapter, autoPortSource, true, out) != NtStatus.STATUS_SUCCESS) {
            return null;
        }
        ownsEndpoint = true;
        InetSocketAddress bound = out[0];
        local = localAddress(bound);
        return local;
    }

    /** The connection's local address for a bound endpoint: a wildcard endpoint connects from the adapter's address. */
    private InetSocketAddress localAddress(InetSocketAddress bound) {
        return Transport.wildcard(bound.getAddress()) ? new InetSocketAddress(adapter.address(), bound.getPort()) : bound;
    }

    /** Wire transports: a passive connector for an incoming request of {@code l}. */
    static SoftConnector incoming(SoftListener l, IncomingRequest r) {
        SoftConnector c = new SoftConnector(l.adapter, l);
        var info = l.adapter.infoInternal();
        c.incoming = r;
        c.local = r.local();
        c.remote = r.remote();
        c.peerPrivateData = r.privateData() == null ? new byte[0] : r.privateData().clone();
        c.reqIrd = Math.min(r.outboundReadLimit(), info.maxInboundReadLimit());
        c.reqOrd = Math.min(r.inboundReadLimit(), info.maxOutboundReadLimit());
        c.ownsEndpoint = false;
        return c;
    }

    /** Joins the QP to an established wire connection (under this). */
    private SoftQp joinWire(WireConnection c) {
        SoftQp q = qp;
        WireLink l = new WireLink(c, q);
        adapter.track(c.counters());
        link = l;
        wireConn = c;
        state = State.CONNECTED;
        if (listener == null) {
            adapter.transportImpl().addTuple(local, remote);
        }
        q.effectiveIrd = effIrd;
        q.effectiveOrd = effOrd;
        synchronized (q.lock) {
            q.link = l;
            q.wasConnected = true;
            q.state = SoftQp.State.CONNECTED;
        }
        return q;
    }

    /** Under this: a QP whose connection attempt is over returns to IDLE and no longer depends on this connector. */
    private void detachQp() {
        SoftQp q = qp;
        qp = null;
        if (q != null) {
            synchronized (q.lock) {
                if (q.connector == this) {
                    q.connector = null;
                    q.state = SoftQp.State.IDLE;
                }
            }
            q.dropSuccessor(this);
        }
    }

    /** Under this: a failed attempt leaves connector and QP reusable ({@code next} IDLE) or only closable. */
    private void failActive(State next) {
        failActive(next, next == State.REJECTED ? ConnectionStateEvent.REJECTED : ConnectionStateEvent.FAILED);
    }

    /** As {@link #failActive(State)}, recording {@code event} (a {@link ConnectionStateEvent} state). */
    private void failActive(State next, String event) {
        state = next;
        peer = null;
        detachQp();
        releaseEndpoint();
        cancelTimer();
        adapter.count(NdkCounter.CONNECT_FAILURES);
        event(event, null);
    }

    /** Records a {@link ConnectionStateEvent} for this connector's addresses. */
    private void event(String state, String detail) {
        ConnectionStateEvent.emit(state, adapter.transport(), local, remote, detail);
    }

    private void releaseEndpoint() {
        if (ownsEndpoint && local != null) {
            InetSocketAddress l = sharedEndpoint != null ? sharedEndpoint.bound() : local;
            adapter.transportImpl().release(l);
            ownsEndpoint = false;
        }
        if (sharedEndpoint != null) {
            SoftSharedEndpoint se = sharedEndpoint;
            sharedEndpoint = null;
            se.dropSuccessor(this);
        }
    }

    /** Called on the active connector when the passive side accepted. */
    private void accepted(byte[] pd, int ird, int ord) {
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
            cancelTimer();
            peerPrivateData = pd;
            effIrd = ird;
            effOrd = ord;
            state = State.REPLIED;
        }
        completeParked(NtStatus.STATUS_SUCCESS);
    }

    /** Called on the active connector when the passive side rejected. */
    private void rejectedByPeer(byte[] pd) {
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
            peerPrivateData = pd;
            failActive(State.IDLE, ConnectionStateEvent.REJECTED);
        }
        adapter.count(NdkCounter.MPA_REJECTS);
        completeParked(NtStatus.STATUS_CONNECTION_REFUSED);
    }

    /** The other connector went away before the connection was established. */
    private void peerGone() {
        State s;
        synchronized (this) {
            s = state;
            peer = null;
            if (s == State.ACCEPTING || s == State.INCOMING) {
                failPassive();
            } else if (s == State.CONNECTING || s == State.REPLIED) {
                failActive(State.DEAD);
            } else {
                return;
            }
        }
        if (s == State.ACCEPTING || s == State.CONNECTING) {
            completeParked(s == State.ACCEPTING ? NtStatus.STATUS_CONNECTION_ABORTED : NtStatus.STATUS_CONNECTION_REFUSED);
        }
    }

    /** Under this: the passive attempt is over. */
    private void failPassive() {
        if (state == State.INCOMING) {
            listener.decided();
        }
        state = State.DEAD;
        detachQp();
        cancelTimer();
    }

    @Override
    public int completeConnect(DisconnectEventCallback cb, Object dctx, RequestCompletion rc, Object ctx) {
        return complete(cb, null, dctx, rc, ctx);
    }

    @Override
    public int completeConnectEx(DisconnectEventCallbackEx cb, Object dctx, RequestCompletion rc, Object ctx) {
        if (!adapter.version().atLeast(NdkVersion.V2_1)) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        return complete(null, cb, dctx, rc, ctx);
    }

    private int complete(DisconnectEventCallback cb, DisconnectEventCallbackEx cbx, Object dctx, RequestCompletion rc,
            Object ctx) {
        SoftConnector p;
        synchronized (this) {
            if (state == State.DEAD && listener == null) {
                return NtStatus.STATUS_CONNECTION_ABORTED;
            }
            if (state != State.REPLIED) {
                return NtStatus.STATUS_CONNECTION_INVALID;
            }
            if (wireConn != null) {
                disconnectCb = cb;
                disconnectCbEx = cbx;
                disconnectCtx = dctx;
                WireConnection c = wireConn;
                SoftQp q = joinWire(c);
                adapter.count(NdkCounter.CONNECTIONS);
                event(ConnectionStateEvent.ESTABLISHED, null);
                c.start(new WirePort(q));
                return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
            }
            p = peer;
            if (p == null) {
                failActive(State.DEAD);
                return adapter.completeRequest(NtStatus.STATUS_CONNECTION_ABORTED, rc, ctx);
            }
            disconnectCb = cb;
            disconnectCbEx = cbx;
            disconnectCtx = dctx;
        }
        if (!p.established(this)) {
            synchronized (this) {
                failActive(State.DEAD);
            }
            return adapter.completeRequest(NtStatus.STATUS_CONNECTION_ABORTED, rc, ctx);
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    /** On the passive connector: the active side completed; join the QPs. Returns false if gone. */
    private boolean established(SoftConnector active) {
        SoftQp pq;
        SoftQp aq;
        synchronized (this) {
            if (state != State.ACCEPTING || peer != active) {
                return false;
            }
            cancelTimer();
            pq = qp;
            synchronized (active) {
                aq = active.qp;
                LoopbackLink l = new LoopbackLink(aq, pq);
                link = l;
                active.link = l;
                active.state = State.CONNECTED;
            }
            state = State.CONNECTED;
            aq.effectiveIrd = active.effIrd;
            aq.effectiveOrd = active.effOrd;
            pq.effectiveIrd = effIrd;
            pq.effectiveOrd = effOrd;
            for (SoftQp q : new SoftQp[] {aq, pq}) {
                synchronized (q.lock) {
                    q.link = link;
                    q.wasConnected = true;
                    q.state = SoftQp.State.CONNECTED;
                }
            }
            adapter.transportImpl().addTuple(active.local, active.remote);
        }
        adapter.count(NdkCounter.CONNECTIONS);
        active.adapter.count(NdkCounter.CONNECTIONS);
        event(ConnectionStateEvent.ESTABLISHED, null);
        active.event(ConnectionStateEvent.ESTABLISHED, null);
        completeParked(NtStatus.STATUS_SUCCESS);
        return true;
    }

    // ---- passive side -------------------------------------------------------------------------

    @Override
    public int accept(NdkQp q, int ird, int ord, byte[] pd, DisconnectEventCallback cb, Object dctx, RequestCompletion rc,
            Object ctx) {
        return doAccept(q, ird, ord, pd, cb, null, dctx, rc, ctx);
    }

    @Override
    public int acceptEx(NdkQp q, int ird, int ord, byte[] pd, DisconnectEventCallbackEx cb, Object dctx, RequestCompletion rc,
            Object ctx) {
        if (!adapter.version().atLeast(NdkVersion.V2_1)) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        return doAccept(q, ird, ord, pd, null, cb, dctx, rc, ctx);
    }

    private int doAccept(NdkQp q, int ird, int ord, byte[] pd, DisconnectEventCallback cb, DisconnectEventCallbackEx cbx,
            Object dctx, RequestCompletion rc, Object ctx) {
        if (!(q instanceof SoftQp sq) || sq.adapter != adapter) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (pd != null && pd.length > adapter.infoInternal().maxCalleeData()) {
            return NtStatus.STATUS_INVALID_BUFFER_SIZE;
        }
        SoftConnector active;
        int aIrd, aOrd;
        synchronized (this) {
            if (state == State.DEAD && listener != null) {
                return NtStatus.STATUS_CONNECTION_ABORTED;
            }
            if (state != State.INCOMING) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            synchronized (sq.lock) {
                if (sq.connector != null || sq.wasConnected || sq.state != SoftQp.State.IDLE) {
                    return NtStatus.STATUS_CONNECTION_ACTIVE;
                }
                sq.connector = this;
                sq.state = SoftQp.State.CONNECTING;
            }
            if (incoming != null) {
                var winfo = adapter.infoInternal();
                int myIrd = Math.min(ird, winfo.maxInboundReadLimit());
                int myOrd = Math.min(ord, winfo.maxOutboundReadLimit());
                effIrd = Math.min(myIrd, reqIrd);
                effOrd = Math.min(myOrd, reqOrd);
                qp = sq;
                sq.addSuccessor(this);
                disconnectCb = cb;
                disconnectCbEx = cbx;
                disconnectCtx = dctx;
                listener.decided();
                state = State.ACCEPTING;
                park(rc, ctx);
                IncomingRequest r = incoming;
                // the transport sizes its read queues from these when it binds the port (before the first frame)
                sq.effectiveIrd = effIrd;
                sq.effectiveOrd = effOrd;
                WirePort port = new WirePort(sq);
                byte[] mine = pd == null ? new byte[0] : pd.clone();
                adapter.dispatcher().run(() -> r.accept(mine, myIrd, myOrd, port, passiveHandler()));
                return NtStatus.STATUS_PENDING;
            }
            active = peer;
            if (active == null) {
                synchronized (sq.lock) {
                    sq.connector = null;
                    sq.state = SoftQp.State.IDLE;
                }
                failPassive();
                return NtStatus.STATUS_CONNECTION_ABORTED;
            }
            var info = adapter.infoInternal();
            int myIrd = Math.min(ird, info.maxInboundReadLimit());
            int myOrd = Math.min(ord, info.maxOutboundReadLimit());
            effIrd = Math.min(myIrd, reqIrd);
            effOrd = Math.min(myOrd, reqOrd);
            aIrd = effOrd;
            aOrd = effIrd;
            qp = sq;
            sq.addSuccessor(this);
            disconnectCb = cb;
            disconnectCbEx = cbx;
            disconnectCtx = dctx;
            listener.decided();
            state = State.ACCEPTING;
            park(rc, ctx);
            timer = adapter.dispatcher().schedule(() -> acceptTimedOut(), timeout("accept.timeout.ms", 60_000),
                    TimeUnit.MILLISECONDS);
        }
        active.accepted(pd == null ? new byte[0] : pd.clone(), aIrd, aOrd);
        return NtStatus.STATUS_PENDING;
    }

    /** Wire transports: the outcome of an accepted request. */
    private PassiveHandler passiveHandler() {
        return new PassiveHandler() {
            @Override
            public void onEstablished(WireConnection c) {
                synchronized (SoftConnector.this) {
                    if (state != State.ACCEPTING) {
                        c.reset();
                        return;
                    }
                    cancelTimer();
                    joinWire(c);
                }
                adapter.count(NdkCounter.CONNECTIONS);
                event(ConnectionStateEvent.ESTABLISHED, null);
                completeParked(NtStatus.STATUS_SUCCESS);
            }

            @Override
            public void onFailed(int status) {
                synchronized (SoftConnector.this) {
                    if (state != State.ACCEPTING) {
                        return;
                    }
                    failPassive();
                }
                completeParked(status);
            }
        };
    }

    private void acceptTimedOut() {
        SoftConnector a;
        synchronized (this) {
            if (state != State.ACCEPTING) {
                return;
            }
            a = peer;
            peer = null;
            failPassive();
        }
        if (a != null) {
            a.peerGone();
        }
        completeParked(NtStatus.STATUS_IO_TIMEOUT);
    }

    @Override
    public int reject(byte[] pd) {
        if (pd != null && pd.length > adapter.infoInternal().maxCalleeData()) {
            return NtStatus.STATUS_INVALID_BUFFER_SIZE;
        }
        SoftConnector p;
        State s;
        synchronized (this) {
            s = state;
            p = peer;
            if (s == State.INCOMING && incoming != null) {
                listener.decided();
                state = State.REJECTED;
                IncomingRequest r = incoming;
                byte[] mine = pd == null ? new byte[0] : pd.clone();
                adapter.dispatcher().run(() -> r.reject(mine));
                return NtStatus.STATUS_SUCCESS;
            } else if (s == State.REPLIED && wireConn != null) {
                WireConnection c = wireConn;
                failActive(State.REJECTED);
                c.reject();
                return NtStatus.STATUS_SUCCESS;
            } else if (s == State.INCOMING) {
                if (p == null) {
                    failPassive();
                    return NtStatus.STATUS_CONNECTION_ABORTED;
                }
                listener.decided();
                state = State.REJECTED;
                peer = null;
            } else if (s == State.REPLIED) {
                if (p == null) {
                    failActive(State.DEAD);
                    return NtStatus.STATUS_CONNECTION_ABORTED;
                }
                failActive(State.REJECTED);
            } else if (s == State.DEAD) {
                return NtStatus.STATUS_CONNECTION_ABORTED;
            } else {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
        }
        if (s == State.INCOMING) {
            p.rejectedByPeer(pd == null ? new byte[0] : pd.clone());
        } else {
            p.peerGone();
        }
        return NtStatus.STATUS_SUCCESS;
    }

    // ---- queries ------------------------------------------------------------------------------

    @Override
    public int getConnectionData(IntRef ird, IntRef ord, byte[] buf, IntRef len) {
        byte[] data;
        int i, o;
        synchronized (this) {
            data = peerPrivateData;
            if (data == null) {
                return NtStatus.STATUS_CONNECTION_INVALID;
            }
            boolean negotiated = state == State.REPLIED || state == State.CONNECTED || state == State.ACCEPTING;
            i = negotiated ? effIrd : reqIrd;
            o = negotiated ? effOrd : reqOrd;
        }
        if (ird != null) {
            ird.value = i;
        }
        if (ord != null) {
            ord.value = o;
        }
        if (len == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        int in = len.value;
        len.value = data.length;
        if (buf == null && in == 0) {
            return NtStatus.STATUS_SUCCESS;
        }
        if (buf != null) {
            System.arraycopy(data, 0, buf, 0, Math.min(Math.min(in, data.length), buf.length));
        }
        return in >= data.length ? NtStatus.STATUS_SUCCESS : NtStatus.STATUS_BUFFER_TOO_SMALL;
    }

    @Override
    public int getLocalAddress(Ref<InetSocketAddress> address, IntRef length) {
        InetSocketAddress a;
        synchronized (this) {
            a = state == State.IDLE || state == State.DEAD ? null : local;
        }
        return a == null ? NtStatus.STATUS_CONNECTION_INVALID : copyAddress(a, address, length);
    }

    @Override
    public int getPeerAddress(Ref<InetSocketAddress> address, IntRef length) {
        InetSocketAddress a;
        synchronized (this) {
            a = state == State.IDLE || state == State.DEAD ? null : remote;
        }
        return a == null ? NtStatus.STATUS_CONNECTION_INVALID : copyAddress(a, address, length);
    }

    // ---- teardown -----------------------------------------------------------------------------

    @Override
    public int disconnect(RequestCompletion rc, Object ctx) {
        Link l;
        SoftQp q;
        synchronized (this) {
            if (state != State.CONNECTED && state != State.DISCONNECTED) {
                return NtStatus.STATUS_CONNECTION_INVALID;
            }
            state = State.DISCONNECTED;
            l = link;
            q = qp;
        }
        if (l != null && q != null) {
            l.disconnect(q);
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    /** Delivers the disconnect event once per connection (never after the close started). */
    void indicateDisconnect(int reason) {
        DisconnectEventCallback cb;
        DisconnectEventCallbackEx cbx;
        Object ctx;
        // isOpen() takes the lifetime lock: read it before this connector's lock (the close path takes them the
        // other way round).
        boolean open = isOpen();
        synchronized (this) {
            if (disconnectIndicated || !open) {
                return;
            }
            disconnectIndicated = true;
            event(ConnectionStateEvent.DISCONNECTED, DisconnectReason.name(reason));
            cb = disconnectCb;
            cbx = disconnectCbEx;
            ctx = disconnectCtx;
        }
        if (cb == null && cbx == null) {
            return;
        }
        adapter.dispatcher().run(() -> {
            if (life() != Life.OPEN || !enterCallback()) {
                return;
            }
            try {
                if (cbx != null) {
                    cbx.onDisconnect(ctx, reason);
                } else {
                    cb.onDisconnect(ctx);
                }
            } finally {
                exitCallback();
            }
        });
    }

    @Override
    void onClose() {
        State s;
        SoftConnector p;
        Link l;
        SoftQp q;
        synchronized (this) {
            s = state;
            p = peer;
            l = link;
            q = qp;
            peer = null;
        }
        switch (s) {
            case INCOMING -> {
                IncomingRequest r;
                synchronized (this) {
                    listener.decided();
                    state = State.REJECTED;
                    r = incoming;
                }
                if (r != null) {
                    r.reject(new byte[0]);
                }
                if (p != null) {
                    p.rejectedByPeer(new byte[0]);
                }
            }
            case CONNECTING, REPLIED -> {
                WireConnection c;
                synchronized (this) {
                    c = s == State.REPLIED ? wireConn : null;
                    failActive(State.DEAD);
                }
                if (c != null) {
                    c.reject();
                }
                if (p != null) {
                    p.peerGone();
                }
                completeParked(NtStatus.STATUS_CANCELLED);
            }
            case ACCEPTING -> {
                IncomingRequest r;
                synchronized (this) {
                    r = incoming;
                    failPassive();
                }
                if (r != null) {
                    r.refuse();
                }
                if (p != null) {
                    p.peerGone();
                }
                completeParked(NtStatus.STATUS_CANCELLED);
            }
            case CONNECTED, DISCONNECTED -> {
                if (l != null && q != null) {
                    l.reset(q);
                }
            }
            default -> { }
        }
        synchronized (this) {
            if (s == State.CONNECTED || s == State.DISCONNECTED) {
                if (listener == null) {
                    adapter.transportImpl().removeTuple(local, remote);
                }
                state = State.DEAD;
            }
            if (qp != null) {
                synchronized (qp.lock) {
                    if (qp.connector == this) {
                        qp.connector = null;
                    }
                }
            }
        }
    }

    @Override
    void onClosed() {
        synchronized (this) {
            releaseEndpoint();
            if (listener != null) {
                listener.adapter.transportImpl().release(listener.bound());
            }
            cancelTimer();
        }
    }
}
