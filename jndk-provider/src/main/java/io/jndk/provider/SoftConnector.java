package io.jndk.provider;

import io.jndk.api.ConnectFailure;
import io.jndk.api.DisconnectEventCallback;
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
import io.jndk.provider.events.ConnectionStateEvent;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.WireConnection;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connector: the connection state machine of one QP, active or passive, over the adapter's transport (every
 * transport, loopback included, through the same SPI: {@link ActiveHandler}, {@link IncomingRequest},
 * {@link PassiveHandler}). Every outcome reaches the consumer as an inline status or through the request's
 * completion, never under a provider lock.
 *
 * <pre>
 * active:  IDLE -connect-> CONNECTING -reply-> REPLIED -CompleteConnect-> CONNECTED -Disconnect-> DISCONNECTED
 *                              | refused, timeout: IDLE (reusable)  | rejected by the peer: IDLE
 * passive: INCOMING -Accept-> ACCEPTING -first frame-> CONNECTED ...      INCOMING -Reject-> REJECTED
 * any: close -> DEAD
 * </pre>
 */
final class SoftConnector extends SoftObject implements NdkConnector {
    /** The release action of a link that holds no 4-tuple (the passive side). */
    private static final Runnable NO_TUPLE = () -> { };

    enum State { IDLE, CONNECTING, REPLIED, INCOMING, ACCEPTING, CONNECTED, DISCONNECTED, REJECTED, DEAD }

    private final SoftListener listener;
    private State state;
    private SoftQp qp;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    /** Active side: the local endpoint held, and the request (kept for a retry from a fresh port). */
    private final HeldEndpoint endpoint = new HeldEndpoint(this);
    private ConnectRequest connectRequest;
    /** The out-of-band numbers reserved for this connector ({@link #reserveOutOfBand}), until a connection uses them. */
    private io.jndk.api.NdkOutOfBandEndpoint reserved;
    /** Active side: why the last attempt failed (set before its completion, cleared by the next attempt). */
    private ConnectFailure failure;
    /** The peer's private data, the read limits as requested (after local capping) and as negotiated. */
    private final ConnectionData data = new ConnectionData();
    private final PendingRequest pending = new PendingRequest(this);
    private final DisconnectEvent disconnectEvent = new DisconnectEvent(this);
    /** Active side: the connect deadline. */
    private ScheduledFuture<?> timer;
    private WireLink link;
    /** Active side: the connection's 4-tuple, held until this connector and the transport are both done with it. */
    private HeldTuple tuple;
    /** The connection after the reply (active) or once established (passive). */
    private WireConnection connection;
    /** Passive side: the request this connector stands for. */
    private IncomingRequest incoming;

    SoftConnector(SoftAdapter adapter, SoftListener listener) {
        super(adapter, NdkObjectType.CONNECTOR);
        this.listener = listener;
        this.state = listener == null ? State.IDLE : State.INCOMING;
    }

    @Override
    boolean extraCloseConditionMet() {
        // Called under the lifetime lock: taking this connector's monitor here would invert the lock order
        // of paths that hold the monitor and ask isOpen() (deadlock between a close and a disconnect event).
        return pending.none();
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
        return startConnect(q, src, null, dst, ird, ord, pd, null, rc, ctx);
    }

    @Override
    public int connectWithSharedEndpoint(NdkQp q, NdkSharedEndpoint se, InetSocketAddress dst, int ird, int ord, byte[] pd,
            RequestCompletion rc, Object ctx) {
        if (!(se instanceof SoftSharedEndpoint s) || s.adapter != adapter) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        return startConnect(q, s.bound(), s, dst, ird, ord, pd, null, rc, ctx);
    }

