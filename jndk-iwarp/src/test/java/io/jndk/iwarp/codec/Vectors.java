package io.jndk.iwarp.codec;

import java.util.Arrays;

/** The byte-exact test vectors of IWARP.md section 10 (CRC on; {@link #crcOff} gives the CRC-off variant). */
final class Vectors {

    static final byte[] MPA_REQUEST_RPING = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
        0010  10 02 00 04 00 01 00 01
        """);
    static final byte[] MPA_REQUEST_CRC = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
        0010  50 02 00 04 00 01 00 01
        """);
    static final byte[] MPA_REPLY_CRC = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
        0010  50 02 00 04 00 01 00 01
        """);
    static final byte[] MPA_REQUEST_P2P = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
        0010  10 02 00 04 80 01 c0 01
        """);
    static final byte[] MPA_REPLY_P2P = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
        0010  10 02 00 04 80 01 80 01
        """);
    static final byte[] MPA_REJECT = Hex.bytes("""
        0000  4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
        0010  30 02 00 04 00 00 00 00
        """);

    static final byte[] TV1 = Hex.bytes("""
        0000  00 1b c1 40 00 12 34 00 00 00 7f 00 12 34 50 00
        0010  48 65 6c 6c 6f 2c 20 69 57 41 52 50 21 00 00 00
        0020  4d 31 11 b4
        """);
    static final byte[] TV2 = Hex.bytes("""
        0000  00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01
        0010  00 00 00 00 00 00 55 66 77 88 00 00 00 ab cd 00
        0020  00 00 00 40 32 55 d7 66
        """);
    static final byte[] TV3 = Hex.bytes("""
        0000  00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00
        0010  eb d3 4c 5f
        """);
    static final byte[] TV4 = Hex.bytes("""
        0000  00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
        0010  00 00 00 00 00 65 43 00 00 00 7f 00 aa bb 00 00
        0020  00 00 00 10 00 ab cd 00 00 00 55 66 77 88 00 00
        0030  d1 44 0d 4b
        """);
    static final byte[] TV5 = Hex.bytes("""
        0000  00 1e c1 42 00 65 43 00 00 00 7f 00 aa bb 00 00
        0010  72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43
        0020  d8 ee 0f a2
        """);
    static final byte[] TV6 = Hex.bytes("""
        0000  00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01
        0010  00 00 00 00 00 ff 00 00 51 89 6a 8c
        """);
    static final byte[] TV7 = Hex.bytes("""
        0000  00 17 41 44 00 12 34 00 00 00 00 00 00 00 00 02
        0010  00 00 00 00 62 79 65 21 00 00 00 00 78 16 40 ac
        """);
    static final byte[] TV8 = Hex.bytes("""
        0000  00 26 41 47 00 00 00 00 00 00 00 02 00 00 00 01
        0010  00 00 00 00 11 00 c0 00 00 0d c1 40 00 12 34 00
        0020  00 00 7f 00 12 34 50 00 07 b7 c7 d5
        """);
    static final byte[] TV9A = Hex.bytes("""
        0000  00 12 81 40 00 12 34 00 00 00 7f 00 12 34 50 00
        0010  41 42 43 44 33 3a 35 91
        """);
    static final byte[] TV9B = Hex.bytes("""
        0000  00 12 c1 40 00 12 34 00 00 00 7f 00 12 34 50 04
        0010  45 46 47 48 b5 ae 31 43
        """);

    /** RFC 5044 section 4.4 Figure 5: marker, then a Send of 24 zero octets, CRC over marker and FPDU. */
    static final byte[] RFC5044_FIGURE5 = Hex.bytes("""
        0000  00 00 00 00 00 2a 41 43 00 00 00 00 00 00 00 00
        0010  00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00
        0020  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        0030  52 23 99 83
        """);

    private Vectors() {
    }

    /** @return all worked FPDUs with their names */
    static Object[][] fpdus() {
        return new Object[][] {
            {"TV1", TV1}, {"TV2", TV2}, {"TV3", TV3}, {"TV4", TV4}, {"TV5", TV5},
            {"TV6", TV6}, {"TV7", TV7}, {"TV8", TV8}, {"TV9a", TV9A}, {"TV9b", TV9B},
        };
    }

    static byte[] crcOff(byte[] fpdu) {
        byte[] copy = Arrays.copyOf(fpdu, fpdu.length);
        Arrays.fill(copy, copy.length - 4, copy.length, (byte) 0);
        return copy;
    }
}
