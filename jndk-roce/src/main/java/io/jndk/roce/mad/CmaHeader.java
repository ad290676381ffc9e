package io.jndk.roce.mad;

import io.jndk.roce.codec.HeaderFlyweight;
import io.jndk.roce.codec.NetworkOrder;
import java.nio.ByteBuffer;

/**
 * Flyweight over the 36-octet header Linux {@code rdma_cm} puts at the start of a REQ's private data for the IP
 * port spaces ({@code struct cma_hdr} of {@code drivers/infiniband/core/cma.c}; the private data format of IBTA
 * annex A11, RDMA IP CM Service). The consumer's own private data follows it, so an rdma_cm consumer has
 * 92 - 36 = 56 octets in a REQ.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |  CMA version  |IPVer  | Rsvd  |          Source Port          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              Source Address (128), offset 4                   |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            Destination Address (128), offset 20               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>CMA version is 0x00; IPVer is 4 or 6. An IPv4 address fills the last four octets of its 16-octet field and the
 * first twelve are zero (not the {@code ::ffff:} mapping the GIDs use): as rxe's REQs in the test captures show.
 * The port is the active side's source port; the destination port is in the service ID ({@link CmServiceId}).
 */
public final class CmaHeader extends HeaderFlyweight {

    /** Header length. */
    public static final int LENGTH = 36;
    /** The CMA version rdma_cm writes. */
    public static final int CMA_VERSION = 0x00;
    /** Offset of the CMA version. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the IP version octet. */
    public static final int IP_VERSION_OFFSET = 1;
    /** Offset of the source port. */
    public static final int PORT_OFFSET = 2;
    /** Offset of the source address. */
    public static final int SOURCE_OFFSET = 4;
    /** Offset of the destination address. */
    public static final int DESTINATION_OFFSET = 20;
    /** Length of an address field. */
    public static final int ADDRESS_LENGTH = 16;
    /** Offset within an address field of an IPv4 address. */
    public static final int IPV4_IN_FIELD = 12;

    /** Creates an unwrapped flyweight. */
    public CmaHeader() {
    }

    @Override
    public CmaHeader wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    /** @return the CMA version octet */
    public int cmaVersion() {
        return NetworkOrder.u8(buffer, offset + VERSION_OFFSET);
    }

    /**
     * @param version the CMA version octet
     * @return this
     */
    public CmaHeader cmaVersion(int version) {
        NetworkOrder.putU8(buffer, offset + VERSION_OFFSET, version);
        return this;
    }

    /** @return the IP version, 4 or 6 (upper half of octet 1) */
    public int ipVersion() {
        return NetworkOrder.bits(buffer, offset + IP_VERSION_OFFSET, 0xF0, 4);
    }

    /**
     * @param version the IP version, 4 or 6
     * @return this
     */
    public CmaHeader ipVersion(int version) {
        NetworkOrder.putBits(buffer, offset + IP_VERSION_OFFSET, 0xF0, 4, version);
        return this;
    }

    /** @return the reserved lower half of octet 1 */
    public int reserved() {
        return NetworkOrder.bits(buffer, offset + IP_VERSION_OFFSET, 0x0F, 0);
    }

    /** @return the source port */
    public int port() {
        return NetworkOrder.u16(buffer, offset + PORT_OFFSET);
    }

    /**
     * @param port the source port
     * @return this
     */
    public CmaHeader port(int port) {
        NetworkOrder.putU16(buffer, offset + PORT_OFFSET, port);
        return this;
    }

    /** @return the IPv4 source address (big-endian in an int) */
    public int sourceIpv4() {
        return NetworkOrder.i32(buffer, offset + SOURCE_OFFSET + IPV4_IN_FIELD);
    }

    /** @return the IPv4 destination address (big-endian in an int) */
    public int destinationIpv4() {
        return NetworkOrder.i32(buffer, offset + DESTINATION_OFFSET + IPV4_IN_FIELD);
    }

    /**
     * Writes an IPv4 header: version 0, IP version 4, the port, and both addresses in the last four octets of
     * otherwise zero fields.
     *
     * @param port the source port
     * @param source the IPv4 source address
     * @param destination the IPv4 destination address
     * @return this
     */
    public CmaHeader ipv4(int port, int source, int destination) {
        clear();
        cmaVersion(CMA_VERSION).ipVersion(4).port(port);
        NetworkOrder.putI32(buffer, offset + SOURCE_OFFSET + IPV4_IN_FIELD, source);
        NetworkOrder.putI32(buffer, offset + DESTINATION_OFFSET + IPV4_IN_FIELD, destination);
        return this;
    }

    /**
     * Writes an IPv6 header: version 0, IP version 6, the port and both 16-octet addresses.
     *
     * @param port the source port
     * @param source the 16-octet source address
     * @param destination the 16-octet destination address
     * @return this
     */
    public CmaHeader ipv6(int port, byte[] source, byte[] destination) {
        clear();
        cmaVersion(CMA_VERSION).ipVersion(6).port(port);
        NetworkOrder.copyIn(buffer, offset + SOURCE_OFFSET, source, 0, ADDRESS_LENGTH);
        NetworkOrder.copyIn(buffer, offset + DESTINATION_OFFSET, destination, 0, ADDRESS_LENGTH);
        return this;
    }

    /**
     * @param dst receives the 16-octet source address field
     * @param dstOffset where in {@code dst}
     */
    public void getSource(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, offset + SOURCE_OFFSET, dst, dstOffset, ADDRESS_LENGTH);
    }

    /**
     * @param dst receives the 16-octet destination address field
     * @param dstOffset where in {@code dst}
     */
    public void getDestination(byte[] dst, int dstOffset) {
        NetworkOrder.copyOut(buffer, offset + DESTINATION_OFFSET, dst, dstOffset, ADDRESS_LENGTH);
    }
}
