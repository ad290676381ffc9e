package io.jndk.provider.spi;

import java.net.InetSocketAddress;

/** The data path of one connection. Methods never block on the network. */
public interface WireConnection {
    /**
     * Active side: binds the QP and starts data flow (sends the ready-to-receive frame when negotiated).
     *
     * @return {@code STATUS_SUCCESS}, or {@code STATUS_CONNECTION_ABORTED} when the transport already knows that the
     *     peer abandoned the connection (nothing starts; the provider forgets the connection)
     */
    int start(QpPort qp);

    /** Active side: refuses the peer's accept (closes the connection). */
    void reject();

    /** New initiator work is queued in the QP. */
    void kick();

    /** Graceful close once queued output is written. */
    void disconnect();

    /** Fatal local error: sends a Terminate with {@code term} (unless 0) and closes. */
    void abort(int term);

    /** Abortive close (TCP reset). */
    void reset();

    /** {@link #progress()}'s answer once the connection is closed: the caller may forget it. */
    int PROGRESS_CLOSED = -1;

    /**
     * Whether consumers polling this connection's CQs should call {@link #progress()} (a polling engine mode).
     */
    default boolean progressByPolling() {
        return false;
    }

    /**
     * Consumer-driven receive: called by the provider on a thread polling one of this connection's CQs. Takes
     * what has already arrived (placement and completions), never waits for input, and does nothing when another
     * thread runs the receive side.
     *
     * @return {@link #PROGRESS_CLOSED}, or how many reads it did (0: nothing done)
     */
    default int progress() {
        return PROGRESS_CLOSED;
    }

    /**
     * A CQ of this connection's QP was armed: its consumer waits for a notification now, so the transport must
     * not count on that consumer's polls to drive the receive side.
     */
    default void consumerArmed() {
    }

    /**
     * Runs {@code action} once the transport's threads have left the QP's memory for good: no cursor of the QP's port
     * is read or written from then on, so the consumer may free or reuse that memory. It comes after the connection
     * ended (a failure, the peer's close, {@code disconnect}, {@code abort}, {@code reset}, {@code reject}) and its
     * threads stopped; if that is so already, {@code action} runs at once on the calling thread, otherwise on a
     * transport thread, once. A transport bounds it: after {@code abort} or {@code reset} it comes within the
     * transport's own linger bound (iwarp: the Terminate's drain, at most {@code LINGER_MILLIS}) plus the time its
     * threads take to leave a system call. The provider holds the QP's close open until then.
     *
     * <p>The default is for transports whose data path runs only on the calling threads (loopback): nothing of theirs
     * is left in the QP's memory once those calls have returned.
     */
    default void whenReleased(Runnable action) {
        action.run();
    }

    /** This connection's data-path counters (FPDUs, CRC errors), summed into the adapter's counters. */
    WireCounters counters();

    InetSocketAddress local();

    InetSocketAddress remote();
}
