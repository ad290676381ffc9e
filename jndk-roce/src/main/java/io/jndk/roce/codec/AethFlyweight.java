package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 4-octet ACK Extended Transport Header (IBTA vol. 1 section 9.3.5, figure 132) of
 * Acknowledge, Atomic Acknowledge and the RDMA READ Response First/Last/Only packets.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |R|Typ|  Value  |                   MSN (24 bits)               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>The syndrome octet (IBTA table 42): R reserved (0), Typ the {@link AckType} (bits 6-5), Value (bits 4-0) the
 * credit count of an ACK, the RNR timer code of an RNR NAK or the {@link NakCode} of a NAK. rxe's ACKs carry
 * syndrome 0x1F: ACK with credit count 31, "invalid credit count" (end-to-end credits not used).
 */
public final class AethFlyweight extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 4;
    /** Offset of the syndrome octet. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the 24-bit MSN. */
    public static final int MSN_OFFSET = 1;
    /** Mask of the syndrome's type bits. */
    public static final int TYPE_MASK = 0x60;
    /** Mask of the syndrome's value bits. */
    public static final int VALUE_MASK = 0x1F;
    /** Credit count value meaning "no credit information" (IBTA 9.7.7.2.5). */
    public static final int INVALID_CREDIT_COUNT = 0x1F;

    /** Creates an unwrapped flyweight. */
    public AethFlyweight() {
    }

    @Override
    public AethFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the raw syndrome octet */
    public int syndrome() {
        return NetworkOrder.u8(buffer, offset + SYNDROME_OFFSET);
    }

    /**
     * @param syndrome the raw syndrome octet
     * @return this
     */
    public AethFlyweight syndrome(int syndrome) {
        NetworkOrder.putU8(buffer, offset + SYNDROME_OFFSET, syndrome);
        return this;
    }

    /** @return the syndrome's type */
    public AckType ackType() {
        return ackType(syndrome());
    }

    /** @return the syndrome's 5-bit value: credit count, RNR timer code or NAK code */
    public int syndromeValue() {
        return syndrome() & VALUE_MASK;
    }

    /** @return the NAK code, or {@code null} when this is not a NAK or the code is reserved */
    public NakCode nakCode() {
        return ackType() == AckType.NAK ? NakCode.of(syndromeValue()) : null;
    }

    /** @return the 24-bit message sequence number */
    public int msn() {
        return NetworkOrder.u24(buffer, offset + MSN_OFFSET);
    }

    /**
     * @param msn the message sequence number (low 24 bits)
     * @return this
     */
    public AethFlyweight msn(int msn) {
        NetworkOrder.putU24(buffer, offset + MSN_OFFSET, msn);
        return this;
    }

    /**
     * @param syndrome a syndrome octet
     * @return its type
     */
    public static AckType ackType(int syndrome) {
        return AckType.VALUES[(syndrome & TYPE_MASK) >>> 5];
    }

    /**
     * @param creditCount the credit count, 0-31 (31: invalid, no credits advertised)
     * @return the syndrome of an ACK
     */
    public static int ackSyndrome(int creditCount) {
        return (AckType.ACK.bits() << 5) | (creditCount & VALUE_MASK);
    }

    /**
     * @param timerCode the RNR NAK timer code, 0-31 (IBTA table 45)
     * @return the syndrome of an RNR NAK
     */
    public static int rnrNakSyndrome(int timerCode) {
        return (AckType.RNR_NAK.bits() << 5) | (timerCode & VALUE_MASK);
    }

    /**
     * @param code the NAK code
     * @return the syndrome of a NAK
     */
    public static int nakSyndrome(NakCode code) {
        return (AckType.NAK.bits() << 5) | code.code();
    }

    /** The two type bits of the AETH syndrome (IBTA table 42). */
    public enum AckType {
        /** {@code 00}: ACK; the value is the credit count. */
        ACK,
        /** {@code 01}: receiver not ready NAK; the value is the RNR timer code. */
        RNR_NAK,
        /** {@code 10}: reserved. */
        RESERVED,
        /** {@code 11}: NAK; the value is a {@link NakCode}. */
        NAK;

        private static final AckType[] VALUES = values();

        /** @return the two type bits */
        public int bits() {
            return ordinal();
        }
    }

    /** NAK codes of the AETH syndrome (IBTA table 43); codes 5-31 are reserved. */
    public enum NakCode {
        /** 0: PSN sequence error. */
        PSN_SEQUENCE_ERROR(0),
        /** 1: invalid request. */
        INVALID_REQUEST(1),
        /** 2: remote access error. */
        REMOTE_ACCESS_ERROR(2),
        /** 3: remote operational error. */
        REMOTE_OPERATIONAL_ERROR(3),
        /** 4: invalid RD request. */
        INVALID_RD_REQUEST(4);

        private static final NakCode[] VALUES = values();
        private final int code;

        NakCode(int code) {
            this.code = code;
        }

        /** @return the 5-bit code */
        public int code() {
            return code;
        }

        /**
         * @param code a 5-bit NAK code
         * @return its constant, or {@code null} when reserved
         */
        public static NakCode of(int code) {
            return code >= 0 && code < VALUES.length ? VALUES[code] : null;
        }
    }
}
