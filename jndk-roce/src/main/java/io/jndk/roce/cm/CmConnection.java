package io.jndk.roce.cm;

import io.jndk.roce.mad.CmAttribute;
import io.jndk.roce.mad.MadHeaderFlyweight;
import java.nio.ByteBuffer;

/**
 * One connection's CM state machine: the active side's {@link #connect} and {@link #complete}, the passive side's
 * {@link #accept}, and on both {@link #reject}, {@link #disconnect} and {@link #close}. The {@link CmAgent} that
 * made it owns its communication IDs, timers and messages; like the agent it is driven by one thread. Every call
 * that does not fit the state returns {@link CmStatus#INVALID_STATE} and changes nothing.
 *
 * <p>One connection is one attempt: after a failure the consumer makes a new one (with a new communication ID),
 * as rdma_cm does with a new CM ID.
 */
public final class CmConnection {

    /** No timer armed. */
    static final long NO_DEADLINE = Long.MAX_VALUE;

    final CmAgent agent;
    final CmHandler handler;
    final boolean active;
    /** The last message this side sent that a timer or a duplicate may resend. */
    final ByteBuffer retained = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
    CmAttribute retainedKind;

    CmState state = CmState.IDLE;
    int localCommId;
    int remoteCommId;
    long transactionId;
    Gid peer;
    int localQpn;
    int remoteQpn;
    /** Interval of this side's retries (REQ: 2 * packet life time + response timeout; REP: the REQ's timeout). */
    long retryMillis;
    int retriesLeft;
    long deadline = NO_DEADLINE;
    /** How long a failed passive connection stays to answer the active side's REQ retries. */
    long holdMillis;
    /** Passive: counted in the agent's pending-request bound. */
    boolean pending;
    boolean mraSent;
    boolean closed;
    /** Reached {@link CmState#ESTABLISHED} once: a later disconnect has nothing left to do. */
    boolean wasEstablished;
    int requestResponderResources;
    int requestInitiatorDepth;
    IncomingConnect request;
    ConnectReply reply;

    CmConnection(CmAgent agent, CmHandler handler, boolean active) {
        this.agent = agent;
        this.handler = handler;
        this.active = active;
    }

    /** @return the state */
    public CmState state() {
        return state;
    }

    /** @return true on the side that sent the REQ */
    public boolean isActive() {
        return active;
    }

    /** @return this side's communication ID (0 before connect) */
    public int localCommId() {
        return localCommId;
    }

    /** @return the peer's communication ID (0 while unknown) */
    public int remoteCommId() {
        return remoteCommId;
    }

    /** @return the transaction ID of the REQ and of every answer to it */
    public long transactionId() {
        return transactionId;
    }

    /** @return the peer's GID, or {@code null} before connect */
    public Gid peer() {
        return peer;
    }

    /** @return passive: the request; {@code null} on the active side */
    public IncomingConnect request() {
        return request;
    }

    /** @return active: the REP once received, else {@code null} */
    public ConnectReply reply() {
        return reply;
    }

    /**
     * Active: sends the REQ (with the rdma_cm header) and waits for REP, REJ or the timeout.
     *
     * @param params the request
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_BUFFER_SIZE} (private data over 56),
     *     {@link CmStatus#INVALID_PARAMETER}, {@link CmStatus#INVALID_STATE} (not a new active connection) or
     *     {@link CmStatus#INSUFFICIENT_RESOURCES}
     */
    public CmStatus connect(ConnectParams params) {
        return agent.connect(this, params);
    }

    /**
     * Passive: sends the REP and waits for RTU (or {@link #dataArrived}); REP is resent until then.
     *
     * @param params the answer
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_BUFFER_SIZE} (private data over 196),
     *     {@link CmStatus#INVALID_PARAMETER} or {@link CmStatus#INVALID_STATE} (not an undecided request)
     */
    public CmStatus accept(AcceptParams params) {
        return agent.accept(this, params);
    }

    /**
     * Passive, on an undecided request, or active, on a received REP: sends REJ reason 28 (consumer reject).
     *
     * @param privateData at most 148 octets, or {@code null}
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_BUFFER_SIZE} or {@link CmStatus#INVALID_STATE}
     */
    public CmStatus reject(byte[] privateData) {
        return agent.reject(this, privateData);
    }

    /**
     * Active, on a received REP: sends the RTU; the connection is established when this returns OK.
     *
     * @param privateData at most 224 octets, or {@code null}
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_BUFFER_SIZE} or {@link CmStatus#INVALID_STATE}
     */
    public CmStatus complete(byte[] privateData) {
        return agent.complete(this, privateData);
    }

    /**
     * Sends a DREQ (resent until DREP) on an established connection; a connection that was established and is
     * already disconnecting or disconnected needs nothing and returns OK.
     *
     * @param privateData at most 220 octets, or {@code null}
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_BUFFER_SIZE} or {@link CmStatus#INVALID_STATE}
     */
    public CmStatus disconnect(byte[] privateData) {
        return agent.disconnect(this, privateData);
    }

    /**
     * Passive: the transport saw the first data packet on the QP before the RTU; establishes the connection as
     * ib_cm's communication-established event does. Ignored in any other state than {@link CmState#REP_SENT}.
     */
    public void dataArrived() {
        agent.dataArrived(this);
    }

    /**
     * Abandons the connection without further events, telling the peer as ib_cm does when its ID is destroyed: a
     * REJ with reason 4 (timeout) while the REQ is outstanding, reason 28 before establishment, a DREQ once when
     * established.
     */
    public void close() {
        agent.close(this);
    }

    /**
     * Abandons the connection abortively, without further events: on an established connection a REJ (reason 28)
     * instead of a DREQ, which the peer's agent reports as {@link DisconnectCause#RESET} (its QP fails and flushes, as
     * after a TCP reset on iWARP); in any other state as {@link #close()}. Sent once: if it is lost, the peer's next
     * request goes unanswered and ends in a retry-exceeded error.
     */
    public void reset() {
        agent.reset(this);
    }

    @Override
    public String toString() {
        return (active ? "active " : "passive ") + state + " local 0x" + Integer.toHexString(localCommId) + " remote 0x"
            + Integer.toHexString(remoteCommId);
    }
}
