package io.jndk.iwarp.cm;

/**
 * Why a connection setup (or a listen) failed; a closed set that the NDK layer maps to an NTSTATUS (the refusals of
 * many kinds all to {@code STATUS_CONNECTION_REFUSED}) and to the consumer's reason beside it.
 */
public enum MpaFailure {
    /** Nothing listening: the TCP connection was refused. */
    REFUSED,
    /** The peer closed or reset the TCP connection during the MPA exchange, without an answer. */
    PEER_CLOSED,
    /** The peer answered the Request with a Terminate instead of a Reply. */
    TERMINATED,
    /** The Reply's revision is not one this side can use (not 2, the revision of an enhanced Request). */
    BAD_REVISION,
    /** The Reply requires markers (M = 1); markers are not supported. */
    MARKERS,
    /** The peer refuses the CRC policy of this side (it requires the CRC this side refuses, or refuses it). */
    CRC_MISMATCH,
    /** Peer-to-peer mode was asked and the Reply declines it or selects no RTR type this side can send. */
    NO_MATCHING_RTR,
    /** The Reply's private data is longer than allowed (PD_Length over 256). */
    PRIVATE_DATA_TOO_LONG,
    /** The Reply is malformed (a wrong key, no enhanced data in answer to an enhanced Request). */
    BAD_FRAME,
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
