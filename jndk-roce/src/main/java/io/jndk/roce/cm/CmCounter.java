package io.jndk.roce.cm;

/** The counters of a {@link CmAgent}, declared in one place ({@link CmAgent#counter}). */
public enum CmCounter {
    /** MADs handed to the agent. */
    MADS_RECEIVED("MADs received"),
    /** MADs the agent sent. */
    MADS_SENT("MADs sent"),
    /** MADs that failed {@link io.jndk.roce.mad.MadDecoder} or carried an unusable REQ. */
    MALFORMED("malformed MADs"),
    /** MADs for no known connection (answered statelessly where ib_cm answers: REP, DREQ). */
    UNKNOWN_CONNECTION("MADs for unknown connections"),
    /** MADs that did not fit their connection's state or identity, dropped. */
    WRONG_STATE("MADs in the wrong state"),
    /** Duplicate REQs, REPs and DREQs answered from the connection's state. */
    DUPLICATES("duplicates answered"),
    /** REQ, REP and DREQ resends on timeout. */
    RETRIES("retries"),
    /** REQs refused because the pending-request table was full. */
    REQUEST_OVERFLOW("requests refused, table full"),
    /** REJs sent. */
    REJECTS_SENT("REJs sent");

    private final String label;

    CmCounter(String label) {
        this.label = label;
    }

    /** @return a readable label */
    public String label() {
        return label;
    }
}
