package io.jndk.provider.spi;

import java.net.InetSocketAddress;

/** A connection request waiting for the passive consumer's decision. */
public interface IncomingRequest {
    InetSocketAddress local();

    InetSocketAddress remote();

    /** The requester's private data. */
    byte[] privateData();

    /** The requester's IRD. */
    int inboundReadLimit();

    /** The requester's ORD. */
    int outboundReadLimit();

    /**
     * Accepts: the reply goes out with {@code privateData} and the given limits; {@code qp} receives what
     * arrives from now on. {@code handler} learns when the requester completed (or abandoned) the connection.
     */
    void accept(byte[] privateData, int inboundReadLimit, int outboundReadLimit, QpPort qp, PassiveHandler handler);

    /** Rejects with private data (the requester sees a refusal carrying it). */
    void reject(byte[] privateData);

    /**
     * Refuses without an answer (listener paused, closing or backlog full); after {@link #accept}, abandons the
     * connection if it is not established yet (the consumer closed its connector).
     */
    void refuse();
}