    @Override
    public int reserveOutOfBand(io.jndk.api.Ref<io.jndk.api.NdkOutOfBandEndpoint> local) {
        if (local == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        synchronized (this) {
            if (state != State.IDLE || !isOpen() || reserved != null) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            io.jndk.api.NdkOutOfBandEndpoint r;
            try {
                r = adapter.wire().reserveOutOfBand();
            } catch (IllegalStateException e) {
                return NtStatus.STATUS_IO_TIMEOUT; // the transport could not reserve in time (closing, stopped)
            }
            if (r == null) {
                return NtStatus.STATUS_NOT_SUPPORTED;
            }
            reserved = r;
            local.set(r);
            return NtStatus.STATUS_SUCCESS;
        }
    }

    @Override
    public int connectOutOfBand(NdkQp q, InetSocketAddress src, InetSocketAddress dst,
            io.jndk.api.NdkOutOfBandEndpoint remote, int ird, int ord, RequestCompletion rc, Object ctx) {
        if (src == null || remote == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        ConnectRequest.OutOfBand outOfBand;
        synchronized (this) {
            if (reserved == null) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            outOfBand = new ConnectRequest.OutOfBand(reserved.qpn(), reserved.psn(), remote.qpn(), remote.psn(),
                Math.min(reserved.mtu(), remote.mtu()));
        }
        int s = startConnect(q, src, null, dst, ird, ord, null, outOfBand, rc, ctx);
        int qpn;
        boolean failed;
        synchronized (this) {
            qpn = reserved == null ? -1 : reserved.qpn();
            reserved = null; // one attempt per reservation: the connection owns the numbers now, or nobody does
            failed = state == State.IDLE;
        }
        if (failed && qpn >= 0) {
            adapter.wire().releaseOutOfBand(qpn); // harmless if the transport already let it go
        }
        return s;
    }

    /** {@code outOfBand}: a connection without the transport's CM ({@link #connectOutOfBand}), else null. */
    private int startConnect(NdkQp q, InetSocketAddress src, SoftSharedEndpoint se, InetSocketAddress dst, int ird, int ord,
            byte[] pd, ConnectRequest.OutOfBand outOfBand, RequestCompletion rc, Object ctx) {
        if (!(q instanceof SoftQp sq) || sq.adapter != adapter || dst == null || dst.getAddress() == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!Endpoints.connectable(dst.getAddress())) {
            return NtStatus.STATUS_INVALID_ADDRESS; // before anything is held or the transport is asked
        }
        if (pd != null && pd.length > adapter.infoInternal().maxCallerData()) {
            return NtStatus.STATUS_INVALID_BUFFER_SIZE;
        }
        ConnectRequest request;
        synchronized (this) {
            if (state != State.IDLE || !isOpen()) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            if (sq.beginConnect(this) != NtStatus.STATUS_SUCCESS) {
                return NtStatus.STATUS_CONNECTION_ACTIVE;
            }
            failure = null;
            if ((src.getAddress() instanceof Inet4Address) != (dst.getAddress() instanceof Inet4Address)) {
                sq.detach(this);
                failure = ConnectFailures.differentFamilies();
                return adapter.completeRequest(NtStatus.STATUS_NETWORK_UNREACHABLE, rc, ctx);
            }
            int taken = endpoint.take(src, se, dst);
            if (taken != NtStatus.STATUS_SUCCESS) {
                sq.detach(this);
                if (taken == NtStatus.STATUS_ADDRESS_ALREADY_EXISTS) {
                    failure = ConnectFailures.tupleInUse(taken);
                    return adapter.completeRequest(taken, rc, ctx);
                }
                return taken;
            }
            local = endpoint.connectionAddress();
            remote = dst;
            event(ConnectionStateEvent.REQUESTED, null);
            data.request(ird, ord, adapter.infoInternal());
            qp = sq;
            sq.addSuccessor(this);
            state = State.CONNECTING;
            pending.park(rc, ctx);
            long wait = adapter.limit("connect.timeout.ms", 60_000);
            timer = adapter.dispatcher().schedule(this::connectTimedOut, wait, TimeUnit.MILLISECONDS);
            request = new ConnectRequest(pd == null ? new byte[0] : pd.clone(), data.reqIrd(), data.reqOrd(), wait,
                outOfBand);
            connectRequest = request;
        }
        int s = adapter.wire().connect(local, dst, se != null, request, activeHandler());
        if (s == NtStatus.STATUS_PENDING) {
            return s;
        }
        synchronized (this) { // the attempt ended at once (nothing left): the status is the connect's own
            if (state != State.CONNECTING) {
                return NtStatus.STATUS_PENDING; // closed meanwhile: the close completed the request
            }
            failActive(State.IDLE, ConnectionStateEvent.FAILED, NtStatus.name(s));
            failure = ConnectFailures.atOnce(s, dst);
        }
        pending.unpark();
        return adapter.completeRequest(s, rc, ctx);
    }

    private void connectTimedOut() {
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
            failActive(State.IDLE);
            failure = ConnectFailures.timeout(adapter.limit("connect.timeout.ms", 60_000));
        }
        pending.complete(NtStatus.STATUS_IO_TIMEOUT);
    }

    /** The outcome of the active attempt. */
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
                    connection = c;
                    data.replied(pd, peerIrd, peerOrd);
                    state = State.REPLIED;
                }
                pending.complete(NtStatus.STATUS_SUCCESS);
            }

            @Override
            public void onRejected(byte[] pd, ConnectFailure.Reason reason, String detail) {
                synchronized (SoftConnector.this) {
                    if (state != State.CONNECTING) {
                        return;
                    }
                    data.rejected(pd);
                    failure = new ConnectFailure(NtStatus.STATUS_CONNECTION_REFUSED, reason, detail, data.peerPrivateData());
                    failActive(State.IDLE, ConnectionStateEvent.REJECTED, reason.name());
                }
                adapter.count(NdkCounter.MPA_REJECTS);
                pending.complete(NtStatus.STATUS_CONNECTION_REFUSED);
            }

            @Override
            public void onFailed(int status, ConnectFailure.Reason reason, String detail) {
                InetSocketAddress retryFrom;
                ConnectRequest again;
                synchronized (SoftConnector.this) {
                    if (state != State.CONNECTING) {
                        return;
                    }
                    retryFrom = status == NtStatus.STATUS_SHARING_VIOLATION ? endpoint.freshPort() : null;
                    if (retryFrom != null) {
                        local = retryFrom;
                    }
                    again = connectRequest;
                    if (retryFrom == null) {
                        failure = new ConnectFailure(status, reason, detail, null);
                        failActive(State.IDLE, ConnectionStateEvent.FAILED, reason.name());
                    }
                }
                if (retryFrom != null) {
                    int s = adapter.wire().connect(retryFrom, remote, false, again, this);
                    if (s == NtStatus.STATUS_PENDING) {
                        return;
                    }
                    status = s;
                    synchronized (SoftConnector.this) {
                        if (state != State.CONNECTING) {
                            return;
                        }
                        failure = ConnectFailure.ofStatus(s, NtStatus.describe(s));
                        failActive(State.IDLE);
                    }
                }
                pending.complete(status);
            }
        };
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
        synchronized (this) {
            if (state == State.DEAD && listener == null) {
                return NtStatus.STATUS_CONNECTION_ABORTED;
            }
            if (state != State.REPLIED) {
                return NtStatus.STATUS_CONNECTION_INVALID;
            }
            disconnectEvent.set(cb, cbx, dctx);
            SoftQp q = qp;
            WireConnection c = connection;
            join(c); // the QP is attached before data can flow
            if (c.start(new SoftQpPort(q)) != NtStatus.STATUS_SUCCESS) {
                unjoin(); // the acceptor abandoned the connection before it started
                failActive(State.DEAD);
                return adapter.completeRequest(NtStatus.STATUS_CONNECTION_ABORTED, rc, ctx);
            }
        }
        adapter.count(NdkCounter.CONNECTIONS);
        event(ConnectionStateEvent.ESTABLISHED, null);
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    // ---- passive side -------------------------------------------------------------------------

    /** A passive connector for an incoming request of {@code l}. */
    static SoftConnector incoming(SoftListener l, IncomingRequest r) {
        SoftConnector c = new SoftConnector(l.adapter, l);
        c.incoming = r;
        c.local = r.local();
        c.remote = r.remote();
        c.data.incoming(r.privateData(), r.inboundReadLimit(), r.outboundReadLimit(), l.adapter.infoInternal());
        return c;
    }

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
        synchronized (this) {
            if (state == State.DEAD && listener != null) {
                return NtStatus.STATUS_CONNECTION_ABORTED;
            }
            if (state != State.INCOMING) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            if (sq.beginConnect(this) != NtStatus.STATUS_SUCCESS) {
                return NtStatus.STATUS_CONNECTION_ACTIVE;
            }
            var info = adapter.infoInternal();
            int myIrd = ConnectionData.cap(ird, info.maxInboundReadLimit());
            int myOrd = ConnectionData.cap(ord, info.maxOutboundReadLimit());
            data.accepted(myIrd, myOrd);
            qp = sq;
            sq.addSuccessor(this);
            disconnectEvent.set(cb, cbx, dctx);
            listener.decided();
            state = State.ACCEPTING;
            pending.park(rc, ctx);
            IncomingRequest r = incoming;
            // the transport sizes its read queues from these when it binds the port (before the first frame)
            sq.readLimits(data.effIrd(), data.effOrd());
            SoftQpPort port = new SoftQpPort(sq);
            byte[] mine = pd == null ? new byte[0] : pd.clone();
            adapter.dispatcher().run(() -> r.accept(mine, myIrd, myOrd, port, passiveHandler()));
            return NtStatus.STATUS_PENDING;
        }
    }

    /** The outcome of an accepted request. */
    private PassiveHandler passiveHandler() {
        return new PassiveHandler() {
            @Override
            public void onEstablished(WireConnection c) {
                synchronized (SoftConnector.this) {
                    if (state != State.ACCEPTING) {
                        c.reset();
                        return;
                    }
                    join(c);
                }
                adapter.count(NdkCounter.CONNECTIONS);
                event(ConnectionStateEvent.ESTABLISHED, null);
                pending.complete(NtStatus.STATUS_SUCCESS);
            }

            @Override
            public void onFailed(int status) {
                synchronized (SoftConnector.this) {
                    if (state != State.ACCEPTING) {
                        return;
                    }
                    failPassive();
                }
                pending.complete(status);
            }
        };
    }

    @Override
    public int reject(byte[] pd) {
        if (pd != null && pd.length > adapter.infoInternal().maxCalleeData()) {
            return NtStatus.STATUS_INVALID_BUFFER_SIZE;
        }
        synchronized (this) {
            switch (state) {
                case INCOMING -> {
                    listener.decided();
                    state = State.REJECTED;
                    IncomingRequest r = incoming;
                    byte[] mine = pd == null ? new byte[0] : pd.clone();
                    adapter.dispatcher().run(() -> r.reject(mine));
                    return NtStatus.STATUS_SUCCESS;
                }
                case REPLIED -> {
                    WireConnection c = connection;
                    failActive(State.REJECTED);
                    c.reject();
                    return NtStatus.STATUS_SUCCESS;
                }
                case DEAD -> {
                    return NtStatus.STATUS_CONNECTION_ABORTED;
                }
                default -> {
                    return NtStatus.STATUS_INVALID_DEVICE_STATE;
                }
            }
        }
    }

    // ---- shared steps -------------------------------------------------------------------------

    /** Under this: joins the QP to its established connection. */
    private void join(WireConnection c) {
        SoftQp q = qp;
        HeldTuple t = null;
        if (listener == null) {
            adapter.endpoints().addTuple(local, remote);
            t = new HeldTuple(adapter.endpoints(), local, remote);
        }
        tuple = t;
        WireLink l = new WireLink(c, q, t == null ? NO_TUPLE : t::transportDone);
        adapter.track(c.counters());
        link = l;
        connection = c;
        state = State.CONNECTED;
        q.readLimits(data.effIrd(), data.effOrd());
        q.attach(l);
        l.watchRelease();
    }

    /** Under this: this connector is done with its connection's 4-tuple. */
    private void freeTuple() {
        HeldTuple t = tuple;
        tuple = null;
        if (t != null) {
            t.connectorDone();
        }
    }

    /** Under this: undoes {@link #join} for a connection that never started (nothing flowed on it). */
    private void unjoin() {
        link.down();
        link = null;
        connection = null;
        HeldTuple t = tuple;
        freeTuple();
        if (t != null) {
            t.transportDone(); // it never started: no socket of it is left to wait for
        }
        qp.attachFailed();
    }

    /** Under this: a QP whose connection attempt is over returns to IDLE and no longer depends on this connector. */
    private void detachQp() {
        SoftQp q = qp;
        qp = null;
        if (q != null) {
            q.detach(this);
            q.dropSuccessor(this);
        }
    }

    /** Under this: a failed attempt leaves connector and QP reusable ({@code next} IDLE) or only closable. */
    private void failActive(State next) {
        failActive(next, next == State.REJECTED ? ConnectionStateEvent.REJECTED : ConnectionStateEvent.FAILED, null);
    }

    /** As {@link #failActive(State)}, recording {@code event} (a {@link ConnectionStateEvent} state) and {@code detail}. */
    private void failActive(State next, String event, String detail) {
        state = next;
        detachQp();
        endpoint.release();
        cancelTimer();
        adapter.count(NdkCounter.CONNECT_FAILURES);
        event(event, detail);
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

    /** Records a {@link ConnectionStateEvent} for this connector's addresses. */
    void event(String state, String detail) {
        ConnectionStateEvent.emit(state, adapter.transport(), local, remote, detail);
    }

    // ---- queries ------------------------------------------------------------------------------

    @Override
    public synchronized int getConnectionData(IntRef ird, IntRef ord, byte[] buf, IntRef len) {
        return data.copyOut(state == State.REPLIED || state == State.CONNECTED || state == State.ACCEPTING, ird, ord, buf,
            len);
    }

    @Override
    public synchronized Optional<ConnectFailure> connectFailure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public int getLocalAddress(Ref<InetSocketAddress> address, IntRef length) {
        return copyAddress(true, address, length);
    }

    @Override
    public int getPeerAddress(Ref<InetSocketAddress> address, IntRef length) {
        return copyAddress(false, address, length);
    }

    private int copyAddress(boolean ours, Ref<InetSocketAddress> address, IntRef length) {
        InetSocketAddress a;
        synchronized (this) {
            a = state == State.IDLE || state == State.DEAD ? null : ours ? local : remote;
        }
        return a == null ? NtStatus.STATUS_CONNECTION_INVALID : Endpoints.copyAddress(a, address, length);
    }

    // ---- teardown -----------------------------------------------------------------------------

    @Override
    public int disconnect(RequestCompletion rc, Object ctx) {
        WireLink l;
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
        disconnectEvent.indicate(reason);
    }

    @Override
    void onClose() {
        State s;
        WireLink l;
        SoftQp q;
        WireConnection c;
        IncomingRequest r;
        synchronized (this) {
            s = state;
            l = link;
            q = qp;
            c = connection;
            r = incoming;
            switch (s) {
                case INCOMING -> {
                    listener.decided();
                    state = State.REJECTED;
                }
                case CONNECTING, REPLIED -> failActive(State.DEAD);
                case ACCEPTING -> failPassive();
                default -> { }
            }
        }
        switch (s) {
            case INCOMING -> r.reject(new byte[0]);
            case CONNECTING, REPLIED -> {
                if (s == State.REPLIED) {
                    c.reject();
                }
                pending.complete(NtStatus.STATUS_CANCELLED);
            }
            case ACCEPTING -> {
                r.refuse();
                pending.complete(NtStatus.STATUS_CANCELLED);
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
                freeTuple(); // the 4-tuple stays taken until the transport has let the connection go, too
                state = State.DEAD;
            }
            if (qp != null) {
                qp.forgetConnector(this);
            }
        }
    }

    @Override
    void onClosed() {
        synchronized (this) {
            if (reserved != null) {
                adapter.wire().releaseOutOfBand(reserved.qpn());
                reserved = null;
            }
            endpoint.release();
            if (listener != null) {
                listener.adapter.endpoints().release(listener.bound());
            }
            cancelTimer();
        }
    }
}
