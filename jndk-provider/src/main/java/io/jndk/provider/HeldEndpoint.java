package io.jndk.provider;

import io.jndk.api.NtStatus;
import java.net.InetSocketAddress;

/**
 * The local endpoint an active connector holds in its adapter's {@link Endpoints} table while it connects and is
 * connected: its own binding (port 0 picks one), or a reference on a shared endpoint. A connect on a
 * provider-chosen port whose port turns out taken when the transport binds it gets a fresh one, a bounded number of
 * times. Guarded by the connector's monitor.
 */
final class HeldEndpoint {
    /** Fresh ports tried for one connect at most. */
    static final int MAX_AUTO_PORT_RETRIES = 8;
    private final SoftConnector owner;
    private boolean held;
    private SoftSharedEndpoint shared;
    /** The source asked for when it had port 0 (a fresh port may be chosen), else null. */
    private InetSocketAddress autoPortSource;
    private int autoPortRetries;
    private InetSocketAddress bound;

    HeldEndpoint(SoftConnector owner) {
        this.owner = owner;
    }

    private Endpoints table() {
        return owner.adapter.endpoints();
    }

    /**
     * Takes the endpoint for a connect from {@code src} (or the shared endpoint {@code se}) to {@code dst}.
     *
     * @return SUCCESS, the table's refusal of {@code src}, or STATUS_ADDRESS_ALREADY_EXISTS (the shared endpoint
     *     already has a connection to {@code dst})
     */
    int take(InetSocketAddress src, SoftSharedEndpoint se, InetSocketAddress dst) {
        Endpoints t = table();
        if (se == null) {
            InetSocketAddress[] out = new InetSocketAddress[1];
            int s = t.bind(owner.adapter, src, true, out);
            if (s != NtStatus.STATUS_SUCCESS) {
                return s;
            }
            bound = out[0];
            autoPortSource = src.getPort() == 0 ? src : null;
        } else {
            bound = se.bound();
            if (!t.addTuple(bound, dst)) {
                return NtStatus.STATUS_ADDRESS_ALREADY_EXISTS;
            }
            t.removeTuple(bound, dst);
            t.retain(bound);
            shared = se;
            se.addSuccessor(owner);
            autoPortSource = null;
        }
        held = true;
        autoPortRetries = 0;
        return NtStatus.STATUS_SUCCESS;
    }

    /** The connection's local address: a wildcard endpoint connects from the adapter's address. */
    InetSocketAddress connectionAddress() {
        return Endpoints.wildcard(bound.getAddress()) ? new InetSocketAddress(owner.adapter.address(), bound.getPort())
                : bound;
    }

    /**
     * The port chosen for this connect was taken when the transport bound it: a fresh one, if the consumer asked for
     * any port and retries are left.
     *
     * @return the new connection address, or null (the connect fails)
     */
    InetSocketAddress freshPort() {
        if (autoPortSource == null || autoPortRetries >= MAX_AUTO_PORT_RETRIES) {
            return null;
        }
        autoPortRetries++;
        InetSocketAddress source = autoPortSource;
        int retries = autoPortRetries;
        release();
        if (take(source, null, null) != NtStatus.STATUS_SUCCESS) {
            return null;
        }
        autoPortRetries = retries;
        return connectionAddress();
    }

    /** Gives the endpoint back (and the shared endpoint's dependency). */
    void release() {
        if (held) {
            table().release(shared != null ? shared.bound() : bound);
            held = false;
        }
        if (shared != null) {
            SoftSharedEndpoint se = shared;
            shared = null;
            se.dropSuccessor(owner);
        }
    }
}
