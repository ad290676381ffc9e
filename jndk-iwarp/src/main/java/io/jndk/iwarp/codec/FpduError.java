package io.jndk.iwarp.codec;

/**
 * Why {@link FpduDecoder} stopped, with the Terminate to send for it ({@code null} when none is
 * sent). Errors are values, never exceptions; once reported the decoder stays in that state.
 */
public enum FpduError {
    /** No error. */
    NONE(null),
    /** CRC negotiated and the trailer did not match. */
    CRC_MISMATCH(TerminateCode.LLP_CRC_ERROR),
    /** DV != 1 on a tagged segment. */
    DDP_VERSION_TAGGED(TerminateCode.DDP_TAGGED_INVALID_VERSION),
    /** DV != 1 on an untagged segment. */
    DDP_VERSION_UNTAGGED(TerminateCode.DDP_UNTAGGED_INVALID_VERSION),
    /** RV != 1. */
    RDMAP_VERSION(TerminateCode.RDMAP_INVALID_VERSION),
    /** Opcode 8-15: not an RDMAP opcode siw or jndk supports. */
    UNKNOWN_OPCODE(TerminateCode.RDMAP_UNEXPECTED_OPCODE),
    /** The T bit disagrees with the opcode's buffer model. */
    BUFFER_MODEL_MISMATCH(TerminateCode.RDMAP_UNEXPECTED_OPCODE),
    /** An untagged segment names a queue number other than its opcode's (Send 0, Read Request 1, Terminate 2). */
    INVALID_QUEUE_NUMBER(TerminateCode.DDP_UNTAGGED_INVALID_QN),
    /** ULPDU_Length is smaller than the opcode's header. */
    ULPDU_TOO_SHORT(TerminateCode.RDMAP_CATASTROPHIC_STREAM),
    /** An RDMA Read Request carries octets beyond its 28-octet header. */
    READ_REQUEST_WITH_PAYLOAD(TerminateCode.RDMAP_CATASTROPHIC_STREAM),
    /** A Terminate whose length cannot hold its control word or exceeds the largest legal body: close, never answer. */
    MALFORMED_TERMINATE(null),
    /** The listener called {@link FpduDecoder#stop()}. */
    STOPPED(null);

    private final TerminateCode terminate;

    FpduError(TerminateCode terminate) {
        this.terminate = terminate;
    }

    /** @return the Terminate to send, or {@code null} to close without one */
    public TerminateCode terminate() {
        return terminate;
    }
}
