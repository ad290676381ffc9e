package io.jndk.api;

/**
 * The adapter counters, declared in one place: id and label. Counters only grow while the adapter is open.
 *
 * <p>Terminates are counted twice: once in the total ({@link #TERMINATES_SENT}, {@link #TERMINATES_RECEIVED})
 * and once in the counter of the layer that reported the error (RDMAP, DDP, or LLP/MPA). A received Terminate
 * whose layer cannot be decoded counts in the total only. FPDUs and CRC errors are counted by the iWARP
 * transport; the in-JVM loopback carries no FPDUs and keeps them at zero.
 */
public enum NdkCounter {
    BYTES_OUT("bytes sent"),
    BYTES_IN("bytes received"),
    FPDUS_OUT("FPDUs sent"),
    FPDUS_IN("FPDUs received"),
    /** Of {@link #FPDUS_IN}: those a polling consumer's thread received (the iWARP polling mode). */
    FPDUS_IN_POLLED("FPDUs received by pollers"),
    /**
     * Of {@link #FPDUS_OUT}: those a consumer's thread sent itself while posting or polling (iWARP: the polling mode,
     * and small requests on the shared engine; RoCE: the polling mode), not the transport's engine.
     */
    FPDUS_OUT_INLINE("FPDUs sent by consumers"),
    /**
     * Of {@link #BYTES_IN}: payload octets the iWARP transport read from the socket straight into registered memory
     * (direct placement), not through its receive buffer.
     */
    BYTES_IN_DIRECT("bytes placed directly"),
    CRC_ERRORS("CRC errors"),
    TERMINATES_SENT("Terminates sent"),
    TERMINATES_SENT_RDMAP("Terminates sent (RDMAP)"),
    TERMINATES_SENT_DDP("Terminates sent (DDP)"),
    TERMINATES_SENT_MPA("Terminates sent (MPA)"),
    TERMINATES_RECEIVED("Terminates received"),
    TERMINATES_RECEIVED_RDMAP("Terminates received (RDMAP)"),
    TERMINATES_RECEIVED_DDP("Terminates received (DDP)"),
    TERMINATES_RECEIVED_MPA("Terminates received (MPA)"),
    MPA_REJECTS("MPA rejects"),
    CONNECTIONS("connections established"),
    CONNECT_FAILURES("connection attempts failed"),
    REGISTRATIONS("memory registrations"),
    FAST_REGISTERS("fast registers"),
    BINDS("memory window binds"),
    INVALIDATIONS("invalidations"),
    WORK_REQUESTS("work requests posted"),
    COMPLETIONS("completions queued"),
    FLUSHED_REQUESTS("requests flushed"),
    ACCESS_ERRORS("access check failures");

    /** Human-readable label. */
    public final String label;

    NdkCounter(String label) {
        this.label = label;
    }
}
