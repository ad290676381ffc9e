package io.jndk.iwarp.codec;

import java.util.HexFormat;

/** Hex helpers for test vectors written as in IWARP.md (octets separated by blanks, optional offsets). */
final class Hex {

    private Hex() {
    }

    /**
     * Parses lines like {@code "0000  00 1b c1 40"}: a leading 4-digit offset column is dropped when
     * followed by two blanks, everything after three blanks on a line (ASCII column) is ignored.
     */
    static byte[] bytes(String text) {
        StringBuilder sb = new StringBuilder();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.matches("^[0-9a-fA-F]{4}  .*")) {
                l = l.substring(6);
            }
            int ascii = l.indexOf("   ");
            if (ascii >= 0) {
                l = l.substring(0, ascii);
            }
            sb.append(l.replace(" ", ""));
        }
        return HexFormat.of().parseHex(sb.toString());
    }

    static String of(byte[] bytes) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }

    static String of(byte[] bytes, int from, int to) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes, from, to);
    }
}
