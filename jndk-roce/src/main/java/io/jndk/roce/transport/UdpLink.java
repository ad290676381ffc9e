package io.jndk.roce.transport;

import io.jndk.roce.codec.Icrc;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectableChannel;

/**
 * The UDP socket path: one unconnected, non-blocking {@link DatagramChannel} bound to the device's address and port
 * 4791 (or the port every device of a test fabric uses); the kernel builds the IP and UDP headers. Every packet goes
 * from and to that port.
 *
 * <p>ICRC. Over IPv6 every header field the ICRC covers is known from the socket (addresses, ports, lengths; the
 * variant fields are masked), so the ICRC is computed and checked exactly: a wrong one is dropped and counted. Over
 * IPv4 the ICRC also covers the IP identification, which the kernel chooses and the socket never shows: Linux sends
 * a changing identification even with DF set on an unconnected socket (measured on 6.18: consecutive datagrams
 * carried 0xb7b0, 0xb7b1, 0xb7b3). jndk computes its IPv4 ICRCs with identification 0, which every jndk receiver
 * checks the same way, so IPv4 is exact between jndk peers only: rxe (and a hardware RoCE NIC) drops what this link
 * sends over IPv4, and this link cannot check what they send. On receive, an ICRC that matches identification 0
 * (every jndk sender) counts as good; one that does not is dropped in the default {@code strict} mode (counted; the
 * device warns once) and accepted as unchecked (counted) in {@code lenient} mode. The UDP checksum, which the kernel
 * checks when the sender set one, still covers such packets. Towards other stacks use IPv6, or the frame link
 * ({@link FrameLink}) where jndk owns the IP header.
 *
 * <p>Sending. In the default {@link SendPath#CONNECTED} mode a packet leaves through a socket connected to its
 * destination's RoCE port, one per peer address (bound to the device's address, an ephemeral source port), for up to
 * {@link #MAX_CONNECTED} peers; packets to further peers, and every packet in {@link SendPath#BOUND} mode, leave from
 * the device's own port. RoCEv2 leaves the UDP source port to the sender (rxe hashes it per QP for ECMP entropy; the
 * receiver ignores it and the ICRC covers whichever port is used), and a connected socket spares the kernel its route
 * lookup on every packet (the figures: docs/DECISIONS.md, "A connected socket per peer sends"). Nothing is read from
 * a connected socket (peers send to the RoCE port); an ICMP error it reports on a later send (port unreachable: the
 * peer's device closed) drops that packet, counted, as a full socket buffer does, and the RC layer's retries deal
 * with it. A connected socket that cannot be opened (no route, no descriptor left) fails that send with its
 * {@link IOException}, as the device's socket fails a send to such a peer.
 */
public final class UdpLink implements RoceLink {
    /** Which socket a packet leaves through ({@code udp.send}). */
    public enum SendPath {
        /** A socket connected to the peer's RoCE port, one per peer address, up to {@link #MAX_CONNECTED}. */
        CONNECTED,
        /** The device's own socket and port. */
        BOUND
    }

    /** Peer addresses that get a connected send socket each (more peers share the device's socket). */
    static final int MAX_CONNECTED = 64;

    /** How IPv4 ICRCs that cannot be checked are treated. */
    public enum Ipv4Check {
        /** Drop a packet whose ICRC does not match identification 0. */
        STRICT,
        /** Accept it, counted as unchecked. */
        LENIENT
    }

    private final DatagramChannel channel;
    private final InetAddress local;
    private final int port;
    private final int peerPort;
    private final boolean ipv6;
    private final int local4;
    private final byte[] local6;
    private final Ipv4Check ipv4Check;
    private final int sendBuffer;
    private final Icrc icrc = new Icrc();
    /** The octets of the last destination sent to and of the last source received from (the ICRC covers them). */
    private final PeerOctets sentTo = new PeerOctets();
    private final PeerOctets receivedFrom = new PeerOctets();
    private InetSocketAddress lastTo;
    private InetAddress source;
    private int sourcePort;
    private long good;
    private long bad;
    private long unchecked;
    private long sendDrops;
    private final SendPath sendPath;
    /** The connected send sockets, {@code peerCount} of them, and the one used last. */
    private final Peer[] peers = new Peer[MAX_CONNECTED];
    private int peerCount;
    private Peer lastPeer;
    private int sentFrom;

