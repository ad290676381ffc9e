package io.jndk.roce.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;

/**
 * Where one RoCEv2 device's packets leave and arrive. Two implementations: a UDP socket on port 4791 ({@code UdpLink},
 * what users get on real networks: the kernel builds the IP and UDP headers) and a frame-level link
 * ({@code FrameLink}: raw Ethernet frames carried in UDP datagrams, as QEMU's {@code -netdev dgram} hands them over,
 * where jndk builds ARP, IP and UDP itself and so computes and checks every ICRC exactly). The device's engine thread
 * is the only caller; nothing blocks.
 */
public interface RoceLink extends AutoCloseable {
    /** The RoCEv2 UDP destination port. */
    int ROCE_PORT = 4791;

    /** The device's IP address: its GID is this address (IPv4-mapped for IPv4). */
    InetAddress localAddress();

    /** The channel the engine's selector waits on for arrivals ({@code OP_READ}); non-blocking. */
    SelectableChannel channel();

    /**
     * Sends one RoCEv2 packet: the UDP payload {@code [offset, offset + length)} of {@code buffer}, BTH first, whose
     * last four octets are the ICRC field; the link computes the ICRC over the IP and UDP headers it sends (as well as
     * it can know them: {@link #icrcExact()}) and writes it in place before sending.
     *
     * @param sourcePort the UDP source port the device chose for the QP (a link bound to one port may ignore it)
     * @return false when the packet could not leave now (a full socket buffer): counted; the RC layer retransmits
     */
    boolean send(InetAddress destination, int sourcePort, ByteBuffer buffer, int offset, int length) throws IOException;

    /**
     * Receives one RoCEv2 packet without waiting: its UDP payload (BTH first, ICRC last) goes to {@code buffer} from
     * index 0. Packets whose ICRC the link could check and found wrong, and datagrams that are not RoCEv2, are
     * dropped and counted here and never returned.
     *
     * @return the payload's length, or -1 when nothing waits
     */
    int receive(ByteBuffer buffer) throws IOException;

    /** The IP source address of the packet {@link #receive} last returned. */
    InetAddress source();

    /** The UDP source port of the packet {@link #receive} last returned (for captures). */
    default int sourcePort() {
        return ROCE_PORT;
    }

    /**
     * The IPv4 identification of the last packet sent ({@code sent}) or returned by {@link #receive} (for captures,
     * whose ICRC covers it); 0 where the kernel chooses it and the link cannot see it ({@link UdpLink}).
     */
    default int ipIdentification(boolean sent) {
        return 0;
    }

    /**
     * The UDP source port the packet {@link #send} last sent carried (for captures): {@code asked}, the port the
     * device chose for the QP, where the link honours it.
     */
    default int sentSourcePort(int asked) {
        return asked;
    }

    /** The UDP port this link receives on. */
    default int localPort() {
        return ROCE_PORT;
    }

    /** The UDP port packets are sent to. */
    default int peerPort() {
        return ROCE_PORT;
    }

    /** Whether the link computes and checks every ICRC over the real IP and UDP headers. */
    boolean icrcExact();

    /** Counters: ICRCs checked and good, found bad (dropped), and not checkable (accepted: {@link #icrcExact()} false). */
    long icrcGood();

    long icrcBad();

    long icrcUnchecked();

    /**
     * Adds the link's own counters beyond the ICRC ones, by lower-case name, to {@code into} (the frame link's); the
     * default has none. Called by the turn holder.
     */
    default void counters(java.util.Map<String, Long> into) {
    }

    /** Packets that could not leave ({@link #send} returned false). */
    long sendDrops();

    @Override
    void close() throws IOException;
}
