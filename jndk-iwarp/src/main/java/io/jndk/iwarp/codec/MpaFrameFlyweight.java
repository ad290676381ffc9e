package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over an MPA Request or Reply frame (RFC 5044 section 7.1, RFC 6581 section 6).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                                                               |
 *  +         Key (16 octets): "MPA ID Req Frame" (Request)         +
 *  |                       or "MPA ID Rep Frame" (Reply)           |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |M|C|R|S|  Res  |      Rev      |           PD_Length           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  ~ Private data (PD_Length octets; starts with the IRD/ORD word  ~
 *  ~ of {@link MpaIrdOrdFlyweight} when S = 1)                      ~
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>M = markers ({@code 0x80}), C = CRC ({@code 0x40}), R = reject, Reply only ({@code 0x20}),
 * S = enhanced connection establishment data present ({@code 0x10}). MPA frames carry no length
 * prefix, no padding and no CRC. All fields are big-endian. The flyweight allocates nothing and
 * never changes the position or limit of the wrapped buffer.
 */
public final class MpaFrameFlyweight {

    /** Offset of the 16-octet key. */
    public static final int KEY_OFFSET = 0;
    /** Length of the key. */
    public static final int KEY_LENGTH = 16;
    /** Offset of the flags octet (M, C, R, S, Res). */
    public static final int FLAGS_OFFSET = 16;
    /** Offset of the revision octet. */
    public static final int REVISION_OFFSET = 17;
    /** Offset of the 16-bit PD_Length. */
    public static final int PD_LENGTH_OFFSET = 18;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 20;
    /** Length of the fixed part of the frame. */
    public static final int HEADER_LENGTH = 20;

    /** Flag M: markers required. */
    public static final int FLAG_MARKERS = 0x80;
    /** Flag C: CRC wanted. */
    public static final int FLAG_CRC = 0x40;
    /** Flag R: connection rejected (Reply only). */
    public static final int FLAG_REJECT = 0x20;
    /** Flag S: enhanced (RFC 6581) IRD/ORD word present. */
    public static final int FLAG_ENHANCED = 0x10;
    /** Reserved flag bits; send 0, ignore on receive (siw uses 0x08 privately for GSO). */
    public static final int FLAG_RESERVED_MASK = 0x0F;

    /** RFC 5044 revision. */
    public static final int REVISION_1 = 1;
    /** RFC 6581 revision (enhanced connection setup). */
    public static final int REVISION_2 = 2;

    /** RFC 5044 private data limit (includes the IRD/ORD word). */
    public static final int MAX_PRIVATE_DATA_RFC = 512;
    /** siw's private data limit ({@code RDMA_MAX_PRIVATE_DATA}); never send more. */
    public static final int MAX_PRIVATE_DATA_SIW = 256;

    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at a frame.
     *
     * @param buffer the buffer holding the frame
     * @param offset index of the first key octet
     * @return this
     */
    public MpaFrameFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the first octet of the frame */
    public int offset() {
        return offset;
    }

