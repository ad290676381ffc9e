package io.jndk.provider;

import io.jndk.provider.spi.WireConnection;

/** A QP's link over a wire transport: forwards work and teardown to the transport's connection. */
final class WireLink implements Link {
    final WireConnection connection;
    private volatile boolean up = true;

    WireLink(WireConnection connection) {
        this.connection = connection;
    }

    void down() {
        up = false;
    }

    @Override
    public void kick(SoftQp qp) {
        connection.kick();
    }

    @Override
    public void disconnect(SoftQp from) {
        up = false;
        connection.disconnect();
        from.flushAll();
    }

    @Override
    public void abort(SoftQp from, int term) {
        if (up && term != 0) {
            from.adapter.terminate(true, term, from);
        }
        up = false;
        connection.abort(term);
        from.flushAll();
    }

    @Override
    public void reset(SoftQp from) {
        up = false;
        connection.reset();
        from.flushAll();
    }

    @Override
    public boolean up() {
        return up;
    }
}
