package io.jndk.provider;

import io.jndk.api.ConnectEventCallback;
import io.jndk.api.IntRef;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.net.InetSocketAddress;

/** A listener: holds an implicit endpoint and turns each incoming request into a new passive connector. */
final class SoftListener extends SoftObject implements NdkListener {
    static final int BACKLOG = 128;
    private final ConnectEventCallback callback;
    private final Object callbackContext;
    private volatile InetSocketAddress bound;
    private volatile boolean paused;
    private int undecided;

    SoftListener(SoftAdapter adapter, ConnectEventCallback cb, Object ctx) {
        super(adapter, NdkObjectType.LISTENER);
        this.callback = cb;
        this.callbackContext = ctx;
    }

    @Override
    public int listen(InetSocketAddress addr, RequestCompletion rc, Object ctx) {
        if (addr == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        synchronized (this) {
            if (bound != null || !isOpen()) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            InetSocketAddress[] out = new InetSocketAddress[1];
            int s = adapter.endpoints().bind(adapter, addr, true, out);
            if (s != NtStatus.STATUS_SUCCESS) {
                return s;
            }
            bound = out[0];
            int w = adapter.wire().listen(bound, this::onRequest);
            if (w != NtStatus.STATUS_SUCCESS) {
                adapter.endpoints().release(bound);
                bound = null;
                return w;
            }
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    InetSocketAddress bound() {
        return bound;
    }

    @Override
    public int getLocalAddress(Ref<InetSocketAddress> address, IntRef length) {
        InetSocketAddress b = bound;
        if (b == null) {
            return NtStatus.STATUS_INVALID_DEVICE_STATE;
        }
        return Endpoints.copyAddress(b, address, length);
    }

    @Override
    public void controlConnectEvents(boolean pause) {
        paused = pause;
    }

    /** Whether a new request can be indicated; reserves a backlog slot. */
    synchronized boolean admit() {
        if (paused || !isOpen() || bound == null || undecided >= BACKLOG) {
            return false;
        }
        undecided++;
        return true;
    }

    synchronized void decided() {
        if (undecided > 0) {
            undecided--;
        }
    }

    /** A connection request arrived on the listening address (from the transport, on its thread). */
    private void onRequest(io.jndk.provider.spi.IncomingRequest r) {
        if (!admit()) {
            r.refuse();
            return;
        }
        if (!adapter.reserve(NdkObjectType.CONNECTOR)) {
            decided();
            r.refuse();
            return;
        }
        SoftConnector c = SoftConnector.incoming(this, r);
        addSuccessor(c);
        adapter.endpoints().retain(bound);
        indicate(c);
    }

    /** Indicates a new passive connector to the consumer. */
    private void indicate(SoftConnector c) {
        adapter.dispatcher().run(() -> {
            if (!enterCallback()) {
                return;
            }
            try {
                if (isOpen() && callback != null) {
                    callback.onConnectRequest(callbackContext, c);
                } else {
                    // Admitted before the close started but never indicated: refuse it and close the connector
                    // here, since the consumer never sees it (it would otherwise hold the listener close forever).
                    c.reject(null);
                    c.close(null, null);
                }
            } finally {
                exitCallback();
            }
        });
    }

    @Override
    void onClose() {
        InetSocketAddress b = bound;
        if (b != null) {
            adapter.wire().unlisten(b);
        }
    }

    @Override
    void onClosed() {
        InetSocketAddress b = bound;
        if (b != null) {
            adapter.endpoints().release(b);
        }
    }
}
