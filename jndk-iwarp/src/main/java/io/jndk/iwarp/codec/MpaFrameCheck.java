package io.jndk.iwarp.codec;

/**
 * Result of {@link MpaFrameFlyweight#validate(MpaFrameKind)}: one value per reason, each with the
 * answer the receiver should give (IWARP.md 1.5, RFC 5044 section 7.1.2, RFC 6581 section 10).
 */
public enum MpaFrameCheck {
    /** Well-formed frame within siw's limits. */
    VALID(Disposition.ACCEPT, Disposition.ACCEPT),
    /** The 16 key octets are not the expected key: close without answering. */
    BAD_KEY(Disposition.CLOSE, Disposition.CLOSE),
    /** Revision is neither 1 nor 2: close without answering. */
    BAD_REVISION(Disposition.CLOSE, Disposition.CLOSE),
    /** M = 1: markers are not supported; a Request is answered with a reject, a Reply aborts the connect. */
    MARKERS_NOT_SUPPORTED(Disposition.REJECT, Disposition.CLOSE),
    /** PD_Length above the RFC 5044 limit of 512: close. */
    PRIVATE_DATA_TOO_LONG(Disposition.CLOSE, Disposition.CLOSE),
    /**
     * PD_Length in 257..512: legal per RFC 5044 and accepted, but above siw's limit of 256 (a siw
     * receiver would close). Reported so that callers can log it and never send such a frame.
     */
    PRIVATE_DATA_OVER_SIW_LIMIT(Disposition.ACCEPT, Disposition.ACCEPT),
    /** S = 1 with PD_Length &lt; 4 (no room for the IRD/ORD word): reject, as siw does. */
    ENHANCED_PRIVATE_DATA_TOO_SHORT(Disposition.REJECT, Disposition.CLOSE),
    /** S = 1 on a revision 1 frame (RFC 6581 requires revision 2). */
    ENHANCED_NEEDS_REVISION_2(Disposition.REJECT, Disposition.CLOSE);

    /** What a receiver does with a checked frame. */
    public enum Disposition {
        /** Continue connection setup. */
        ACCEPT,
        /** Answer with an MPA Reply carrying R = 1 (and M = 0), then close. */
        REJECT,
        /** Close the TCP connection without an MPA answer. */
        CLOSE
    }

    private final Disposition onRequest;
    private final Disposition onReply;

    MpaFrameCheck(Disposition onRequest, Disposition onReply) {
        this.onRequest = onRequest;
        this.onReply = onReply;
    }

    /**
     * @param kind the kind of frame that was checked
     * @return what the receiver of such a frame should do
     */
    public Disposition disposition(MpaFrameKind kind) {
        return kind == MpaFrameKind.REQUEST ? onRequest : onReply;
    }

    /** @return whether connection setup may continue */
    public boolean acceptable() {
        return onRequest == Disposition.ACCEPT;
    }
}
