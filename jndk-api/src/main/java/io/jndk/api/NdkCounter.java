package io.jndk.api;

/** The adapter counters, declared in one place: id and label. */
public enum NdkCounter {
    BYTES_OUT("bytes sent"),
    BYTES_IN("bytes received"),
    FPDUS_OUT("FPDUs sent"),
    FPDUS_IN("FPDUs received"),
    CRC_ERRORS("CRC errors"),
    TERMINATES_SENT("Terminates sent"),
    TERMINATES_RECEIVED("Terminates received"),
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
