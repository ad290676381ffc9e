package io.jndk.roce.cm;

/**
 * The states of one connection, named after those of IBTA vol. 1 section 12.9 and Linux {@code ib_cm}. The MRA
 * sub-states are folded into their main state (an MRA only moves a timer).
 */
public enum CmState {
    /** Created, nothing sent or received. */
    IDLE,
    /** Active: REQ sent, waiting for REP, REJ or MRA. */
    REQ_SENT,
    /** Active: REP received, waiting for the consumer to complete (RTU) or reject. */
    REP_RECEIVED,
    /** Passive: REQ received, waiting for the consumer to accept (REP) or reject. */
    REQ_RECEIVED,
    /** Passive: REP sent, waiting for RTU (or the first data packet). */
    REP_SENT,
    /** Both sides: connected. */
    ESTABLISHED,
    /** DREQ sent, waiting for DREP. */
    DREQ_SENT,
    /** Finished; the communication ID is kept for a bounded time to answer the peer's retries. */
    TIMEWAIT,
    /** Released: the agent has forgotten the connection. */
    CLOSED
}
