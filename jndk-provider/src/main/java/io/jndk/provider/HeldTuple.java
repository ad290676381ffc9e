package io.jndk.provider;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An active connection's 4-tuple in its adapter's {@link Endpoints} table: taken while the connector is connected,
 * and given back only once both the connector is done with it (closed, or the connection never started) and the
 * transport has let the connection go ({@link io.jndk.provider.spi.WireConnection#whenReleased}: its socket is
 * closed). A connect on the same 4-tuple before then is {@code STATUS_ADDRESS_ALREADY_EXISTS}, never a socket that
 * fails to bind. Each of the two ends is counted once, from any thread.
 */
final class HeldTuple {
    private static final int CONNECTOR = 1, TRANSPORT = 2;
    private final Endpoints table;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    /** The ends still to come ({@link #CONNECTOR}, {@link #TRANSPORT}). */
    private final AtomicInteger open = new AtomicInteger(CONNECTOR | TRANSPORT);

    HeldTuple(Endpoints table, InetSocketAddress local, InetSocketAddress remote) {
        this.table = table;
        this.local = local;
        this.remote = remote;
    }

    /** The connector is done with the connection (closed, or it never started). */
    void connectorDone() {
        end(CONNECTOR);
    }

    /** The transport has let the connection go. */
    void transportDone() {
        end(TRANSPORT);
    }

    private void end(int which) {
        int before;
        do {
            before = open.get();
            if ((before & which) == 0) {
                return;
            }
        } while (!open.compareAndSet(before, before & ~which));
        if ((before & ~which) == 0) {
            table.removeTuple(local, remote);
        }
    }
}
