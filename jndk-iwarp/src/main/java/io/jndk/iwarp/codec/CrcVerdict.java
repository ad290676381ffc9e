package io.jndk.iwarp.codec;

/** Outcome of the CRC trailer check of one FPDU. */
public enum CrcVerdict {
    /** CRC was negotiated and the trailer matches. */
    VALID,
    /** CRC was negotiated and the trailer does not match: Terminate {@link TerminateCode#LLP_CRC_ERROR}. */
    MISMATCH,
    /** CRC was not negotiated; the trailer was skipped unread (RFC 5044 forbids checking it). */
    NOT_CHECKED
}
