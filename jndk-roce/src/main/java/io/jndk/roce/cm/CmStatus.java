package io.jndk.roce.cm;

/** Result of a consumer's call on a {@link CmAgent} or {@link CmConnection}; docs/ROCE-CM.md maps each onto NDK. */
public enum CmStatus {
    /** Done (a message was sent, or the call needed none). */
    OK,
    /** Private data longer than the message allows (REQ 56 after the rdma_cm header, REP 196, REJ 148, ...). */
    INVALID_BUFFER_SIZE,
    /** A parameter out of its field's range (QPN or PSN over 24 bits, IRD/ORD over 255, a port over 16 bits). */
    INVALID_PARAMETER,
    /** The call does not fit the connection's state (for example accept on an active connection). */
    INVALID_STATE,
    /** No free communication ID or connection slot. */
    INSUFFICIENT_RESOURCES,
    /** The port already has a listener. */
    ADDRESS_IN_USE
}