    /**
     * @param kind the frame kind
     * @return whether the 16 key octets equal the key of {@code kind}
     */
    public boolean hasKey(MpaFrameKind kind) {
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (buffer.get(offset + KEY_OFFSET + i) != kind.keyByte(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param kind the frame kind whose key is written
     * @return this
     */
    public MpaFrameFlyweight key(MpaFrameKind kind) {
        for (int i = 0; i < KEY_LENGTH; i++) {
            buffer.put(offset + KEY_OFFSET + i, kind.keyByte(i));
        }
        return this;
    }

    /** @return the whole flags octet */
    public int flags() {
        return NetworkOrder.u8(buffer, offset + FLAGS_OFFSET);
    }

    /**
     * @param flags the whole flags octet
     * @return this
     */
    public MpaFrameFlyweight flags(int flags) {
        NetworkOrder.putU8(buffer, offset + FLAGS_OFFSET, flags);
        return this;
    }

    /** @return the M flag */
    public boolean markers() {
        return (flags() & FLAG_MARKERS) != 0;
    }

    /** @return the C flag */
    public boolean crc() {
        return (flags() & FLAG_CRC) != 0;
    }

    /** @return the R flag */
    public boolean reject() {
        return (flags() & FLAG_REJECT) != 0;
    }

    /** @return the S flag */
    public boolean enhanced() {
        return (flags() & FLAG_ENHANCED) != 0;
    }

    /**
     * @param value the M flag
     * @return this
     */
    public MpaFrameFlyweight markers(boolean value) {
        return flag(FLAG_MARKERS, value);
    }

    /**
     * @param value the C flag
     * @return this
     */
    public MpaFrameFlyweight crc(boolean value) {
        return flag(FLAG_CRC, value);
    }

    /**
     * @param value the R flag
     * @return this
     */
    public MpaFrameFlyweight reject(boolean value) {
        return flag(FLAG_REJECT, value);
    }

    /**
     * @param value the S flag
     * @return this
     */
    public MpaFrameFlyweight enhanced(boolean value) {
        return flag(FLAG_ENHANCED, value);
    }

    private MpaFrameFlyweight flag(int mask, boolean value) {
        return flags(value ? flags() | mask : flags() & ~mask);
    }

    /** @return the revision octet */
    public int revision() {
        return NetworkOrder.u8(buffer, offset + REVISION_OFFSET);
    }

    /**
     * @param revision the revision octet
     * @return this
     */
    public MpaFrameFlyweight revision(int revision) {
        NetworkOrder.putU8(buffer, offset + REVISION_OFFSET, revision);
        return this;
    }

    /** @return PD_Length, 0..65535 */
    public int privateDataLength() {
        return NetworkOrder.u16(buffer, offset + PD_LENGTH_OFFSET);
    }

    /**
     * @param length PD_Length (includes the IRD/ORD word when S = 1)
     * @return this
     */
    public MpaFrameFlyweight privateDataLength(int length) {
        NetworkOrder.putU16(buffer, offset + PD_LENGTH_OFFSET, length);
        return this;
    }

    /** @return index of the first private data octet in the buffer */
    public int privateDataIndex() {
        return offset + PRIVATE_DATA_OFFSET;
    }

    /** @return total frame length, {@code 20 + PD_Length} */
    public int frameLength() {
        return HEADER_LENGTH + privateDataLength();
    }

    /** @return index of the first ULP private data octet (after the IRD/ORD word when S = 1) */
    public int ulpPrivateDataIndex() {
        return privateDataIndex() + (enhanced() ? MpaIrdOrdFlyweight.LENGTH : 0);
    }

    /** @return length of the ULP private data, never negative */
    public int ulpPrivateDataLength() {
        return Math.max(0, privateDataLength() - (enhanced() ? MpaIrdOrdFlyweight.LENGTH : 0));
    }

    /**
     * Checks a frame whose first {@link #HEADER_LENGTH} octets are present (the private data need not be).
     *
     * @param expected the kind the receiver expects
     * @return the verdict; never {@code null}, never throws
     */
    public MpaFrameCheck validate(MpaFrameKind expected) {
        if (!hasKey(expected)) {
            return MpaFrameCheck.BAD_KEY;
        }
        int revision = revision();
        if (revision < REVISION_1 || revision > REVISION_2) {
            return MpaFrameCheck.BAD_REVISION;
        }
        int pdLength = privateDataLength();
        if (pdLength > MAX_PRIVATE_DATA_RFC) {
            return MpaFrameCheck.PRIVATE_DATA_TOO_LONG;
        }
        if (markers()) {
            return MpaFrameCheck.MARKERS_NOT_SUPPORTED;
        }
        if (enhanced()) {
            if (revision < REVISION_2) {
                return MpaFrameCheck.ENHANCED_NEEDS_REVISION_2;
            }
            if (pdLength < MpaIrdOrdFlyweight.LENGTH) {
                return MpaFrameCheck.ENHANCED_PRIVATE_DATA_TOO_SHORT;
            }
        }
        if (pdLength > MAX_PRIVATE_DATA_SIW) {
            return MpaFrameCheck.PRIVATE_DATA_OVER_SIW_LIMIT;
        }
        return MpaFrameCheck.VALID;
    }
}
