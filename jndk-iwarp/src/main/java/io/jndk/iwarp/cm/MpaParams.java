package io.jndk.iwarp.cm;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;

/**
 * What one side brings to MPA connection setup.
 *
 * <p>{@code ird} is the number of inbound RDMA Reads this side can have outstanding, {@code ord} the
 * number it wants to issue (RFC 6581 section 9.1); both 0..{@value #MAX_READ_DEPTH}, the clamp siw
 * applies too. {@code privateData} is the ULP private data, at most {@value #MAX_PRIVATE_DATA}
 * octets so that PD_Length with the 4-octet IRD/ORD word never exceeds siw's 256. {@code crc} sets C
 * in this side's frame (CRC is on if either frame has C).
 *
 * <p>{@code peerToPeer} and {@code rtrTypes} matter to the initiator only: with peer-to-peer on, the
 * Request sets A and offers every RTR type in {@code rtrTypes} (the types this side can send); jndk
 * to jndk uses {@link RtrType#WRITE}. A responder follows the Request: it answers A with A and picks
 * one offered type, preferring the ones in its own {@code rtrTypes}.
 *
 * <p>{@code connectTimeout} bounds the TCP connect and {@code mpaTimeout} the wait for the MPA Reply
 * (siw waits 10 s). Instances are immutable; the array is copied in and out.
 *
 * @param ird inbound RDMA Read depth this side offers
 * @param ord outbound RDMA Read depth this side wants
 * @param privateData ULP private data, 0..252 octets
 * @param crc whether to ask for CRC
 * @param peerToPeer whether to ask for the peer-to-peer model (an RTR frame before any other FPDU)
 * @param rtrTypes RTR types offered (initiator) or preferred (responder); not empty when peer-to-peer
 * @param connectTimeout TCP connect timeout, positive
 * @param mpaTimeout wait for the MPA Reply, positive
 */
public record MpaParams(int ird, int ord, byte[] privateData, boolean crc, boolean peerToPeer,
                        Set<RtrType> rtrTypes, Duration connectTimeout, Duration mpaTimeout) {

    /** Largest IRD or ORD accepted and negotiated (siw's {@code SIW_MAX_IRD_QP}). */
    public static final int MAX_READ_DEPTH = 128;
    /** Largest ULP private data: siw's 256 minus the 4-octet IRD/ORD word. */
    public static final int MAX_PRIVATE_DATA = 252;
    /** Default TCP connect timeout. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default wait for the MPA Reply, as siw. */
    public static final Duration DEFAULT_MPA_TIMEOUT = Duration.ofSeconds(10);

    /** Validates and copies. */
    public MpaParams {
        checkDepth("ird", ird);
        checkDepth("ord", ord);
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data " + privateData.length + " > " + MAX_PRIVATE_DATA + " octets");
        }
        rtrTypes = rtrTypes == null || rtrTypes.isEmpty()
            ? Collections.unmodifiableSet(EnumSet.noneOf(RtrType.class))
            : Collections.unmodifiableSet(EnumSet.copyOf(rtrTypes));
        if (peerToPeer && rtrTypes.isEmpty()) {
            throw new IllegalArgumentException("peer-to-peer needs at least one RTR type");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(mpaTimeout, "mpaTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero() || mpaTimeout.isNegative() || mpaTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
    }

    private static void checkDepth(String name, int value) {
        if (value < 0 || value > MAX_READ_DEPTH) {
            throw new IllegalArgumentException(name + " " + value + " not in 0.." + MAX_READ_DEPTH);
        }
    }

    /**
     * jndk's usual parameters: no CRC, peer-to-peer with a Write RTR, default timeouts.
     *
     * @param ird inbound RDMA Read depth
     * @param ord outbound RDMA Read depth
     * @param privateData ULP private data (may be {@code null})
     * @return the parameters
     */
    public static MpaParams of(int ird, int ord, byte[] privateData) {
        return new MpaParams(ird, ord, privateData, false, true, EnumSet.of(RtrType.WRITE),
            DEFAULT_CONNECT_TIMEOUT, DEFAULT_MPA_TIMEOUT);
    }

    /** @return a copy of the ULP private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    int privateDataLength() {
        return privateData.length;
    }

    byte[] privateDataUnsafe() {
        return privateData;
    }

    /**
     * @param value C
     * @return a copy with C set as given
     */
    public MpaParams withCrc(boolean value) {
        return new MpaParams(ird, ord, privateData, value, peerToPeer, rtrTypes, connectTimeout, mpaTimeout);
    }

    /**
     * @param types RTR types to offer; empty for the client-server model (no RTR)
     * @return a copy with peer-to-peer on if {@code types} is not empty
     */
    public MpaParams withRtr(Set<RtrType> types) {
        boolean p2p = types != null && !types.isEmpty();
        return new MpaParams(ird, ord, privateData, crc, p2p, types, connectTimeout, mpaTimeout);
    }

    /**
     * @param data ULP private data (may be {@code null})
     * @return a copy with that private data
     */
    public MpaParams withPrivateData(byte[] data) {
        return new MpaParams(ird, ord, data, crc, peerToPeer, rtrTypes, connectTimeout, mpaTimeout);
    }

    /**
     * @param connect TCP connect timeout
     * @param mpa wait for the MPA Reply
     * @return a copy with these timeouts
     */
    public MpaParams withTimeouts(Duration connect, Duration mpa) {
        return new MpaParams(ird, ord, privateData, crc, peerToPeer, rtrTypes, connect, mpa);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaParams p && ird == p.ird && ord == p.ord && crc == p.crc && peerToPeer == p.peerToPeer
            && Arrays.equals(privateData, p.privateData) && rtrTypes.equals(p.rtrTypes)
            && connectTimeout.equals(p.connectTimeout) && mpaTimeout.equals(p.mpaTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ird, ord, Arrays.hashCode(privateData), crc, peerToPeer, rtrTypes, connectTimeout, mpaTimeout);
    }

    @Override
    public String toString() {
        return "MpaParams[ird=" + ird + ", ord=" + ord + ", privateData=" + HexFormat.of().formatHex(privateData)
            + ", crc=" + crc + ", peerToPeer=" + peerToPeer + ", rtrTypes=" + rtrTypes
            + ", connectTimeout=" + connectTimeout + ", mpaTimeout=" + mpaTimeout + "]";
    }
}
