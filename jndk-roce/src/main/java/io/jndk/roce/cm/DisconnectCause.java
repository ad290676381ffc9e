package io.jndk.roce.cm;

/** Why an established connection ended ({@link CmEvent.Disconnected}). */
public enum DisconnectCause {
    /** The peer sent a DREQ (answered with a DREP). */
    PEER,
    /** This side's DREQ was answered (or crossed the peer's). */
    LOCAL,
    /** This side's DREQ was never answered within the retries. */
    TIMEOUT,
    /** The peer sent a REJ on the established connection (for instance its REP retries ran out). */
    RESET
}
