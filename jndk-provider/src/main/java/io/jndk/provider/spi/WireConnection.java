package io.jndk.provider.spi;

import java.net.InetSocketAddress;

/** The data path of one connection. Methods never block on the network. */
public interface WireConnection {
    /** Active side: binds the QP and starts data flow (sends the ready-to-receive frame when negotiated). */
    void start(QpPort qp);

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

    /** This connection's data-path counters (FPDUs, CRC errors), summed into the adapter's counters. */
    WireCounters counters();

    InetSocketAddress local();

    InetSocketAddress remote();
}
