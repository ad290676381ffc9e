package io.jndk.roce.mad;

/** Why {@link MadDecoder} rejected a datagram; checked in this order, the first fault is reported. */
public enum MadError {
    /** A CM message this package decodes. */
    NONE,
    /** Not a GSI datagram: not UD SEND Only, destination or source QP not 1, Q_Key not 0x80010000, or payload not 256 octets. */
    NOT_GSI,
    /** Fewer than 256 octets. */
    TRUNCATED,
    /** Base version not 1. */
    BAD_BASE_VERSION,
    /** Management class not CM (0x07). */
    NOT_CM,
    /** CM class version not 2. */
    BAD_CLASS_VERSION,
    /** Method not Send(). */
    BAD_METHOD,
    /** An attribute other than REQ, MRA, REJ, REP, RTU, DREQ, DREP. */
    UNKNOWN_ATTRIBUTE
}
