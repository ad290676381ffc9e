package io.jndk.roce.transport;

import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.NetworkOrder;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectableChannel;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The frame-level link: raw Ethernet II frames, one per UDP datagram, exchanged over loopback with QEMU's
 * {@code -netdev dgram} (or anything that speaks the same way). jndk is then a station of its own on the guest's
 * Ethernet segment, with a MAC and an IPv4 address that no kernel owns (a documentation address such as
 * 192.0.2.1): it answers ARP for that address, resolves its peers' MACs, and builds every IPv4 and UDP header
 * itself, so it knows each octet the ICRC covers and computes and checks every ICRC exactly ({@link #icrcExact()}
 * is true), towards rxe too, which drops a packet with a wrong ICRC without a trace.
 *
 * <p>The socket: one non-blocking {@link DatagramChannel} bound to {@code 127.0.0.1:localPort} and connected to
 * {@code 127.0.0.1:remotePort}, where QEMU's netdev listens. With
 * {@code -netdev dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=G,remote.type=inet,remote.host=127.0.0.1,remote.port=H}
 * the link is {@code dgram:H:G}: it binds H (QEMU's remote port) and sends to G (QEMU's local port). Only loopback
 * sockets are opened. A datagram from anywhere else never reaches the link (the socket is connected).
 *
 * <p>Sending ({@link #send}): Ethernet (the destination's MAC, this link's, type 0x0800), IPv4 as rxe builds it
 * (version 4, IHL 5, TOS 0, total length, an identification that increments per packet, DF set, TTL 64, protocol
 * 17, header checksum, the addresses), UDP (source port the caller's, destination 4791, length, checksum 0), then
 * the payload, whose ICRC the link computes over exactly these headers and writes both into the frame and into the
 * caller's buffer (little-endian, as {@link Icrc#write}). Every destination is taken to be on the segment (no
 * routing). A destination whose MAC is not known yet gets an ARP request (resent every {@value #ARP_RETRY_MILLIS}
 * ms) and its packets are held, at most {@code holdPerDestination} of them (more are dropped and counted: the RC
 * layer retransmits), until the reply sends them, or for at most {@value #HOLD_MILLIS} ms, after which they are
 * dropped and counted. Nothing waits: the timers run from {@link #send} and {@link #receive}, which the engine calls
 * at least on every retransmission.
 *
 * <p>Receiving ({@link #receive}): ARP requests for this link's address are answered, and ARP frames and IPv4
 * packets teach the senders' MACs. IPv4/UDP to this address and port 4791 is checked (IHL 5, no fragment, header
 * checksum, lengths, the UDP checksum when not 0, a payload of at least BTH and ICRC) and its ICRC recomputed over
 * the received IPv4 and UDP headers; a good packet's UDP payload (BTH..ICRC) goes to the caller's buffer from index
 * 0 and its IP source is kept for {@link #source()}. Everything else (other ethertypes, IPv6 for now, other MACs,
 * addresses, protocols or ports, truncated, malformed or optioned headers, fragments, bad checksums, bad ICRCs) is
 * dropped and counted ({@link FrameCounter}), never thrown. At most {@value #FRAMES_PER_RECEIVE} frames are read per
 * call.
 *
 * <p>No allocation per packet once running: the frame buffers are the link's; the neighbour table is a fixed array
 * of {@value #NEIGHBOURS} entries whose address objects and hold buffers are made when an address is first seen.
 * One thread (the device's engine) uses a link; it is not thread-safe.
 *
 * <p>Option syntax ({@link #open}): {@code dgram:LOCALPORT:REMOTEPORT[:MAC]}, for instance
 * {@code link=dgram:24793:24792} or {@code link=dgram:24793:24792:02:00:00:00:02:01}; MAC in hexadecimal octets
 * separated by {@code :} or {@code -}, unicast; by default {@code 02:00:} followed by the four octets of the IPv4
 * address (locally administered, so 192.0.2.1 is {@code 02:00:c0:00:02:01}).
 */
public final class FrameLink implements RoceLink {
    /** The option prefix of a dgram link. */
    public static final String DGRAM = "dgram";
    /** The IP MTU a link takes by default (Ethernet's): packets over it are not sent. */
    public static final int DEFAULT_IP_MTU = 1500;
    /** Packets held per unresolved destination by default. */
    public static final int DEFAULT_HOLD = 8;
    /** Interval between ARP requests for one unresolved destination. */
    public static final int ARP_RETRY_MILLIS = 1000;
    /** How long packets are held for an unresolved destination at most. */
    public static final int HOLD_MILLIS = 3000;
    /** Size of the neighbour table. */
    public static final int NEIGHBOURS = 32;
    /** Frames read per {@link #receive} call at most. */
    public static final int FRAMES_PER_RECEIVE = 64;

    static final int ETH_HEADER = 14;
    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_ARP = 0x0806;
    static final int ARP_LENGTH = 28;
    static final int MIN_FRAME = 60;
    static final long BROADCAST = 0xFFFF_FFFF_FFFFL;
    static final int IP = ETH_HEADER;
    static final int UDP = IP + Icrc.IPV4_HEADER_LENGTH;
    static final int PAYLOAD = UDP + Icrc.UDP_HEADER_LENGTH;
    private static final int MIN_PAYLOAD = 12 + Icrc.LENGTH;
    private static final int MAX_FRAME = 65536 + PAYLOAD;
    private static final int TTL = 64;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final DatagramChannel channel;
    private final long mac;
    private final Inet4Address local;
    private final int local4;
    private final int ipMtu;
    private final LongSupplier clock;
    private final String description;
    private final Icrc icrc = new Icrc();
    private final ByteBuffer in = ByteBuffer.allocate(MAX_FRAME);
    private final ByteBuffer out = ByteBuffer.allocate(MAX_FRAME);
    private final ByteBuffer control = ByteBuffer.allocate(MIN_FRAME);
    private final FrameNeighbour[] neighbours = new FrameNeighbour[NEIGHBOURS];
    private final long[] counters = new long[FrameCounter.values().length];
    private int neighbourCount;
    private int pending;
    private int identification;
    private int receivedIdentification;
    private InetAddress source;
    private int sourcePort = ROCE_PORT;
    private long sendDrops;

    /**
     * Opens a link from an adapter option value.
     *
     * @param spec {@code dgram:LOCALPORT:REMOTEPORT[:MAC]} (see the class description)
     * @param address the device's IPv4 address (no kernel's: a documentation address such as 192.0.2.1)
     * @return the open link
     * @throws IllegalArgumentException when the specification or the address is not usable
     * @throws IOException when the local port cannot be bound
     */
    public static FrameLink open(String spec, InetAddress address) throws IOException {
        String[] parts = spec.split(":", 4);
        if (parts.length < 3 || !parts[0].equals(DGRAM)) {
            throw new IllegalArgumentException("link=" + spec + ": expected dgram:LOCALPORT:REMOTEPORT[:MAC]");
        }
        int localPort = port(spec, parts[1]);
        int remotePort = port(spec, parts[2]);
        long mac = parts.length == 4 ? mac(spec, parts[3]) : defaultMac(address);
        return new FrameLink(localPort, remotePort, mac, address, DEFAULT_IP_MTU, DEFAULT_HOLD, System::nanoTime);
    }

    /**
     * Opens a link.
     *
     * @param localPort the 127.0.0.1 port to bind (QEMU's {@code remote.port}; 0 for any)
     * @param remotePort the 127.0.0.1 port frames go to (QEMU's {@code local.port})
     * @param mac this station's MAC in the low 48 bits (unicast)
     * @param address this station's IPv4 address
     * @param ipMtu the largest IPv4 packet sent, 576-65535
     * @param holdPerDestination packets held per unresolved destination, 1-1024
     * @param nanoClock the time in nanoseconds ({@link System#nanoTime} or a test's clock)
     * @throws IllegalArgumentException when a value is out of range
     * @throws IOException when the local port cannot be bound
     */
    public FrameLink(int localPort, int remotePort, long mac, InetAddress address, int ipMtu, int holdPerDestination,
        LongSupplier nanoClock) throws IOException {
        if (!(address instanceof Inet4Address a)) {
            throw new IllegalArgumentException("the frame link supports IPv4 device addresses only (not yet IPv6): "
                + address);
        }
        if (localPort < 0 || localPort > 0xFFFF || remotePort <= 0 || remotePort > 0xFFFF) {
            throw new IllegalArgumentException("ports " + localPort + ", " + remotePort);
        }
        if ((mac & ~BROADCAST) != 0 || (mac >>> 40 & 1) != 0 || mac == 0) {
            throw new IllegalArgumentException("not a unicast MAC: " + formatMac(mac));
        }
        if (ipMtu < 576 || ipMtu > 0xFFFF || holdPerDestination < 1 || holdPerDestination > 1024) {
            throw new IllegalArgumentException("IP MTU " + ipMtu + ", hold " + holdPerDestination);
        }
        this.mac = mac;
        this.local = a;
        this.local4 = ipv4(a);
        this.ipMtu = ipMtu;
        this.clock = nanoClock;
        for (int i = 0; i < NEIGHBOURS; i++) {
            neighbours[i] = new FrameNeighbour(holdPerDestination);
        }
        InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            c.bind(new InetSocketAddress(loopback, localPort));
            c.connect(new InetSocketAddress(loopback, remotePort));
            c.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        this.channel = c;
        this.description = "dgram " + a.getHostAddress() + " " + formatMac(mac) + " 127.0.0.1:"
            + ((InetSocketAddress) c.getLocalAddress()).getPort() + " -> 127.0.0.1:" + remotePort;
    }

    private static int port(String spec, String s) {
        try {
            int p = Integer.parseInt(s);
            if (p > 0 && p <= 0xFFFF) {
                return p;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("link=" + spec + ": not a port: " + s);
    }

    /**
     * @param text six hexadecimal octets separated by {@code :} or {@code -}
     * @return the MAC in the low 48 bits
     * @throws IllegalArgumentException when it is not a unicast MAC
     */
    static long mac(String spec, String text) {
        String[] octets = text.split("[:-]");
        if (octets.length != 6) {
            throw new IllegalArgumentException("link=" + spec + ": not a MAC: " + text);
        }
        long m = 0;
        for (String o : octets) {
            if (o.length() < 1 || o.length() > 2) {
                throw new IllegalArgumentException("link=" + spec + ": not a MAC: " + text);
            }
            try {
                m = m << 8 | Integer.parseInt(o, 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("link=" + spec + ": not a MAC: " + text, e);
            }
        }
        if ((m >>> 40 & 1) != 0 || m == 0) {
            throw new IllegalArgumentException("link=" + spec + ": not a unicast MAC: " + text);
        }
        return m;
    }

    /** @return {@code 02:00:} and the address's four octets (locally administered, unicast) */
    static long defaultMac(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length != 4) {
            throw new IllegalArgumentException("the frame link supports IPv4 device addresses only: " + address);
        }
        return 0x0200_0000_0000L | (ipv4(address) & 0xFFFF_FFFFL);
    }

    static String formatMac(long mac) {
        StringBuilder s = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            s.append(String.format(Locale.ROOT, "%02x", mac >>> shift & 0xFF));
            if (shift > 0) {
                s.append(':');
            }
        }
        return s.toString();
    }

    private static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    /** @return this station's MAC in the low 48 bits */
    public long mac() {
        return mac;
    }

    /** @return the local 127.0.0.1 port the socket is bound to (not the RoCEv2 port inside the frames) */
    public int socketPort() throws IOException {
        return ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    /**
     * @param counter a counter
     * @return its value
     */
    public long counter(FrameCounter counter) {
        return counters[counter.ordinal()];
    }

    @Override
    public void counters(java.util.Map<String, Long> into) {
        for (FrameCounter c : FrameCounter.values()) {
            if (c != FrameCounter.ICRC_GOOD && c != FrameCounter.ICRC_BAD) { // the device reports those for every link
                into.put("frame_" + c.name().toLowerCase(java.util.Locale.ROOT), counters[c.ordinal()]);
            }
        }
    }

    /**
     * @param address an IPv4 address
     * @return the MAC learnt for it in the low 48 bits, or -1 when none is known
     */
    public long neighbour(InetAddress address) {
        FrameNeighbour n = find(address);
        return n == null ? FrameNeighbour.UNKNOWN : n.mac;
    }

    private void count(FrameCounter c) {
        counters[c.ordinal()]++;
    }

    @Override
    public InetAddress localAddress() {
        return local;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    // ------------------------------------------------------------------------------------------------------ send

    @Override
    public boolean send(InetAddress destination, int sourcePort, ByteBuffer buffer, int offset, int length)
        throws IOException {
        long now = clock.getAsLong();
        if (pending > 0) {
            expire(now);
        }
        if (length < MIN_PAYLOAD || Icrc.IPV4_HEADER_LENGTH + Icrc.UDP_HEADER_LENGTH + length > ipMtu) {
            count(FrameCounter.OVERSIZE);
            sendDrops++;
            return false;
        }
        if (!(destination instanceof Inet4Address)) {
            count(FrameCounter.ADDRESS_FAMILY);
            sendDrops++;
            return false;
        }
        FrameNeighbour n = find(destination);
        if (n == null) {
            n = insert(destination, ipv4(destination), now);
        }
        n.lastUsed = now;
        int total = Icrc.IPV4_HEADER_LENGTH + Icrc.UDP_HEADER_LENGTH + length;
        ByteBuffer f = out;
        putMac(f, 6, mac);
        NetworkOrder.putU16(f, 12, ETHERTYPE_IPV4);
        NetworkOrder.putU8(f, IP, 0x45);
        NetworkOrder.putU8(f, IP + 1, 0);
        NetworkOrder.putU16(f, IP + 2, total);
        identification = identification + 1 & 0xFFFF;
        NetworkOrder.putU16(f, IP + 4, identification);
        NetworkOrder.putU16(f, IP + 6, Icrc.IPV4_DONT_FRAGMENT);
        NetworkOrder.putU8(f, IP + 8, TTL);
        NetworkOrder.putU8(f, IP + 9, Icrc.PROTOCOL_UDP);
        NetworkOrder.putU16(f, IP + 10, 0);
        NetworkOrder.putI32(f, IP + 12, local4);
        NetworkOrder.putI32(f, IP + 16, n.ipv4);
        NetworkOrder.putU16(f, IP + 10, ~sum(f, IP, Icrc.IPV4_HEADER_LENGTH, 0) & 0xFFFF);
        NetworkOrder.putU16(f, UDP, sourcePort & 0xFFFF);
        NetworkOrder.putU16(f, UDP + 2, ROCE_PORT);
        NetworkOrder.putU16(f, UDP + 4, Icrc.UDP_HEADER_LENGTH + length);
        NetworkOrder.putU16(f, UDP + 6, 0);
        f.clear();
        f.put(PAYLOAD, buffer, offset, length);
        int crc = icrc.ipv4Headers(f, IP, f, PAYLOAD, length); // over the headers as built, octet for octet
        Icrc.write(f, PAYLOAD, length, crc);
        Icrc.write(buffer, offset, length, crc);
        int frameLength = PAYLOAD + length;
        if (n.resolved()) {
            putMac(f, 0, n.mac);
            if (!write(f, frameLength)) {
                sendDrops++;
                return false;
            }
            count(FrameCounter.FRAMES_OUT);
            return true;
        }
        if (n.heldCount == n.held.length) {
            count(FrameCounter.HELD_OVERFLOW);
            sendDrops++;
            return false;
        }
        if (n.heldCount == 0) {
            n.resolveStarted = now;
            pending++;
            arpRequest(n, now);
        }
        n.hold(f, frameLength);
        count(FrameCounter.HELD);
        return true;
    }

    /** Sends what waits for {@code n}, now resolved. */
    private void release(FrameNeighbour n) throws IOException {
        for (int i = 0; i < n.heldCount; i++) {
            ByteBuffer h = n.held[i];
            putMac(h, 0, n.mac);
            if (write(h, n.heldLength[i])) {
                count(FrameCounter.HELD_SENT);
                count(FrameCounter.FRAMES_OUT);
            } else {
                sendDrops++;
            }
        }
        n.heldCount = 0;
        pending--;
    }

    /** Drops what waited too long, sends the ARP requests that are due. */
    private void expire(long now) throws IOException {
        for (int i = 0; i < neighbourCount; i++) {
            FrameNeighbour n = neighbours[i];
            if (n.heldCount == 0) {
                continue;
            }
            if (now - n.resolveStarted >= HOLD_MILLIS * NANOS_PER_MILLI) {
                counters[FrameCounter.HELD_EXPIRED.ordinal()] += n.heldCount;
                sendDrops += n.heldCount;
                n.heldCount = 0;
                pending--;
            } else if (now - n.lastRequest >= ARP_RETRY_MILLIS * NANOS_PER_MILLI) {
                arpRequest(n, now);
            }
        }
    }

    private void arpRequest(FrameNeighbour n, long now) throws IOException {
        n.lastRequest = now;
        arp(1, BROADCAST, 0, n.ipv4);
        count(FrameCounter.ARP_REQUESTS_OUT);
    }

    /** Sends an ARP frame of this station: {@code operation} 1 (request) or 2 (reply). */
    private void arp(int operation, long targetMac, long targetHardware, int targetIp) throws IOException {
        ByteBuffer f = control;
        for (int i = 0; i < MIN_FRAME; i++) {
            f.put(i, (byte) 0);
        }
        putMac(f, 0, targetMac);
        putMac(f, 6, mac);
        NetworkOrder.putU16(f, 12, ETHERTYPE_ARP);
        NetworkOrder.putU16(f, 14, 1);
        NetworkOrder.putU16(f, 16, ETHERTYPE_IPV4);
        NetworkOrder.putU8(f, 18, 6);
        NetworkOrder.putU8(f, 19, 4);
        NetworkOrder.putU16(f, 20, operation);
        putMac(f, 22, mac);
        NetworkOrder.putI32(f, 28, local4);
        putMac(f, 32, targetHardware);
        NetworkOrder.putI32(f, 38, targetIp);
        write(f, MIN_FRAME);
    }

    private boolean write(ByteBuffer f, int length) throws IOException {
        f.limit(length).position(0);
        try {
            if (channel.write(f) == 0) {
                count(FrameCounter.SOCKET_FULL);
                return false;
            }
            return true;
        } catch (PortUnreachableException e) {
            count(FrameCounter.PEER_UNREACHABLE);
            return false;
        } finally {
            f.clear();
        }
    }

    // --------------------------------------------------------------------------------------------------- receive

    @Override
    public int receive(ByteBuffer buffer) throws IOException {
        if (pending > 0) {
            expire(clock.getAsLong());
        }
        for (int i = 0; i < FRAMES_PER_RECEIVE; i++) {
            ByteBuffer f = in;
            f.clear();
            int n;
            try {
                n = channel.read(f);
            } catch (PortUnreachableException e) {
                count(FrameCounter.PEER_UNREACHABLE);
                continue;
            }
            if (n <= 0) {
                return -1;
            }
            f.clear();
            int length = frame(n, buffer);
            if (length >= 0) {
                return length;
            }
        }
        return -1;
    }

    /** One frame of {@code n} octets in {@link #in}: the payload's length when it is RoCEv2 for us, else -1. */
    private int frame(int n, ByteBuffer buffer) throws IOException {
        ByteBuffer f = in;
        if (n < ETH_HEADER) {
            count(FrameCounter.MALFORMED);
            return -1;
        }
        long to = getMac(f, 0);
        if (to != mac && to != BROADCAST) {
            count(FrameCounter.NOT_FOR_US);
            return -1;
        }
        int type = NetworkOrder.u16(f, 12);
        if (type == ETHERTYPE_ARP) {
            arpIn(n);
            return -1;
        }
        if (type != ETHERTYPE_IPV4) {
            count(FrameCounter.OTHER_ETHERTYPE);
            return -1;
        }
        if (to != mac) {
            count(FrameCounter.NOT_FOR_US);
            return -1;
        }
        return ipv4In(n, buffer);
    }

    private void arpIn(int n) throws IOException {
        ByteBuffer f = in;
        if (n < ETH_HEADER + ARP_LENGTH || NetworkOrder.u16(f, 14) != 1 || NetworkOrder.u16(f, 16) != ETHERTYPE_IPV4
            || NetworkOrder.u8(f, 18) != 6 || NetworkOrder.u8(f, 19) != 4) {
            count(FrameCounter.MALFORMED);
            return;
        }
        int operation = NetworkOrder.u16(f, 20);
        long senderMac = getMac(f, 22);
        int senderIp = NetworkOrder.i32(f, 28);
        int targetIp = NetworkOrder.i32(f, 38);
        boolean forUs = targetIp == local4;
        if (operation == 1 && forUs) {
            count(FrameCounter.ARP_REQUESTS_IN);
            learn(senderIp, senderMac, true);
            arp(2, senderMac, senderMac, senderIp);
        } else if (operation == 2) {
            count(FrameCounter.ARP_REPLIES_IN);
            learn(senderIp, senderMac, forUs);
        } else {
            count(FrameCounter.ARP_OTHER);
            learn(senderIp, senderMac, false);
        }
    }

    private int ipv4In(int n, ByteBuffer buffer) throws IOException {
        ByteBuffer f = in;
        if (n < PAYLOAD - Icrc.UDP_HEADER_LENGTH) {
            count(FrameCounter.MALFORMED);
            return -1;
        }
        int first = NetworkOrder.u8(f, IP);
        if (first >>> 4 != 4 || (first & 0x0F) < 5) {
            count(FrameCounter.MALFORMED);
            return -1;
        }
        if ((first & 0x0F) != 5) {
            count(FrameCounter.IP_OPTIONS);
            return -1;
        }
        int total = NetworkOrder.u16(f, IP + 2);
        if (total < Icrc.IPV4_HEADER_LENGTH || IP + total > n) {
            count(FrameCounter.MALFORMED);
            return -1;
        }
        if ((NetworkOrder.u16(f, IP + 6) & 0x3FFF) != 0) {
            count(FrameCounter.FRAGMENTS);
            return -1;
        }
        if (sum(f, IP, Icrc.IPV4_HEADER_LENGTH, 0) != 0xFFFF) {
            count(FrameCounter.IP_CHECKSUM_BAD);
            return -1;
        }
        if (NetworkOrder.i32(f, IP + 16) != local4) {
            count(FrameCounter.NOT_FOR_US);
            return -1;
        }
        int from = NetworkOrder.i32(f, IP + 12);
        long fromMac = getMac(f, 6);
        if (NetworkOrder.u8(f, IP + 9) != Icrc.PROTOCOL_UDP || total < Icrc.IPV4_HEADER_LENGTH + Icrc.UDP_HEADER_LENGTH
            || NetworkOrder.u16(f, UDP + 2) != ROCE_PORT) {
            count(total < Icrc.IPV4_HEADER_LENGTH + Icrc.UDP_HEADER_LENGTH
                && NetworkOrder.u8(f, IP + 9) == Icrc.PROTOCOL_UDP ? FrameCounter.MALFORMED : FrameCounter.NOT_ROCE);
            return -1;
        }
        int udpLength = NetworkOrder.u16(f, UDP + 4);
        int length = udpLength - Icrc.UDP_HEADER_LENGTH;
        if (udpLength > total - Icrc.IPV4_HEADER_LENGTH || length < MIN_PAYLOAD) {
            count(FrameCounter.MALFORMED);
            return -1;
        }
        int check = NetworkOrder.u16(f, UDP + 6);
        if (check != 0) {
            int pseudo = (from >>> 16) + (from & 0xFFFF) + (local4 >>> 16) + (local4 & 0xFFFF) + Icrc.PROTOCOL_UDP
                + udpLength;
            if (sum(f, UDP, udpLength, pseudo) != 0xFFFF) {
                count(FrameCounter.UDP_CHECKSUM_BAD);
                return -1;
            }
        }
        if (length > buffer.capacity()) {
            count(FrameCounter.TOO_LONG);
            return -1;
        }
        f.limit(IP + total);
        int crc = icrc.ipv4Headers(f, IP, f, PAYLOAD, length);
        f.clear();
        if (crc != Icrc.read(f, PAYLOAD, length)) {
            count(FrameCounter.ICRC_BAD);
            return -1;
        }
        count(FrameCounter.ICRC_GOOD);
        source = learn(from, fromMac, true).address;
        sourcePort = NetworkOrder.u16(f, UDP);
        receivedIdentification = NetworkOrder.u16(f, IP + 4);
        buffer.clear();
        buffer.put(0, f, PAYLOAD, length);
        buffer.position(length);
        return length;
    }

    // -------------------------------------------------------------------------------------------------- neighbours

    private FrameNeighbour find(InetAddress address) {
        for (int i = 0; i < neighbourCount; i++) {
            FrameNeighbour n = neighbours[i];
            if (n.address.equals(address)) {
                return n;
            }
        }
        return null;
    }

    private FrameNeighbour find(int ipv4) {
        for (int i = 0; i < neighbourCount; i++) {
            FrameNeighbour n = neighbours[i];
            if (n.ipv4 == ipv4) {
                return n;
            }
        }
        return null;
    }

    /** A new entry, in a free slot or in place of the least recently used one that holds nothing. */
    private FrameNeighbour insert(InetAddress address, int ipv4, long now) {
        FrameNeighbour n;
        if (neighbourCount < NEIGHBOURS) {
            n = neighbours[neighbourCount++];
        } else {
            n = null;
            for (FrameNeighbour c : neighbours) {
                if (c.heldCount == 0 && (n == null || c.lastUsed - n.lastUsed < 0)) {
                    n = c;
                }
            }
            if (n == null) { // every entry holds packets: the oldest resolution gives way
                n = neighbours[0];
                for (FrameNeighbour c : neighbours) {
                    if (c.resolveStarted - n.resolveStarted < 0) {
                        n = c;
                    }
                }
                counters[FrameCounter.HELD_EXPIRED.ordinal()] += n.heldCount;
                sendDrops += n.heldCount;
                pending--;
            }
        }
        n.reset(address, ipv4, now);
        return n;
    }

    /**
     * Records that {@code ip} is at {@code hardware}; sends what was held for it. An address not in the table is
     * added only when {@code create} (the frame was for this station), as Linux does.
     *
     * @return the entry, or null when there is none
     */
    private FrameNeighbour learn(int ip, long hardware, boolean create) throws IOException {
        if (ip == 0 || ip == local4 || (hardware >>> 40 & 1) != 0 || hardware == 0) {
            return create ? sourceOnly(ip) : null;
        }
        long now = clock.getAsLong();
        FrameNeighbour n = find(ip);
        if (n == null) {
            if (!create) {
                return null;
            }
            n = insert(address(ip), ip, now);
        }
        n.lastUsed = now;
        if (n.mac != hardware) {
            n.mac = hardware;
            count(FrameCounter.NEIGHBOURS_LEARNT);
        }
        if (n.heldCount > 0) {
            release(n);
        }
        return n;
    }

    /** The entry for a source whose MAC cannot be learnt (multicast, zero): for {@link #source()} only. */
    private FrameNeighbour sourceOnly(int ip) {
        FrameNeighbour n = find(ip);
        return n != null ? n : insert(address(ip), ip, clock.getAsLong());
    }

    private static InetAddress address(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                (byte) ip});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four octets are always an address
        }
    }

    // ----------------------------------------------------------------------------------------------------- octets

    static long getMac(ByteBuffer b, int index) {
        return (long) NetworkOrder.u16(b, index) << 32 | NetworkOrder.i32(b, index + 2) & 0xFFFF_FFFFL;
    }

    static void putMac(ByteBuffer b, int index, long mac) {
        NetworkOrder.putU16(b, index, (int) (mac >>> 32) & 0xFFFF);
        NetworkOrder.putI32(b, index + 2, (int) mac);
    }

    /** The ones' complement sum (folded to 16 bits) of {@code length} octets from {@code index}, plus {@code initial}. */
    static int sum(ByteBuffer b, int index, int length, int initial) {
        long s = initial & 0xFFFF_FFFFL;
        int end = index + (length & ~1);
        for (int i = index; i < end; i += 2) {
            s += NetworkOrder.u16(b, i);
        }
        if ((length & 1) != 0) {
            s += NetworkOrder.u8(b, index + length - 1) << 8;
        }
        while (s >>> 16 != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    // ---------------------------------------------------------------------------------------------------- the rest

    @Override
    public InetAddress source() {
        return source;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int ipIdentification(boolean sent) {
        return sent ? identification : receivedIdentification;
    }

    @Override
    public boolean icrcExact() {
        return true;
    }

    @Override
    public long icrcGood() {
        return counter(FrameCounter.ICRC_GOOD);
    }

    @Override
    public long icrcBad() {
        return counter(FrameCounter.ICRC_BAD);
    }

    @Override
    public long icrcUnchecked() {
        return 0;
    }

    @Override
    public long sendDrops() {
        return sendDrops;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return description;
    }
}
