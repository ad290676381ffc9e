package io.jndk.roce.rc;

/**
 * The state of a {@link Requester} or a {@link Responder}. The only transition is {@code READY -> ERROR} (a fatal
 * NAK, retry exhaustion, an invalid inbound request, or a flush); nothing leaves {@code ERROR}: a QP in error is
 * destroyed or reset by the layer above (IBTA vol. 1 section 10.3.1, the Error state).
 */
public enum RcState {
    /** Ready to send (requester) and to receive (responder): the RTS state's data path. */
    READY,
    /** Error: nothing is sent or placed any more; every outstanding work request has completed. */
    ERROR
}
