package io.jndk.roce.codec;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA vol. 1 annex A17.4.2), computed the way Linux rxe computes it and checked
 * against every RoCEv2 packet of the rxe captures in the tests.
 *
 * <p>The ICRC is the IEEE 802.3 CRC-32 ({@link CRC32}: reflected polynomial {@code 0xEDB88320}, initial value and
 * final XOR all ones) over, in this order:
 * <ol>
 * <li>eight octets of {@code 0xFF}, standing for the masked Local Route Header of native InfiniBand;</li>
 * <li>the IP header with its variant fields replaced by ones: IPv4 Type of Service, Time to Live and Header
 * Checksum; IPv6 Traffic Class, Flow Label and Hop Limit. Everything else is covered, the IPv4 Identification,
 * flags and total length included;</li>
 * <li>the UDP header with its checksum replaced by {@code 0xFFFF};</li>
 * <li>the BTH with Resv8a (octet 4) replaced by {@code 0xFF};</li>
 * <li>the rest of the UDP payload up to, not including, the ICRC.</li>
 * </ol>
 * The 32-bit result is carried in the last four octets of the UDP payload least significant octet first, i.e.
 * little-endian, unlike every other field of the packet.
 *
 * <p>Two forms: from the IP and UDP headers as they stand in a frame ({@link #ipv4Frame}, {@link #ipv6Frame},
 * {@link #ipv4Headers}, {@link #ipv6Headers}), for a path that sees whole frames, and from the values of the
 * fields ({@link #ipv4}, {@link #ipv6}), for a path that builds the headers itself. Both leave the buffers'
 * positions and limits as they were. An instance holds a {@link CRC32} and small scratch arrays: one per thread,
 * no allocation per packet.
 */
public final class Icrc {

    /** Length of the ICRC trailer. */
    public static final int LENGTH = 4;
    /** The RoCEv2 UDP destination port (IANA). */
    public static final int ROCE_V2_PORT = 4791;
    /** Length of the masked LRH placeholder. */
    public static final int LRH_PLACEHOLDER_LENGTH = 8;
    /** IPv4 header length without options. */
    public static final int IPV4_HEADER_LENGTH = 20;
    /** IPv6 fixed header length. */
    public static final int IPV6_HEADER_LENGTH = 40;
    /** UDP header length. */
    public static final int UDP_HEADER_LENGTH = 8;
    /** IP protocol number of UDP. */
    public static final int PROTOCOL_UDP = 17;
    /** The IPv4 flags and fragment offset rxe sends: DF set. */
    public static final int IPV4_DONT_FRAGMENT = 0x4000;

    private static final int MAX_IPV4_HEADER = 60;
    private static final int MIN_PACKET = BthFlyweight.LENGTH + LENGTH;

    private final CRC32 crc = new CRC32();
    private final byte[] scratch = new byte[LRH_PLACEHOLDER_LENGTH + MAX_IPV4_HEADER + UDP_HEADER_LENGTH + BthFlyweight.LENGTH];
    private final ByteBuffer scratchBuffer = ByteBuffer.wrap(scratch);

    /** Creates an ICRC engine. */
    public Icrc() {
    }

    /**
     * @param packet the buffer holding a UDP payload
     * @param offset index of the payload's first octet (the BTH)
     * @param length the payload's length
     * @return the ICRC carried in its last four octets (little-endian)
     */
    public static int read(ByteBuffer packet, int offset, int length) {
        return NetworkOrder.leI32(packet, offset + length - LENGTH);
    }

    /**
     * @param packet the buffer holding a UDP payload
     * @param offset index of the payload's first octet (the BTH)
     * @param length the payload's length, ICRC included
     * @param icrc the ICRC to store in its last four octets (little-endian)
     */
    public static void write(ByteBuffer packet, int offset, int length, int icrc) {
        NetworkOrder.putLeI32(packet, offset + length - LENGTH, icrc);
    }

    /**
     * The ICRC of a frame's IPv4 packet: the IPv4 header at {@code ipOffset}, the UDP header after it, then the UDP
     * payload, whose length is taken from the UDP length field.
     *
     * @param frame the buffer
     * @param ipOffset index of the IPv4 header's first octet
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if the octets are not IPv4/UDP with a payload of at least a BTH and an ICRC
     *     within the buffer's limit
     */
    public int ipv4Frame(ByteBuffer frame, int ipOffset) {
        int ihl = ipv4HeaderLength(frame, ipOffset);
        int udp = ipOffset + ihl;
        return ipv4Headers(frame, ipOffset, frame, udp + UDP_HEADER_LENGTH, udpPayloadLength(frame, udp));
    }

    /**
     * The ICRC of a frame's IPv6 packet: the fixed IPv6 header at {@code ipOffset} with next header UDP (no
     * extension headers), the UDP header after it, then the UDP payload, whose length is taken from the UDP length
     * field.
     *
     * @param frame the buffer
     * @param ipOffset index of the IPv6 header's first octet
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if the octets are not IPv6/UDP with a payload of at least a BTH and an ICRC
     *     within the buffer's limit
     */
    public int ipv6Frame(ByteBuffer frame, int ipOffset) {
        checkIpv6(frame, ipOffset);
        int udp = ipOffset + IPV6_HEADER_LENGTH;
        return ipv6Headers(frame, ipOffset, frame, udp + UDP_HEADER_LENGTH, udpPayloadLength(frame, udp));
    }

    /**
     * The ICRC over IPv4 and UDP headers as captured (the UDP header right after the IPv4 header) and a UDP payload
     * held elsewhere.
     *
     * @param headers the buffer holding the IPv4 and UDP headers
     * @param ipOffset index of the IPv4 header's first octet
     * @param packet the buffer holding the UDP payload
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length, ICRC included
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if the header is not IPv4/UDP or the payload is shorter than a BTH and an ICRC
     */
    public int ipv4Headers(ByteBuffer headers, int ipOffset, ByteBuffer packet, int offset, int length) {
        return captured(headers, ipOffset, ipv4HeaderLength(headers, ipOffset), false, packet, offset, length);
    }

    /**
     * The ICRC over IPv6 and UDP headers as captured (the UDP header right after the fixed IPv6 header) and a UDP
     * payload held elsewhere.
     *
     * @param headers the buffer holding the IPv6 and UDP headers
     * @param ipOffset index of the IPv6 header's first octet
     * @param packet the buffer holding the UDP payload
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length, ICRC included
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if the header is not IPv6 with next header UDP or the payload is shorter
     *     than a BTH and an ICRC
     */
    public int ipv6Headers(ByteBuffer headers, int ipOffset, ByteBuffer packet, int offset, int length) {
        checkIpv6(headers, ipOffset);
        return captured(headers, ipOffset, IPV6_HEADER_LENGTH, true, packet, offset, length);
    }

    private int captured(ByteBuffer headers, int ipOffset, int ipLength, boolean ipv6, ByteBuffer packet, int offset, int length) {
        checkPacket(length);
        int ip = lrhPlaceholder();
        headers.get(ipOffset, scratch, ip, ipLength + UDP_HEADER_LENGTH);
        if (ipv6) {
            maskIpv6(ip);
        } else {
            maskIpv4(ip);
        }
        return finish(ip + ipLength, packet, offset, length);
    }

    /**
     * The ICRC of a packet whose IPv4 (no options) and UDP headers the caller builds from these values; the
     * masked fields (TOS, TTL, checksums) need none.
     *
     * @param source the IPv4 source address, big-endian in an int
     * @param destination the IPv4 destination address
     * @param identification the IPv4 Identification (low 16 bits)
     * @param flagsAndFragment the IPv4 flags and fragment offset (16 bits; rxe: {@link #IPV4_DONT_FRAGMENT})
     * @param sourcePort the UDP source port
     * @param destinationPort the UDP destination port ({@link #ROCE_V2_PORT})
     * @param packet the buffer holding the UDP payload
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length, ICRC included
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if the payload is shorter than a BTH and an ICRC
     */
    public int ipv4(int source, int destination, int identification, int flagsAndFragment, int sourcePort,
        int destinationPort, ByteBuffer packet, int offset, int length) {
        checkPacket(length);
        int at = lrhPlaceholder();
        ByteBuffer s = scratchBuffer;
        int ip = at;
        NetworkOrder.putU8(s, ip, 0x45);
        NetworkOrder.putU16(s, ip + 2, IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH + length);
        NetworkOrder.putU16(s, ip + 4, identification);
        NetworkOrder.putU16(s, ip + 6, flagsAndFragment);
        NetworkOrder.putU8(s, ip + 9, PROTOCOL_UDP);
        NetworkOrder.putI32(s, ip + 12, source);
        NetworkOrder.putI32(s, ip + 16, destination);
        maskIpv4(ip);
        at += IPV4_HEADER_LENGTH;
        udpHeader(s, at, sourcePort, destinationPort, length);
        return finish(at, packet, offset, length);
    }

    /**
     * The ICRC of a packet whose IPv6 and UDP headers the caller builds from these values; the masked fields
     * (traffic class, flow label, hop limit, UDP checksum) need none.
     *
     * @param source the 16-octet IPv6 source address
     * @param destination the 16-octet IPv6 destination address
     * @param sourcePort the UDP source port
     * @param destinationPort the UDP destination port ({@link #ROCE_V2_PORT})
     * @param packet the buffer holding the UDP payload
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length, ICRC included
     * @return the ICRC the packet should carry
     * @throws IllegalArgumentException if an address is not 16 octets or the payload is shorter than a BTH and an
     *     ICRC
     */
    public int ipv6(byte[] source, byte[] destination, int sourcePort, int destinationPort, ByteBuffer packet,
        int offset, int length) {
        if (source.length != 16 || destination.length != 16) {
            throw new IllegalArgumentException("IPv6 addresses are 16 octets, not " + source.length + " and " + destination.length);
        }
        checkPacket(length);
        int at = lrhPlaceholder();
        ByteBuffer s = scratchBuffer;
        int ip = at;
        NetworkOrder.putU8(s, ip, 0x60);
        NetworkOrder.putU16(s, ip + 4, UDP_HEADER_LENGTH + length);
        NetworkOrder.putU8(s, ip + 6, PROTOCOL_UDP);
        System.arraycopy(source, 0, scratch, ip + 8, 16);
        System.arraycopy(destination, 0, scratch, ip + 24, 16);
        maskIpv6(ip);
        at += IPV6_HEADER_LENGTH;
        udpHeader(s, at, sourcePort, destinationPort, length);
        return finish(at, packet, offset, length);
    }

    private int lrhPlaceholder() {
        for (int i = 0; i < LRH_PLACEHOLDER_LENGTH; i++) {
            scratch[i] = (byte) 0xFF;
        }
        return LRH_PLACEHOLDER_LENGTH;
    }

    private void maskIpv4(int ip) {
        scratch[ip + 1] = (byte) 0xFF; // type of service
        scratch[ip + 8] = (byte) 0xFF; // time to live
        scratch[ip + 10] = (byte) 0xFF; // header checksum
        scratch[ip + 11] = (byte) 0xFF;
    }

    private void maskIpv6(int ip) {
        scratch[ip] |= 0x0F; // traffic class (upper half)
        scratch[ip + 1] = (byte) 0xFF; // traffic class (lower half) and flow label
        scratch[ip + 2] = (byte) 0xFF;
        scratch[ip + 3] = (byte) 0xFF;
        scratch[ip + 7] = (byte) 0xFF; // hop limit
    }

    private void udpHeader(ByteBuffer s, int udp, int sourcePort, int destinationPort, int length) {
        NetworkOrder.putU16(s, udp, sourcePort);
        NetworkOrder.putU16(s, udp + 2, destinationPort);
        NetworkOrder.putU16(s, udp + 4, UDP_HEADER_LENGTH + length);
    }

    /** Masks the UDP checksum at {@code udp}, appends the masked BTH, and runs the CRC over all. */
    private int finish(int udp, ByteBuffer packet, int offset, int length) {
        scratch[udp + 6] = (byte) 0xFF;
        scratch[udp + 7] = (byte) 0xFF;
        int bth = udp + UDP_HEADER_LENGTH;
        packet.get(offset, scratch, bth, BthFlyweight.LENGTH);
        scratch[bth + BthFlyweight.RESV8A_OFFSET] = (byte) 0xFF;
        crc.reset();
        crc.update(scratch, 0, bth + BthFlyweight.LENGTH);
        update(packet, offset + BthFlyweight.LENGTH, length - BthFlyweight.LENGTH - LENGTH);
        return (int) crc.getValue();
    }

    /**
     * Runs the CRC over a buffer range; the buffer's position and limit are as they were afterwards. A direct buffer
     * goes to the CRC as it is, in place (the range is selected by setting its position and limit for the call): the
     * packet buffers of a link belong to the thread that sends or receives, and copying each packet's payload out
     * through a small array first cost a copy of every octet on both sides.
     */
    private void update(ByteBuffer buffer, int index, int length) {
        if (buffer.hasArray()) {
            crc.update(buffer.array(), buffer.arrayOffset() + index, length);
            return;
        }
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(index + length).position(index);
        try {
            crc.update(buffer);
        } finally {
            buffer.limit(limit).position(position);
        }
    }

    private static int ipv4HeaderLength(ByteBuffer b, int ipOffset) {
        if (ipOffset < 0 || ipOffset + IPV4_HEADER_LENGTH > b.limit()) {
            throw new IllegalArgumentException("no IPv4 header at " + ipOffset + " (limit " + b.limit() + ")");
        }
        int first = NetworkOrder.u8(b, ipOffset);
        int ihl = (first & 0x0F) * 4;
        if ((first >>> 4) != 4 || ihl < IPV4_HEADER_LENGTH || NetworkOrder.u8(b, ipOffset + 9) != PROTOCOL_UDP
            || ipOffset + ihl + UDP_HEADER_LENGTH > b.limit()) {
            throw new IllegalArgumentException(String.format("not IPv4/UDP at %d: version/IHL 0x%02x, protocol %d", ipOffset,
                first, NetworkOrder.u8(b, ipOffset + 9)));
        }
        return ihl;
    }

    private static void checkIpv6(ByteBuffer b, int ipOffset) {
        if (ipOffset < 0 || ipOffset + IPV6_HEADER_LENGTH + UDP_HEADER_LENGTH > b.limit()
            || (NetworkOrder.u8(b, ipOffset) >>> 4) != 6 || NetworkOrder.u8(b, ipOffset + 6) != PROTOCOL_UDP) {
            throw new IllegalArgumentException("not IPv6/UDP (without extension headers) at " + ipOffset);
        }
    }

    private static int udpPayloadLength(ByteBuffer b, int udp) {
        int length = NetworkOrder.u16(b, udp + 4) - UDP_HEADER_LENGTH;
        if (udp + UDP_HEADER_LENGTH + length > b.limit()) {
            throw new IllegalArgumentException("UDP length " + (length + UDP_HEADER_LENGTH) + " runs past the buffer's limit");
        }
        return length;
    }

    private static void checkPacket(int length) {
        if (length < MIN_PACKET) {
            throw new IllegalArgumentException("a RoCEv2 UDP payload has at least " + MIN_PACKET + " octets, not " + length);
        }
    }
}
