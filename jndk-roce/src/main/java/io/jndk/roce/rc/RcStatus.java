package io.jndk.roce.rc;

/**
 * The completion status of a work request, as the RC transport knows it (IBTA vol. 1 section 11.4.2.1's
 * completion statuses, the ones this core can produce). The provider maps them to NTSTATUS values.
 */
public enum RcStatus {
    /** Done: acknowledged (SEND, WRITE), every response placed (READ), or the message received. */
    SUCCESS,
    /** Flushed: the QP went to error before this request's turn (NDKPI: {@code STATUS_CANCELLED}). */
    FLUSHED,
    /** The transport retry counter ran out (local ACK timeouts and PSN sequence error NAKs). */
    RETRY_EXCEEDED,
    /** The RNR retry counter ran out: the responder had no receive posted. */
    RNR_RETRY_EXCEEDED,
    /** The responder answered NAK invalid request. */
    REMOTE_INVALID_REQUEST,
    /** The responder answered NAK remote access error. */
    REMOTE_ACCESS_ERROR,
    /** The responder answered NAK remote operational error (or a reserved NAK code). */
    REMOTE_OPERATIONAL_ERROR,
    /** Receive side: the inbound SEND was longer than the posted receive buffer. */
    LOCAL_LENGTH_ERROR,
    /** Receive side: the inbound message broke the protocol (opcode sequence, lengths) and the QP went to error. */
    INVALID_REQUEST,
    /** Receive side: the R_Key named by a SEND with Invalidate could not be invalidated. */
    INVALIDATE_ERROR
}