    /**
     * Binds {@code address}:{@code port}.
     *
     * @param receiveBuffer SO_RCVBUF to ask for (0: the system's)
     * @param sendBuffer SO_SNDBUF to ask for (0: the system's)
     * @throws IOException when the address cannot be bound (in use, not local)
     */
    public UdpLink(InetAddress address, int port, Ipv4Check ipv4Check, int receiveBuffer, int sendBuffer)
            throws IOException {
        this(address, port, port, ipv4Check, receiveBuffer, sendBuffer, SendPath.CONNECTED);
    }

    /**
     * Binds {@code address}:{@code port} and sends to the peers' {@code peerPort} (the same on a real fabric; another
     * one puts a relay between devices of one host, as the loss tests do).
     */
    public UdpLink(InetAddress address, int port, int peerPort, Ipv4Check ipv4Check, int receiveBuffer,
            int sendBuffer, SendPath sendPath) throws IOException {
        this.local = address;
        this.sendPath = sendPath;
        this.sendBuffer = sendBuffer;
        this.port = port;
        this.peerPort = peerPort;
        this.ipv6 = address instanceof Inet6Address;
        this.ipv4Check = ipv4Check;
        this.local4 = ipv6 ? 0 : ipv4(address);
        this.local6 = ipv6 ? address.getAddress() : null;
        DatagramChannel c = DatagramChannel.open(ipv6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            if (receiveBuffer > 0) {
                c.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            }
            if (sendBuffer > 0) {
                c.setOption(StandardSocketOptions.SO_SNDBUF, sendBuffer);
            }
            c.bind(new InetSocketAddress(address, port));
            c.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        this.channel = c;
    }

    private static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    @Override
    public InetAddress localAddress() {
        return local;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public boolean send(InetAddress destination, int sourcePort, ByteBuffer buffer, int offset, int length)
            throws IOException {
        Peer peer = sendPath == SendPath.CONNECTED ? peer(destination) : null;
        int from = peer == null ? port : peer.port;
        PeerOctets d = sentTo.of(destination);
        int crc = ipv6 ? icrc.ipv6(local6, d.v6, from, peerPort, buffer, offset, length)
            : icrc.ipv4(local4, d.v4, 0, Icrc.IPV4_DONT_FRAGMENT, from, peerPort, buffer, offset, length);
        Icrc.write(buffer, offset, length, crc);
        sentFrom = from;
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(offset + length).position(offset);
        try {
            int sent;
            if (peer != null) {
                sent = peer.channel.write(buffer);
            } else {
                InetSocketAddress to = lastTo;
                if (to == null || !to.getAddress().equals(destination)) {
                    to = new InetSocketAddress(destination, peerPort);
                    lastTo = to;
                }
                sent = channel.send(buffer, to);
            }
            if (sent == 0) {
                sendDrops++;
                return false;
            }
            return true;
        } catch (PortUnreachableException e) {
            sendDrops++; // an earlier packet's ICMP error, reported by this send: nothing listens there (now)
            return false;
        } finally {
            buffer.limit(limit).position(position);
        }
    }

    /** The connected send socket for {@code destination}, opened on first use; null beyond {@link #MAX_CONNECTED}. */
    private Peer peer(InetAddress destination) throws IOException {
        Peer p = lastPeer;
        if (p != null && p.address.equals(destination)) {
            return p;
        }
        for (int i = 0; i < peerCount; i++) {
            if (peers[i].address.equals(destination)) {
                lastPeer = peers[i];
                return peers[i];
            }
        }
        if (peerCount == MAX_CONNECTED) {
            return null;
        }
        DatagramChannel c = openProbe(destination);
        try {
            if (sendBuffer > 0) {
                c.setOption(StandardSocketOptions.SO_SNDBUF, sendBuffer);
            }
            c.setOption(StandardSocketOptions.SO_RCVBUF, 1); // nothing is read from it (the kernel's minimum)
            p = new Peer(destination, c, ((InetSocketAddress) c.getLocalAddress()).getPort());
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        peers[peerCount++] = p;
        lastPeer = p;
        return p;
    }

    /** A connected send socket and its local port (which the ICRC covers). */
    private record Peer(InetAddress address, DatagramChannel channel, int port) {}

    /** The UDP source port of the packet {@link #send} last sent. */
    @Override
    public int sentSourcePort(int asked) {
        return sentFrom;
    }

    /** Connected send sockets open (for tests). */
    int connectedPeers() {
        return peerCount;
    }

    /**
     * A connected socket to {@code destination}'s RoCE port for a connection request: a datagram sent through it to
     * an address where no socket listens brings back ICMP port unreachable, which only a connected socket reports
     * (a {@link java.net.PortUnreachableException} from its next read) — the socket path's way to tell "no RoCE device
     * there" at once instead of after the CM's retries.
     */
    DatagramChannel openProbe(InetAddress destination) throws IOException {
        DatagramChannel c = DatagramChannel.open(ipv6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            c.bind(new InetSocketAddress(local, 0));
            c.connect(new InetSocketAddress(destination, peerPort));
            c.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** Sends one packet through a probe socket (its own source port goes into the ICRC). */
    void sendVia(DatagramChannel probe, InetAddress destination, ByteBuffer buffer, int offset, int length)
            throws IOException {
        int from = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        PeerOctets d = sentTo.of(destination);
        int crc = ipv6 ? icrc.ipv6(local6, d.v6, from, peerPort, buffer, offset, length)
            : icrc.ipv4(local4, d.v4, 0, Icrc.IPV4_DONT_FRAGMENT, from, peerPort, buffer, offset, length);
        Icrc.write(buffer, offset, length, crc);
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(offset + length).position(offset);
        try {
            probe.write(buffer);
        } finally {
            buffer.limit(limit).position(position);
        }
    }

    /**
     * A peer address's octets as the ICRC takes them, kept for the address last asked about:
     * {@link InetAddress#getAddress} copies them on every call, which on the packet path allocated 24 bytes a packet
     * whenever the JIT did not remove the copy (it is asked again only when the address changes).
     */
    private static final class PeerOctets {
        private InetAddress of;
        /** The first four octets as an int: the IPv4 address. */
        int v4;
        /** The 16 octets of an IPv6 address, or an IPv4 one's IPv4-mapped form (an IPv4 peer of an IPv6 device). */
        final byte[] v6 = new byte[16];

        PeerOctets of(InetAddress a) {
            if (!a.equals(of)) { // equals compares without a copy (the JDK hands out new objects for one address)
                byte[] b = a.getAddress();
                v4 = (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
                if (a instanceof Inet6Address) {
                    System.arraycopy(b, 0, v6, 0, 16);
                } else {
                    java.util.Arrays.fill(v6, (byte) 0);
                    v6[10] = (byte) 0xFF;
                    v6[11] = (byte) 0xFF;
                    System.arraycopy(b, 0, v6, 12, 4);
                }
                of = a;
            }
            return this;
        }
    }

    @Override
    public int receive(ByteBuffer buffer) throws IOException {
        for (int attempt = 0; attempt < 64; attempt++) {
            buffer.clear();
            SocketAddress from = channel.receive(buffer);
            if (from == null) {
                return -1;
            }
            int length = buffer.position();
            InetSocketAddress f = (InetSocketAddress) from;
            if (length < 16) {
                bad++;
                continue;
            }
            InetAddress src = f.getAddress();
            int want = Icrc.read(buffer, 0, length);
            PeerOctets peer = receivedFrom.of(src);
            int got = ipv6 ? icrc.ipv6(peer.v6, local6, f.getPort(), port, buffer, 0, length)
                : icrc.ipv4(src instanceof Inet4Address ? peer.v4 : local4, local4, 0, Icrc.IPV4_DONT_FRAGMENT,
                    f.getPort(), port, buffer, 0, length);
            if (got == want) {
                good++;
            } else if (!ipv6 && ipv4Check == Ipv4Check.LENIENT) {
                unchecked++;
            } else {
                bad++;
                continue;
            }
            source = src;
            sourcePort = f.getPort();
            return length;
        }
        return -1;
    }

    @Override
    public InetAddress source() {
        return source;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int localPort() {
        return port;
    }

    @Override
    public int peerPort() {
        return peerPort;
    }

    @Override
    public boolean icrcExact() {
        return ipv6;
    }

    @Override
    public long icrcGood() {
        return good;
    }

    @Override
    public long icrcBad() {
        return bad;
    }

    @Override
    public long icrcUnchecked() {
        return unchecked;
    }

    @Override
    public long sendDrops() {
        return sendDrops;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (int i = 0; i < peerCount; i++) {
            try {
                peers[i].channel.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        channel.close();
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "udp " + local.getHostAddress() + ":" + port;
    }
}
