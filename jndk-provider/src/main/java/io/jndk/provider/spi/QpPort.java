package io.jndk.provider.spi;

/**
 * The verbs engine's side of one connected QP, as a wire transport sees it. The transport owns the wire state
 * (MSNs, outstanding reads, inbound read queue); the provider owns queues, completions, memory and every
 * access check. All methods are non-blocking and may be called from the transport's threads; TX methods from
 * one thread at a time, RX methods from one thread at a time (a TX and an RX call may run at once).
 */
public interface QpPort {
    /** Outcome of {@link #nextRequest}. */
    int NONE = 0, READY = 1, FENCED = 2, FAILED = 3;

    /**
     * Read Responses a transport may still hold unwritten after freeing their inbound queue places (one batch).
     * A source cursor from {@link #readSource} therefore stays valid until {@link #inboundReadLimit()} plus this
     * many further calls.
     */
    int READ_RESPONSE_BATCH = 8;

    // ---- transmit side ------------------------------------------------------------------------

    /**
     * Takes the next initiator request in posting order. Local operations (bind, fast-register, invalidate)
     * are executed by the provider inside this call and never returned.
     *
     * @param readsOutstanding reads sent and not yet answered (for READ_FENCE)
     * @return {@link #READY} (filled {@code out}), {@link #NONE}, {@link #FENCED} (the next request waits for
     *     outstanding reads), or {@link #FAILED}: a local error was completed and the QP is in error; the
     *     transport must abort the connection
     */
    int nextRequest(WireRequest out, int readsOutstanding);

    /** A write or send left completely: it completes (in posting order). Not called for reads. */
    void sent(WireRequest request);

    /**
     * Whether the newest request posted is the only work of the consumer on this QP's initiator side: the send queue
     * holds no other request (none waiting to be taken, none started and not yet completed) and no completion waits
     * unpolled in the CQ the QP's requests complete to. A hint read without a lock, possibly stale by the time it is
     * used. A consumer that posts while other requests are in flight, or while completions wait for it, streams; one
     * that posts with nothing else outstanding waits for this request. A transport may send a small request on the
     * posting thread in the second case and leave batching to its engine in the first (the iwarp shared engine does).
     */
    default boolean postedAlone() {
        return false;
    }

    // ---- receive side -------------------------------------------------------------------------

    /**
     * A read's response was placed completely: the read completes with its length (in posting order, after
     * the requests before it). {@code request} carries only the handle and the length.
     */
    void readDone(WireRequest request);

    /** Checks an inbound RDMA Write segment; returns 0 and the target, or a Terminate code ({@link Term}). */
    int writeTarget(int stag, long to, long length, BufferCursor[] out);

    /** Checks the source of an inbound RDMA Read Request; returns 0 and the source, or a Terminate code. */
    int readSource(int stag, long to, long length, BufferCursor[] out);

    /** Inbound read limit negotiated for this QP. */
    int inboundReadLimit();

    /** Outbound read limit negotiated for this QP. */
    int outboundReadLimit();

    /** A Send's first segment: takes the next posted receive; returns 0 and its buffer, or a Terminate code. */
    int beginReceive(BufferCursor[] out);

    /**
     * The Send's last segment arrived: invalidates (when asked) and completes the receive.
     *
     * @return 0, or a Terminate code when the token cannot be invalidated (the receive then completes in error)
     */
    int endReceive(long bytes, boolean solicited, boolean invalidate, int invalidateToken);

    /** The Send overflowed the receive, or placement failed: completes the receive with {@code status}. */
    void failReceive(int status, int term);

    // ---- connection events --------------------------------------------------------------------

    /**
     * The connection failed: {@code term} is the Terminate sent ({@code sent}) or received, 0 for a TCP-level
     * failure; {@code reason} a {@code DisconnectReason}. The QP goes to error, outstanding requests flush
     * (the oldest unfinished request carries {@code status}), the disconnect event is indicated.
     */
    void failed(int status, int term, boolean sent, int reason);

    /** The peer closed gracefully (the disconnect event; no flush). */
    void peerClosed();
}
