package io.jndk.roce.cm;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit RoCEv2 GID: the IPv6 address, or IPv4-mapped address {@code ::ffff:a.b.c.d}, of a port. rxe's RoCEv2
 * GIDs have these two forms (GID index 1 of the test guests is {@code ::ffff:192.0.2.x}); the GID is also where a
 * CM datagram comes from and where its answer goes.
 *
 * @param octets the 16 octets, network order (copied in and out)
 */
public record Gid(byte[] octets) {

    /** Length of a GID. */
    public static final int LENGTH = 16;

    /**
     * @param octets the 16 octets
     * @throws IllegalArgumentException if there are not 16
     */
    public Gid {
        if (octets == null || octets.length != LENGTH) {
            throw new IllegalArgumentException("a GID has 16 octets");
        }
        octets = octets.clone();
    }

    /**
     * @param ipv4 an IPv4 address, big-endian in an int
     * @return the GID {@code ::ffff:a.b.c.d}
     */
    public static Gid ipv4Mapped(int ipv4) {
        byte[] g = new byte[LENGTH];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        g[12] = (byte) (ipv4 >>> 24);
        g[13] = (byte) (ipv4 >>> 16);
        g[14] = (byte) (ipv4 >>> 8);
        g[15] = (byte) ipv4;
        return new Gid(g);
    }

    /** @return a copy of the 16 octets */
    @Override
    public byte[] octets() {
        return octets.clone();
    }

    /** @return true for {@code ::ffff:a.b.c.d} */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (octets[i] != 0) {
                return false;
            }
        }
        return octets[10] == (byte) 0xFF && octets[11] == (byte) 0xFF;
    }

    /** @return the IPv4 address of an IPv4-mapped GID, big-endian in an int */
    public int ipv4() {
        return ((octets[12] & 0xFF) << 24) | ((octets[13] & 0xFF) << 16) | ((octets[14] & 0xFF) << 8) | (octets[15] & 0xFF);
    }

    /**
     * @param dst receives the 16 octets
     * @param offset where in {@code dst}
     */
    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(octets, 0, dst, offset, LENGTH);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(octets, g.octets);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(octets);
    }

    @Override
    public String toString() {
        return isIpv4Mapped() ? "::ffff:" + (octets[12] & 0xFF) + "." + (octets[13] & 0xFF) + "." + (octets[14] & 0xFF) + "."
            + (octets[15] & 0xFF) : HexFormat.of().formatHex(octets);
    }
}
