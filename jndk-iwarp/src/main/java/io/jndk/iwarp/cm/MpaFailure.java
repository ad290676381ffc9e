package io.jndk.iwarp.cm;

/**
 * Why a connection setup (or a listen) failed; a closed set that the NDK layer maps to NTSTATUS
 * values one to one.
 */
public enum MpaFailure {
    /**
     * Nothing listening, the peer closed or reset the connection during setup, or it answered with a
     * malformed or unusable Reply (bad key, bad revision, oversized private data, markers required,
     * no enhanced data, no matching RTR option).
     */
    REFUSED,
    /** No route to the host. */
    HOST_UNREACHABLE,
    /** The network is unreachable. */
    NETWORK_UNREACHABLE,
    /** The TCP connect or the wait for the MPA frame took longer than allowed. */
    TIMEOUT,
    /** The local address (and port) is already in use. */
    ADDRESS_IN_USE,
    /** The address is unresolved, of an unsupported family, or not local where a local one is needed. */
    INVALID_ADDRESS,
    /** The peer needs more inbound RDMA Read resources (IRD) than this side can provide. */
    INSUFFICIENT_RESOURCES,
    /** The thread was interrupted (the operation was cancelled). */
    CANCELLED,
    /** The connection broke after the Request was received, while the Reply was being written. */
    ABORTED,
    /** The pending connection was already accepted, rejected or closed. */
    INVALID_STATE
}
