package io.jndk.iwarp.cm;

/** Which end of the MPA setup this side played. */
public enum MpaRole {
    /** Active side: sent the MPA Request. */
    INITIATOR,
    /** Passive side: sent the MPA Reply. */
    RESPONDER
}
