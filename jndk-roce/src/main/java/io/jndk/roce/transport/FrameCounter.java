package io.jndk.roce.transport;

/**
 * The counters of a {@link FrameLink}, declared in one place: what arrived and was dropped (and why), what the ARP
 * resolver did, what could not leave. The ICRC counters of {@link RoceLink} ({@code icrcGood}, {@code icrcBad}) are
 * {@link #ICRC_GOOD} and {@link #ICRC_BAD}.
 */
public enum FrameCounter {
    /** RoCEv2 frames whose ICRC matched the received headers: returned by {@code receive}. */
    ICRC_GOOD("ICRC good"),
    /** RoCEv2 frames whose ICRC did not match: dropped. */
    ICRC_BAD("ICRC bad (dropped)"),
    /** RoCEv2 frames sent. */
    FRAMES_OUT("RoCEv2 frames sent"),
    /** ARP requests for this link's address, each answered. */
    ARP_REQUESTS_IN("ARP requests answered"),
    /** ARP replies received (whether or not they resolved a pending destination). */
    ARP_REPLIES_IN("ARP replies received"),
    /** ARP requests this link sent for destinations it did not know. */
    ARP_REQUESTS_OUT("ARP requests sent"),
    /** Other ARP frames: requests for other addresses, gratuitous ARP, unknown operations. */
    ARP_OTHER("ARP frames not for this link"),
    /** Peers' MAC addresses learnt or changed (from ARP or IP frames). */
    NEIGHBOURS_LEARNT("neighbours learnt"),
    /** Packets held while their destination's MAC was being resolved. */
    HELD("packets held for ARP"),
    /** Held packets sent once the ARP reply came. */
    HELD_SENT("held packets sent"),
    /** Packets dropped because their destination already held the most it may. */
    HELD_OVERFLOW("held packets dropped: too many for one destination"),
    /** Held packets dropped because no ARP reply came in time. */
    HELD_EXPIRED("held packets dropped: no ARP reply"),
    /** Frames with an ethertype other than ARP and IPv4 (IPv6 included: not supported yet). */
    OTHER_ETHERTYPE("frames of other ethertypes"),
    /** Frames to another unicast MAC, and IP packets to another address. */
    NOT_FOR_US("frames not for this link"),
    /** IPv4 packets of other protocols, and UDP datagrams to ports other than 4791. */
    NOT_ROCE("IP packets that are not RoCEv2"),
    /** Truncated or inconsistent frames: short headers, lengths past the frame, UDP payloads shorter than BTH+ICRC. */
    MALFORMED("malformed frames"),
    /** IPv4 headers with options (rxe sends none). */
    IP_OPTIONS("IPv4 packets with options"),
    /** IPv4 fragments (RoCEv2 is sent with DF and never fragmented). */
    FRAGMENTS("IPv4 fragments"),
    /** IPv4 headers whose checksum is wrong. */
    IP_CHECKSUM_BAD("IPv4 header checksum bad"),
    /** UDP datagrams with a non-zero checksum that is wrong (rxe sends 0: none). */
    UDP_CHECKSUM_BAD("UDP checksum bad"),
    /** RoCEv2 payloads longer than the receiver's buffer. */
    TOO_LONG("payloads longer than the receive buffer"),
    /** Packets larger than the link's IP MTU: not sent. */
    OVERSIZE("packets over the IP MTU (not sent)"),
    /** Packets to a destination that is not IPv4: not sent. */
    ADDRESS_FAMILY("packets to non-IPv4 destinations (not sent)"),
    /** Sends and receives that met an ICMP port unreachable: nobody at the peer port (the VM not started yet). */
    PEER_UNREACHABLE("peer port unreachable"),
    /** Frames the socket did not take (a full send buffer). */
    SOCKET_FULL("frames the socket did not take");

    private final String label;

    FrameCounter(String label) {
        this.label = label;
    }

    /** @return what the counter counts, for a tool to print */
    public String label() {
        return label;
    }
}
