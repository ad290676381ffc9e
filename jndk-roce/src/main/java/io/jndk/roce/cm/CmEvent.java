package io.jndk.roce.cm;

/**
 * An outcome of a connection, as a value; docs/ROCE-CM.md maps each onto the NDK status the transport reports.
 * Per connection attempt exactly one of {@link Established} (passive), a successful
 * {@link CmConnection#complete} (active), {@link Rejected} or {@link TimedOut} ends the establishment.
 */
public sealed interface CmEvent {

    /** @return the connection concerned */
    CmConnection connection();

    /**
     * Passive: a REQ for a listened port; the consumer answers with {@link CmConnection#accept} or
     * {@link CmConnection#reject}.
     *
     * @param connection the new connection, in {@link CmState#REQ_RECEIVED}
     * @param request the request
     */
    record RequestReceived(CmConnection connection, IncomingConnect request) implements CmEvent {
    }

    /**
     * Active: the peer accepted; the consumer answers with {@link CmConnection#complete} or
     * {@link CmConnection#reject}.
     *
     * @param connection the connection, in {@link CmState#REP_RECEIVED}
     * @param reply the REP
     */
    record ReplyReceived(CmConnection connection, ConnectReply reply) implements CmEvent {
    }

    /**
     * Passive: the RTU arrived (or the transport reported the first data packet).
     *
     * @param connection the connection, now {@link CmState#ESTABLISHED}
     */
    record Established(CmConnection connection) implements CmEvent {
    }

    /**
     * The peer sent a REJ before the connection was established.
     *
     * @param connection the connection
     * @param during the state it was in: {@link CmState#REQ_SENT} (refused: no listener, consumer reject, no
     *     resources), {@link CmState#REP_RECEIVED}, {@link CmState#REQ_RECEIVED} or {@link CmState#REP_SENT}
     *     (the peer abandoned or rejected the accept)
     * @param reason the REJ reason (IBTA table 109: 28 consumer, 8 invalid service ID, 4 timeout, ...)
     * @param privateData the REJ's 148 octets of private data
     */
    record Rejected(CmConnection connection, CmState during, int reason, byte[] privateData) implements CmEvent {

        /** Copies the private data. */
        public Rejected {
            privateData = privateData.clone();
        }

        /** @return a copy of the private data */
        @Override
        public byte[] privateData() {
            return privateData.clone();
        }
    }

    /**
     * The peer never answered within the retries (REQ or REP), or never finished (a request left undecided
     * beyond the active side's retry window).
     *
     * @param connection the connection
     * @param during {@link CmState#REQ_SENT}, {@link CmState#REP_SENT} or {@link CmState#REQ_RECEIVED}
     */
    record TimedOut(CmConnection connection, CmState during) implements CmEvent {
    }

    /**
     * An established connection (or one about to be) ended.
     *
     * @param connection the connection, now in {@link CmState#TIMEWAIT}
     * @param cause why
     */
    record Disconnected(CmConnection connection, DisconnectCause cause) implements CmEvent {
    }

    /**
     * The time wait ended: the agent forgot the connection and its QP may be reused.
     *
     * @param connection the connection, now {@link CmState#CLOSED}
     */
    record TimewaitExit(CmConnection connection) implements CmEvent {
    }
}
