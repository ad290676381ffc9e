package io.jndk.iwarp.codec;

/**
 * RDMAP opcodes 0-7 (RFC 5040 section 4.2) with their wire table, in the manner of siw's
 * {@code iwarp_pktinfo[]}: DDP buffer model, untagged queue number and header length.
 *
 * <p>{@link #fromCode(int)} range-checks a received opcode without throwing: an unknown value
 * (8-15, including the RFC 7306 opcodes siw does not support) yields {@code null}, which a receiver
 * turns into {@link TerminateCode#RDMAP_UNEXPECTED_OPCODE}.
 *
 * <table>
 * <caption>Opcode table</caption>
 * <tr><th>op</th><th>message</th><th>model</th><th>QN</th><th>ULPDU header octets</th></tr>
 * <tr><td>0</td><td>RDMA Write</td><td>tagged</td><td>-</td><td>14</td></tr>
 * <tr><td>1</td><td>RDMA Read Request</td><td>untagged</td><td>1</td><td>18 + 28</td></tr>
 * <tr><td>2</td><td>RDMA Read Response</td><td>tagged</td><td>-</td><td>14</td></tr>
 * <tr><td>3</td><td>Send</td><td>untagged</td><td>0</td><td>18</td></tr>
 * <tr><td>4</td><td>Send with Invalidate</td><td>untagged</td><td>0</td><td>18</td></tr>
 * <tr><td>5</td><td>Send with SE</td><td>untagged</td><td>0</td><td>18</td></tr>
 * <tr><td>6</td><td>Send with SE and Invalidate</td><td>untagged</td><td>0</td><td>18</td></tr>
 * <tr><td>7</td><td>Terminate</td><td>untagged</td><td>2</td><td>18 + 4 (+ copied headers)</td></tr>
 * </table>
 */
public enum RdmapOpcode {
    /** RDMA Write. */
    RDMA_WRITE(0, true, RdmapOpcode.NO_QUEUE, DdpTaggedHeaderFlyweight.LENGTH, false),
    /** RDMA Read Request; its 28-octet {@link ReadRequestFlyweight} is part of the header, never payload. */
    RDMA_READ_REQUEST(1, false, 1, DdpUntaggedHeaderFlyweight.LENGTH + ReadRequestFlyweight.LENGTH, false),
    /** RDMA Read Response. */
    RDMA_READ_RESPONSE(2, true, RdmapOpcode.NO_QUEUE, DdpTaggedHeaderFlyweight.LENGTH, false),
    /** Send. */
    SEND(3, false, 0, DdpUntaggedHeaderFlyweight.LENGTH, false),
    /** Send with Invalidate: RsvdULP[8:39] is the STag to invalidate. */
    SEND_WITH_INVALIDATE(4, false, 0, DdpUntaggedHeaderFlyweight.LENGTH, true),
    /** Send with Solicited Event. */
    SEND_WITH_SE(5, false, 0, DdpUntaggedHeaderFlyweight.LENGTH, false),
    /** Send with Solicited Event and Invalidate. */
    SEND_WITH_SE_AND_INVALIDATE(6, false, 0, DdpUntaggedHeaderFlyweight.LENGTH, true),
    /** Terminate; the minimum header is the untagged header plus the 4-octet control word. */
    TERMINATE(7, false, 2, DdpUntaggedHeaderFlyweight.LENGTH + TerminateFlyweight.CONTROL_LENGTH, false);

    /** Queue number of tagged opcodes (they have none). */
    public static final int NO_QUEUE = -1;

    private static final RdmapOpcode[] BY_CODE = values();

    private final int code;
    private final boolean tagged;
    private final int queueNumber;
    private final int headerLength;
    private final boolean invalidates;

    RdmapOpcode(int code, boolean tagged, int queueNumber, int headerLength, boolean invalidates) {
        this.code = code;
        this.tagged = tagged;
        this.queueNumber = queueNumber;
        this.headerLength = headerLength;
        this.invalidates = invalidates;
    }

    /**
     * Range-checked lookup that never throws.
     *
     * @param code a received 4-bit opcode (any int is accepted)
     * @return the opcode, or {@code null} if {@code code} is not 0-7
     */
    public static RdmapOpcode fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** @return the 4-bit wire value */
    public int code() {
        return code;
    }

    /** @return whether the message uses the tagged buffer model (T = 1) */
    public boolean tagged() {
        return tagged;
    }

    /** @return the untagged queue number, or {@link #NO_QUEUE} for tagged opcodes */
    public int queueNumber() {
        return queueNumber;
    }

    /**
     * @return the fixed ULPDU header length (DDP header plus RDMAP header, without the 2-octet MPA
     *     length); the Terminate may carry up to {@link TerminateFlyweight#MAX_LENGTH} - 4 more octets
     */
    public int headerLength() {
        return headerLength;
    }

    /** @return the header length including the 2-octet MPA length field, siw's {@code hdr_len} */
    public int fpduHeaderLength() {
        return FpduFlyweight.LENGTH_FIELD_LENGTH + headerLength;
    }

    /** @return whether RsvdULP[8:39] carries an STag to invalidate */
    public boolean invalidates() {
        return invalidates;
    }

    /** @return whether the opcode may carry DDP payload (all but Read Request and Terminate) */
    public boolean carriesPayload() {
        return this != RDMA_READ_REQUEST && this != TERMINATE;
    }

    /** @return the RDMAP control octet for this opcode (RV = 1) */
    public int controlOctet() {
        return RdmapControl.encode(this);
    }
}
