package io.jndk.api;

/**
 * jndk extension, not part of NDKPI: what one side of a connection set up without the transport's connection
 * manager tells its peer out of band (ibverbs consumers such as perftest exchange exactly this over TCP before they
 * move their QPs to RTR and RTS). See {@link NdkConnector#reserveOutOfBand} and {@link NdkConnector#connectOutOfBand}.
 *
 * @param qpn the QP number the side's QP has on the wire (24 bits)
 * @param psn the PSN the side sends its first request with (24 bits); the peer expects it
 * @param gid the side's GID (16 octets; an IPv4 address as {@code ::ffff:a.b.c.d})
 * @param mtu the largest path MTU in octets the side offers (256 to 4096); a connection uses the smaller of the two
 */
public record NdkOutOfBandEndpoint(int qpn, int psn, byte[] gid, int mtu) {
    /** Checks the ranges; keeps its own copy of {@code gid}. */
    public NdkOutOfBandEndpoint {
        if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24-bit values: " + qpn + ", " + psn);
        }
        if (gid == null || gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 octets");
        }
        if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw new IllegalArgumentException("path MTU " + mtu + ": not 256, 512, 1024, 2048 or 4096");
        }
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }
}
