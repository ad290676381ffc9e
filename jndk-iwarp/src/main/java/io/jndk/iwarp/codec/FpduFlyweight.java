package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Flyweight over the MPA framing of one FPDU (RFC 5044 section 4): the length prefix, the pad and
 * the CRC trailer around a ULPDU (the DDP segment).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          ULPDU_Length         |                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *  ~          ULPDU = DDP header + payload (ULPDU_Length)          ~
 *  +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                               |    PAD (0..3 zero octets)     |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |      CRC-32C, least significant octet first (0 if CRC off)    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>{@code ULPDU_Length} is big-endian and counts the ULPDU only. The pad makes length field plus
 * ULPDU plus pad a multiple of four. The CRC covers the length field through the last pad octet and
 * is the only little-endian field of the protocol suite: CRC value {@code 0xE3069283} is sent as
 * {@code 83 92 06 e3}. No markers (siw does not support them).
 */
public final class FpduFlyweight {

    /** Offset of the 16-bit ULPDU_Length. */
    public static final int LENGTH_OFFSET = 0;
    /** Length of the ULPDU_Length field. */
    public static final int LENGTH_FIELD_LENGTH = 2;
    /** Offset of the ULPDU (the DDP header). */
    public static final int ULPDU_OFFSET = 2;
    /** Length of the CRC trailer. */
    public static final int CRC_LENGTH = 4;
    /** Largest ULPDU_Length the 16-bit field can express. */
    public static final int MAX_ULPDU_LENGTH = 0xFFFF;

    private ByteBuffer buffer;
    private int offset;

    /**
     * @param ulpduLength ULPDU_Length
     * @return number of pad octets, {@code (-(2 + ulpduLength)) & 3}
     */
    public static int padLength(int ulpduLength) {
        return (-(LENGTH_FIELD_LENGTH + ulpduLength)) & 3;
    }

    /**
     * @param ulpduLength ULPDU_Length
     * @return octets on the wire: length field + ULPDU + pad + CRC
     */
    public static int fpduLength(int ulpduLength) {
        return LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * @param ulpduLength ULPDU_Length
     * @return octets covered by the CRC: length field + ULPDU + pad
     */
    public static int crcCoverage(int ulpduLength) {
        return LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength);
    }

    /**
     * @param buffer the buffer
     * @param offset index of the first octet of ULPDU_Length
     * @return this
     */
    public FpduFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return index of the first octet of the FPDU */
    public int offset() {
        return offset;
    }

    /** @return ULPDU_Length */
    public int ulpduLength() {
        return NetworkOrder.u16(buffer, offset + LENGTH_OFFSET);
    }

    /**
     * @param length ULPDU_Length, 0..65535
     * @return this
     */
    public FpduFlyweight ulpduLength(int length) {
        NetworkOrder.putU16(buffer, offset + LENGTH_OFFSET, length);
        return this;
    }

    /** @return index of the first ULPDU octet (the DDP control octet) */
    public int ulpduIndex() {
        return offset + ULPDU_OFFSET;
    }

    /** @return index of the first pad octet */
    public int padIndex() {
        return offset + ULPDU_OFFSET + ulpduLength();
    }

    /** @return index of the first CRC octet */
    public int crcIndex() {
        return offset + crcCoverage(ulpduLength());
    }

    /** @return total FPDU length on the wire */
    public int frameLength() {
        return fpduLength(ulpduLength());
    }

    /** @return the CRC field as a CRC-32C value (read least significant octet first) */
    public int crcField() {
        return NetworkOrder.leI32(buffer, crcIndex());
    }

    /**
     * @param crcValue the CRC-32C value, written least significant octet first
     * @return this
     */
    public FpduFlyweight crcField(int crcValue) {
        NetworkOrder.putLeI32(buffer, crcIndex(), crcValue);
        return this;
    }

    /**
     * Computes the CRC-32C over length field, ULPDU and pad.
     *
     * @param crc a reusable checksum object (reset here)
     * @return the CRC-32C value
     */
    public int computeCrc(CRC32C crc) {
        crc.reset();
        Crc32c.update(crc, buffer, offset, crcCoverage(ulpduLength()));
        return (int) crc.getValue();
    }

    /**
     * Zeroes the pad and writes the trailer: the CRC-32C when {@code crcEnabled}, else four zeros.
     * ULPDU_Length and the ULPDU must already be in place.
     *
     * @param crcEnabled whether CRC was negotiated
     * @param crc a reusable checksum object
     * @return total FPDU length
     */
    public int seal(boolean crcEnabled, CRC32C crc) {
        pad(0);
        return writeTrailer(crcEnabled, crc);
    }

    /**
     * Writes the trailer over the octets as they are, pad included: the CRC-32C when
     * {@code crcEnabled}, else four zeros.
     *
     * @param crcEnabled whether CRC was negotiated
     * @param crc a reusable checksum object
     * @return total FPDU length
     */
    public int writeTrailer(boolean crcEnabled, CRC32C crc) {
        crcField(crcEnabled ? computeCrc(crc) : 0);
        return frameLength();
    }

    /**
     * @return the pad octets packed big-endian into the low {@code 8 * padLength} bits (0 when
     *     there is no pad); senders must send zeros, receivers ignore the value
     */
    public int pad() {
        int padIndex = padIndex();
        int value = 0;
        for (int i = 0, n = padLength(ulpduLength()); i < n; i++) {
            value = (value << 8) | (buffer.get(padIndex + i) & 0xFF);
        }
        return value;
    }

    /**
     * @param packed pad octets packed as {@link #pad()} returns them (0 for a compliant pad)
     * @return this
     */
    public FpduFlyweight pad(int packed) {
        int padIndex = padIndex();
        int n = padLength(ulpduLength());
        for (int i = 0; i < n; i++) {
            buffer.put(padIndex + i, (byte) (packed >>> (8 * (n - 1 - i))));
        }
        return this;
    }

    /**
     * @param crc a reusable checksum object
     * @return whether the trailer holds the CRC-32C of the frame
     */
    public boolean crcMatches(CRC32C crc) {
        return computeCrc(crc) == crcField();
    }
}
