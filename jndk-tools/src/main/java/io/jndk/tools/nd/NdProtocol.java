package io.jndk.tools.nd;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The ND tools' parameter agreement, carried as connection private data (version 1, big-endian).
 *
 * <pre>
 * Hello, the client's Connect private data (32 octets):
 *   0  "JNDT"        4  version (1)     5  test id (NdTest)   6  SGEs per transfer (u16)
 *   8  depth (u16)  10  reserved (0)   12  largest size (u32)
 *  16  the client's buffer address (u64)                      24  its remote token (u32)   28 reserved (0)
 * Offer, the server's Accept private data (24 octets):
 *   0  "JNDT"        4  version (1)     5  reserved (0, 3 octets)
 *   8  the server's buffer address (u64)                      16  its remote token (u32)   20 its size (u32)
 * </pre>
 *
 * A server that will not serve a Hello rejects the connection with a one-line ASCII reason as private data, which the
 * client prints.
 */
final class NdProtocol {
    private NdProtocol() {}

    static final int MAGIC = 0x4A4E4454; // "JNDT"
    static final int VERSION = 1;
    static final int HELLO_LENGTH = 32;
    static final int OFFER_LENGTH = 24;

    /** What the client asks for. */
    record Hello(NdTest test, int nSge, int depth, int maxSize, long address, int token) {
        byte[] encode() {
            return ByteBuffer.allocate(HELLO_LENGTH).putInt(MAGIC).put((byte) VERSION).put((byte) test.id).putShort((short) nSge)
                    .putShort((short) depth).putShort((short) 0).putInt(maxSize).putLong(address).putInt(token).putInt(0).array();
        }

        /** Decodes a Hello; throws {@link IllegalArgumentException} with the reason to reject it with. */
        static Hello decode(byte[] data, int length) {
            ByteBuffer b = header(data, length, HELLO_LENGTH, "request");
            NdTest t = NdTest.byId(b.get(5) & 0xFF);
            if (t == null) {
                throw new IllegalArgumentException("unknown test id " + (b.get(5) & 0xFF));
            }
            return new Hello(t, b.getShort(6) & 0xFFFF, b.getShort(8) & 0xFFFF, b.getInt(12), b.getLong(16), b.getInt(24));
        }
    }

    /** What the server grants: its buffer. */
    record Offer(long address, int token, int size) {
        byte[] encode() {
            return ByteBuffer.allocate(OFFER_LENGTH).putInt(MAGIC).put((byte) VERSION).put(new byte[3]).putLong(address).putInt(token)
                    .putInt(size).array();
        }

        static Offer decode(byte[] data, int length) {
            ByteBuffer b = header(data, length, OFFER_LENGTH, "answer");
            return new Offer(b.getLong(8), b.getInt(16), b.getInt(20));
        }
    }

    private static ByteBuffer header(byte[] data, int length, int want, String what) {
        if (length < want) {
            throw new IllegalArgumentException("the " + what + " is " + length + " octets, not a jndk ND tools " + what + " ("
                    + want + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length);
        if (b.getInt(0) != MAGIC) {
            throw new IllegalArgumentException("the " + what + " is not a jndk ND tools " + what);
        }
        if ((b.get(4) & 0xFF) != VERSION) {
            throw new IllegalArgumentException("the " + what + " has protocol version " + (b.get(4) & 0xFF) + "; this side speaks "
                    + VERSION);
        }
        return b;
    }

    /** A reject reason as private data. */
    static byte[] reason(String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        return b.length <= 196 ? b : java.util.Arrays.copyOf(b, 196);
    }
}
