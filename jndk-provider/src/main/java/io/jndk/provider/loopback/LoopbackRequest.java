package io.jndk.provider.loopback;

import io.jndk.api.ConnectFailure;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.ConnectRequest;
import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;

/**
 * One loopback connection being set up: the request as the listener sees it ({@link IncomingRequest}) and the
 * requester's pending attempt. It plays the part MPA plays on a wire: the request carries the requester's private
 * data and read limits, the accept answers with the acceptor's, and the connection is established when the requester
 * starts its end ({@link LoopbackConnection#start}), as a wire connection is by the requester's first frame.
 *
 * <p>Each outcome reaches the other side exactly once: {@link #phase} changes under this object's monitor and every
 * handler is called after it is released.
 */
final class LoopbackRequest implements IncomingRequest {
    /** The setup's steps. */
    enum Phase {
        /** Handed to the listener; waiting for its decision. */
        REQUESTED,
        /** Accepted: the requester has the reply and may start. */
        ACCEPTED,
        /** The requester started: both ends carry data. */
        ESTABLISHED,
        /** Refused, rejected, timed out or abandoned by either side: nothing more happens. */
        OVER
    }

    private final LoopbackTransport acceptor;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final ConnectRequest request;
    private final ActiveHandler active;
    private Phase phase = Phase.REQUESTED;
    /** A refusal while the listener was still being asked (inside {@code connect}): reported inline, not to the handler. */
    private boolean inline = true;
    private boolean refusedInline;
    private ScheduledFuture<?> deadline;
    private PassiveHandler passive;
    private LoopbackConnection activeEnd;
    private LoopbackConnection passiveEnd;

    /**
     * @param acceptor the listening adapter's transport
     * @param local the listener's side of the connection (the destination)
     * @param remote the requester's side
     */
    LoopbackRequest(LoopbackTransport acceptor, InetSocketAddress local, InetSocketAddress remote, ConnectRequest request,
            ActiveHandler active) {
        this.acceptor = acceptor;
        this.local = local;
        this.remote = remote;
        this.request = request;
        this.active = active;
    }

    /**
     * Hands the request to the listener, on the requester's thread.
     *
     * @return STATUS_PENDING, or STATUS_CONNECTION_REFUSED when the listener refused it at once
     */
    int offer(LoopbackFabric.Listening listening) {
        listening.handler().onRequest(this);
        synchronized (this) {
            inline = false;
            if (refusedInline) {
                return NtStatus.STATUS_CONNECTION_REFUSED;
            }
            if (phase == Phase.REQUESTED && request.timeoutMillis() > 0) {
                deadline = LoopbackFabric.JVM.schedule(this::connectTimedOut, request.timeoutMillis());
            }
            return NtStatus.STATUS_PENDING;
        }
    }

    private void connectTimedOut() {
        synchronized (this) {
            if (phase != Phase.REQUESTED) {
                return;
            }
            phase = Phase.OVER;
        }
        active.onFailed(NtStatus.STATUS_IO_TIMEOUT, ConnectFailure.Reason.TIMEOUT,
                "the listener's consumer neither accepted nor rejected the request in time");
    }

    // ---- the listener's side (IncomingRequest) ------------------------------------------------

    @Override
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public byte[] privateData() {
        return request.privateData().clone();
    }

    @Override
    public int inboundReadLimit() {
        return request.inboundReadLimit();
    }

    @Override
    public int outboundReadLimit() {
        return request.outboundReadLimit();
    }

    @Override
    public void accept(byte[] privateData, int inboundReadLimit, int outboundReadLimit, QpPort qp, PassiveHandler handler) {
        LoopbackConnection a;
        synchronized (this) {
            if (phase != Phase.REQUESTED) {
                a = null;
            } else {
                phase = Phase.ACCEPTED;
                cancelDeadline();
                passive = handler;
                activeEnd = new LoopbackConnection(this, true, remote, local);
                passiveEnd = new LoopbackConnection(this, false, local, remote);
                activeEnd.pair(passiveEnd);
                passiveEnd.bind(qp);
                a = activeEnd;
                deadline = LoopbackFabric.JVM.schedule(this::acceptTimedOut, acceptor.acceptTimeoutMillis());
            }
        }
        if (a == null) {
            handler.onFailed(NtStatus.STATUS_CONNECTION_ABORTED); // the requester gave up meanwhile
            return;
        }
        active.onReply(a, remote, privateData == null ? new byte[0] : privateData.clone(), inboundReadLimit,
                outboundReadLimit);
    }

    private void acceptTimedOut() {
        abandon(NtStatus.STATUS_IO_TIMEOUT);
    }

    @Override
    public void reject(byte[] privateData) {
        synchronized (this) {
            if (phase != Phase.REQUESTED) {
                return;
            }
            phase = Phase.OVER;
            cancelDeadline();
        }
        active.onRejected(privateData == null ? new byte[0] : privateData.clone());
    }

    @Override
    public void refuse() {
        boolean tell;
        synchronized (this) {
            if (phase == Phase.ACCEPTED) {
                phase = Phase.OVER; // abandoned before the requester started: its start fails
                cancelDeadline();
                return;
            }
            if (phase != Phase.REQUESTED) {
                return;
            }
            phase = Phase.OVER;
            cancelDeadline();
            refusedInline = inline;
            tell = !inline;
        }
        if (tell) {
            active.onFailed(NtStatus.STATUS_CONNECTION_REFUSED, ConnectFailure.Reason.PEER_CLOSED,
                    "the listener dropped the request without an answer (paused, closing, or its backlog is full)");
        }
    }

    // ---- the requester's side -----------------------------------------------------------------

    /**
     * The requester starts its end: the connection is established and the acceptor learns it.
     *
     * @return false when the acceptor abandoned the connection (its start fails)
     */
    boolean start() {
        PassiveHandler p;
        synchronized (this) {
            if (phase != Phase.ACCEPTED) {
                return false;
            }
            phase = Phase.ESTABLISHED;
            cancelDeadline();
            p = passive;
        }
        p.onEstablished(passiveEnd);
        return true;
    }

    /** The requester declined the reply (or closed): the acceptor's connection is abandoned. */
    void declined() {
        abandon(NtStatus.STATUS_CONNECTION_ABORTED);
    }

    private void abandon(int status) {
        PassiveHandler p;
        synchronized (this) {
            if (phase != Phase.ACCEPTED) {
                return;
            }
            phase = Phase.OVER;
            cancelDeadline();
            p = passive;
        }
        p.onFailed(status);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
