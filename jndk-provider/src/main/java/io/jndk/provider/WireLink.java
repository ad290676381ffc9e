package io.jndk.provider;

import io.jndk.provider.spi.WireConnection;

/**
 * A QP's link over a wire transport: forwards work and teardown to the transport's connection. In a polling
 * engine mode the connection is known to the QP's CQs while the link is up, so that polling them drives its
 * receive side ({@link WireConnection#progress()}).
 */
final class WireLink implements Link {
    final WireConnection connection;
    private final SoftQp qp;
    private volatile boolean up = true;

    WireLink(WireConnection connection, SoftQp qp) {
        this.connection = connection;
        this.qp = qp;
        if (connection.progressByPolling()) {
            qp.initiatorCq.addPoller(connection);
            if (qp.receiveCq != qp.initiatorCq) {
                qp.receiveCq.addPoller(connection);
            }
        }
    }

    void down() {
        up = false;
        forget();
    }

    /** The CQs stop driving the connection. */
    private void forget() {
        qp.initiatorCq.removePoller(connection);
        if (qp.receiveCq != qp.initiatorCq) {
            qp.receiveCq.removePoller(connection);
        }
    }

    @Override
    public void kick(SoftQp qp) {
        connection.kick();
    }

    @Override
    public void disconnect(SoftQp from) {
        up = false;
        forget();
        connection.disconnect();
        from.flushAll();
    }

    @Override
    public void abort(SoftQp from, int term) {
        if (up && term != 0) {
            from.adapter.terminate(true, term, from);
        }
        up = false;
        forget();
        connection.abort(term);
        from.flushAll();
    }

    @Override
    public void reset(SoftQp from) {
        up = false;
        forget();
        connection.reset();
        from.flushAll();
    }

    @Override
    public boolean up() {
        return up;
    }
}
