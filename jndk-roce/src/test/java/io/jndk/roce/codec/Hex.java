package io.jndk.roce.codec;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Hex strings of buffer ranges, for readable assertion failures. */
public final class Hex {

    private Hex() {
    }

    /**
     * @param b a buffer
     * @param offset first index
     * @param length octets
     * @return the octets as lower-case hex
     */
    public static String of(ByteBuffer b, int offset, int length) {
        byte[] a = new byte[length];
        b.get(offset, a);
        return HexFormat.of().formatHex(a);
    }

    /**
     * @param hex hex digits, white space ignored
     * @return the octets
     */
    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s", ""));
    }
}
