package io.jndk.provider;

import io.jndk.provider.spi.WireConnection;

/**
 * A connected QP's link to its transport connection (every transport, loopback included): forwards work and
 * teardown to the {@link WireConnection}. In a polling engine mode the connection is known to the QP's CQs while the
 * link is up, so that polling them drives its receive side ({@link WireConnection#progress()}).
 */
final class WireLink {
    final WireConnection connection;
    private final SoftQp qp;
    /** Runs once the transport has let the connection go, before the QP hears of it (frees the 4-tuple). */
    private final Runnable onRelease;
    private volatile boolean up = true;
    /** The transport's threads have left the QP's memory for good ({@link WireConnection#whenReleased}). */
    private volatile boolean released;

    WireLink(WireConnection connection, SoftQp qp, Runnable onRelease) {
        this.connection = connection;
        this.qp = qp;
        this.onRelease = onRelease;
        if (connection.progressByPolling()) {
            qp.initiatorCq.pollers().add(connection);
            if (qp.receiveCq != qp.initiatorCq) {
                qp.receiveCq.pollers().add(connection);
            }
        }
    }

    /**
     * Asks the transport to say when its threads have left the QP's memory and its socket is closed; until then the
     * QP's close pends ({@link SoftQp#extraCloseConditionMet}). Called once the link is the QP's (the action may run
     * at once).
     */
    void watchRelease() {
        connection.whenReleased(() -> {
            onRelease.run();
            released = true;
            qp.recheckClose();
        });
    }

    /** @return whether the transport's threads have left the QP's memory for good */
    boolean released() {
        return released;
    }

    /** The connection is gone (failed or closed by the peer): no more work goes to it. */
    void down() {
        up = false;
        forget();
    }

    /** The CQs stop driving the connection. */
    private void forget() {
        qp.initiatorCq.pollers().remove(connection);
        if (qp.receiveCq != qp.initiatorCq) {
            qp.receiveCq.pollers().remove(connection);
        }
    }

    /** Hands the QP's queued initiator requests to the transport. */
    void kick() {
        connection.kick();
    }

    /** Graceful disconnect started by {@code from}'s consumer; the QP flushes. */
    void disconnect(SoftQp from) {
        up = false;
        forget();
        connection.disconnect();
        from.flushAll();
    }

    /** Fatal error detected at {@code from}: a Terminate with {@code term} (0: none) and a close; the QP flushes. */
    void abort(SoftQp from, int term) {
        if (up && term != 0) {
            from.adapter.terminate(true, term, from);
        }
        up = false;
        forget();
        connection.abort(term);
        from.flushAll();
    }

    /** Abortive close (TCP reset) by {@code from}'s consumer; the QP flushes. */
    void reset(SoftQp from) {
        up = false;
        forget();
        connection.reset();
        from.flushAll();
    }

    /** True while data can flow. */
    boolean up() {
        return up;
    }
}
