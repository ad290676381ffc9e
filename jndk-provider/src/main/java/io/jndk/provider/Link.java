package io.jndk.provider;

/**
 * The transport seam: how a connected QP moves its work. One link joins two QPs. The loopback link runs
 * requests against the peer QP in the same JVM through the same access checks the iWARP receive path uses.
 */
interface Link {
    /** Hands the QP's queued initiator requests to the engine. */
    void kick(SoftQp qp);

    /** Graceful disconnect started by {@code from}'s consumer. */
    void disconnect(SoftQp from);

    /** Fatal error detected at {@code from}: a Terminate with {@code term} (or a reset), both sides to error. */
    void abort(SoftQp from, int term);

    /** Abortive close (TCP reset) by {@code from}'s consumer: the peer sees a reset. */
    void reset(SoftQp from);

    /** True while data can flow. */
    boolean up();
}
