package io.jndk.iwarp.pcap;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes a classic pcap file (microsecond timestamps, link type Ethernet) in which every chunk of a
 * TCP byte stream that was written or read becomes one packet with synthetic Ethernet, IPv4 (or IPv6)
 * and TCP headers that carry the connection's real addresses and ports and a running sequence number
 * per direction (acknowledging the other direction). A stream may start with the SYN, SYN-ACK, ACK
 * handshake, which helps Wireshark's TCP analysis, and end with FINs. IP and TCP checksums are valid.
 *
 * <p>Record layout (all pcap header fields little-endian, all packet headers big-endian):
 * <pre>
 *   pcap record header (16) | Ethernet (14) | IPv4 (20) or IPv6 (40) | TCP (20) | payload
 * </pre>
 * Chunks longer than {@link #MAX_SEGMENT_PAYLOAD} octets are split over several packets.
 *
 * <p>Thread-safe: any number of threads may record on any streams; each packet is encoded into one
 * preallocated buffer and written to the channel under a lock before the call returns, so nothing is
 * buffered beyond one packet. With a size limit the file never grows past it: packets that do not fit
 * are dropped and counted (sequence numbers still advance, so Wireshark shows the gap). I/O errors never
 * reach the caller: the first one is kept ({@link #failure()}) and further packets are dropped.
 */
public final class PcapWriter implements AutoCloseable {

    /** pcap magic for microsecond timestamps. */
    public static final int MAGIC = 0xA1B2C3D4;
    /** Link type Ethernet (DLT_EN10MB). */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Snapshot length announced in the file header. */
    public static final int SNAPLEN = 262_144;
    /** Largest TCP payload per packet, so that the IPv4 total length fits in 16 bits. */
    public static final int MAX_SEGMENT_PAYLOAD = 65_535 - 20 - 20;
    /** Length of the pcap file header. */
    public static final int FILE_HEADER_LENGTH = 24;
    /** Length of a pcap record header. */
    public static final int RECORD_HEADER_LENGTH = 16;

    private static final int ETHERNET_LENGTH = 14;
    private static final int IPV4_LENGTH = 20;
    private static final int IPV6_LENGTH = 40;
    private static final int TCP_LENGTH = 20;
    private static final int FIN = 0x01;
    private static final int SYN = 0x02;
    private static final int PSH = 0x08;
    private static final int ACK = 0x10;

    private final WritableByteChannel out;
    private final long maxBytes;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final ByteBuffer packet = ByteBuffer.allocateDirect(RECORD_HEADER_LENGTH + ETHERNET_LENGTH + IPV6_LENGTH
        + TCP_LENGTH + MAX_SEGMENT_PAYLOAD);
    private final byte[] checksumScratch = new byte[IPV6_LENGTH + TCP_LENGTH + MAX_SEGMENT_PAYLOAD];
    private long bytes;
    private long records;
    private long dropped;
    private int ipId;
    private IOException failure;
    private boolean closed;

    /**
     * Writes the file header to {@code out}.
     *
     * @param out destination; closed by {@link #close()}
     * @param maxBytes largest file size in octets (at least the 24-octet file header)
     * @param clock source of packet timestamps
     * @throws IOException if the file header cannot be written
     */
    public PcapWriter(WritableByteChannel out, long maxBytes, Clock clock) throws IOException {
        this.out = Objects.requireNonNull(out, "out");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxBytes < FILE_HEADER_LENGTH) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " < " + FILE_HEADER_LENGTH);
        }
        this.maxBytes = maxBytes;
        ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(MAGIC).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
            .putInt(SNAPLEN).putInt(LINKTYPE_ETHERNET).flip();
        while (header.hasRemaining()) {
            out.write(header);
        }
        bytes = FILE_HEADER_LENGTH;
    }

    /**
     * Creates (or truncates) {@code file} without a size limit.
     *
     * @param file the capture file
     * @return the writer
     * @throws IOException if the file cannot be created
     */
    public static PcapWriter create(Path file) throws IOException {
        return create(file, Long.MAX_VALUE);
    }

    /**
     * Creates (or truncates) {@code file}.
     *
     * @param file the capture file
     * @param maxBytes largest file size in octets
     * @return the writer
     * @throws IOException if the file cannot be created
     */
    public static PcapWriter create(Path file, long maxBytes) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        try {
            return new PcapWriter(channel, maxBytes, Clock.systemUTC());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Starts a TCP stream between two endpoints. Addresses of different families are both written as IPv6
     * (IPv4-mapped).
     *
     * @param initiator the active side
     * @param responder the passive side
     * @param handshake whether to write SYN, SYN-ACK and ACK first
     * @return the stream to record chunks on
     */
    public TcpStream stream(InetSocketAddress initiator, InetSocketAddress responder, boolean handshake) {
        TcpStream s = new TcpStream(initiator, responder);
        if (handshake) {
            lock.lock();
            try {
                s.emit(true, SYN, null, 0, 0, false);
                s.emit(false, SYN | ACK, null, 0, 0, true);
                s.emit(true, ACK, null, 0, 0, true);
            } finally {
                lock.unlock();
            }
        }
        return s;
    }

    /** @return packets written */
    public long records() {
        lock.lock();
        try {
            return records;
        } finally {
            lock.unlock();
        }
    }

    /** @return packets dropped (size limit reached, I/O failure, or writer closed) */
    public long droppedRecords() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** @return octets written to the file so far, including the file header */
    public long bytesWritten() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** @return the first I/O error, or {@code null} */
    public IOException failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the destination; later packets are dropped. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                out.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * One TCP connection in the capture: two directions with their own sequence numbers. Record each
     * chunk right after it was written to, or read from, the socket.
     */
    public final class TcpStream {
        private final byte[] initiatorAddress;
        private final byte[] responderAddress;
        private final int initiatorPort;
        private final int responderPort;
        private final boolean ipv6;
        private int initiatorNext;
        private int responderNext;

        private TcpStream(InetSocketAddress initiator, InetSocketAddress responder) {
            InetAddress a = Objects.requireNonNull(initiator.getAddress(), "initiator address unresolved");
            InetAddress b = Objects.requireNonNull(responder.getAddress(), "responder address unresolved");
            ipv6 = !(a instanceof Inet4Address && b instanceof Inet4Address);
            initiatorAddress = ipv6 ? v6(a) : a.getAddress();
            responderAddress = ipv6 ? v6(b) : b.getAddress();
            initiatorPort = initiator.getPort();
            responderPort = responder.getPort();
            initiatorNext = ThreadLocalRandom.current().nextInt();
            responderNext = ThreadLocalRandom.current().nextInt();
        }

        private static byte[] v6(InetAddress address) {
            byte[] raw = address.getAddress();
            if (raw.length == 16) {
                return raw;
            }
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(raw, 0, mapped, 12, 4);
            return mapped;
        }

        /**
         * Records octets the initiator sent: {@code data} from position to limit, which are left unchanged.
         *
         * @param data the chunk
         */
        public void fromInitiator(ByteBuffer data) {
            record(true, data, data.position(), data.remaining());
        }

        /**
         * Records octets the responder sent: {@code data} from position to limit, which are left unchanged.
         *
         * @param data the chunk
         */
        public void fromResponder(ByteBuffer data) {
            record(false, data, data.position(), data.remaining());
        }

        /**
         * Records a chunk of one direction as one packet (several if longer than {@link #MAX_SEGMENT_PAYLOAD}).
         *
         * @param fromInitiator the direction
         * @param data the source buffer (position and limit are not used or changed)
         * @param index absolute index of the first octet
         * @param length octets in the chunk; 0 records nothing
         */
        public void record(boolean fromInitiator, ByteBuffer data, int index, int length) {
            Objects.checkFromIndexSize(index, length, data.capacity());
            lock.lock();
            try {
                int done = 0;
                while (done < length) {
                    int n = Math.min(MAX_SEGMENT_PAYLOAD, length - done);
                    emit(fromInitiator, ACK | PSH, data, index + done, n, true);
                    done += n;
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Records a FIN from one side.
         *
         * @param fromInitiator the direction
         */
        public void fin(boolean fromInitiator) {
            lock.lock();
            try {
                emit(fromInitiator, FIN | ACK, null, 0, 0, true);
            } finally {
                lock.unlock();
            }
        }

        /** Encodes and writes one packet; advances the sender's sequence number. Lock held. */
        private void emit(boolean fromInitiator, int flags, ByteBuffer data, int index, int length, boolean withAck) {
            int seq = fromInitiator ? initiatorNext : responderNext;
            int ack = withAck ? (fromInitiator ? responderNext : initiatorNext) : 0;
            int advance = length + ((flags & (SYN | FIN)) != 0 ? 1 : 0);
            if (fromInitiator) {
                initiatorNext += advance;
            } else {
                responderNext += advance;
            }
            int ipLength = ipv6 ? IPV6_LENGTH : IPV4_LENGTH;
            int captured = ETHERNET_LENGTH + ipLength + TCP_LENGTH + length;
            if (closed || failure != null || bytes + RECORD_HEADER_LENGTH + captured > maxBytes) {
                dropped++;
                return;
            }
            byte[] src = fromInitiator ? initiatorAddress : responderAddress;
            byte[] dst = fromInitiator ? responderAddress : initiatorAddress;
            int srcPort = fromInitiator ? initiatorPort : responderPort;
            int dstPort = fromInitiator ? responderPort : initiatorPort;

            ByteBuffer p = packet.clear();
            Instant now = clock.instant();
            p.order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) now.getEpochSecond()).putInt(now.getNano() / 1000).putInt(captured).putInt(captured);
            p.order(ByteOrder.BIG_ENDIAN);
            // Ethernet: locally administered MACs, ...:01 for the initiator, ...:02 for the responder
            putMac(p, !fromInitiator);
            putMac(p, fromInitiator);
            p.putShort((short) (ipv6 ? 0x86DD : 0x0800));
            int ipStart = p.position();
            if (ipv6) {
                p.putInt(0x6000_0000).putShort((short) (TCP_LENGTH + length)).put((byte) 6).put((byte) 64).put(src).put(dst);
            } else {
                p.put((byte) 0x45).put((byte) 0).putShort((short) (IPV4_LENGTH + TCP_LENGTH + length))
                    .putShort((short) ipId++).putShort((short) 0x4000).put((byte) 64).put((byte) 6).putShort((short) 0)
                    .put(src).put(dst);
                p.putShort(ipStart + 10, (short) checksum(p, ipStart, IPV4_LENGTH, 0));
            }
            int tcpStart = p.position();
            p.putShort((short) srcPort).putShort((short) dstPort).putInt(seq).putInt(ack)
                .put((byte) (5 << 4)).put((byte) flags).putShort((short) 0xFFFF).putShort((short) 0).putShort((short) 0);
            if (length > 0) {
                p.put(p.position(), data, index, length);
                p.position(p.position() + length);
            }
            long pseudo = sum(src) + sum(dst) + 6 + TCP_LENGTH + length;
            p.putShort(tcpStart + 16, (short) checksum(p, tcpStart, TCP_LENGTH + length, pseudo));
            p.flip();
            try {
                while (p.hasRemaining()) {
                    out.write(p);
                }
                bytes += RECORD_HEADER_LENGTH + captured;
                records++;
            } catch (IOException e) {
                failure = e;
                dropped++;
            }
        }

        private static void putMac(ByteBuffer p, boolean initiator) {
            p.put((byte) 0x02).put((byte) 0).put((byte) 0).put((byte) 0).put((byte) 0).put((byte) (initiator ? 1 : 2));
        }
    }

    private static long sum(byte[] address) {
        long s = 0;
        for (int i = 0; i < address.length; i += 2) {
            s += ((address[i] & 0xFF) << 8) | (address[i + 1] & 0xFF);
        }
        return s;
    }

    /** Internet checksum (RFC 1071) over {@code length} octets of {@code b} from {@code start}, plus {@code initial}. */
    private int checksum(ByteBuffer b, int start, int length, long initial) {
        b.get(start, checksumScratch, 0, length);
        long s = initial;
        int i = 0;
        for (; i + 1 < length; i += 2) {
            s += ((checksumScratch[i] & 0xFF) << 8) | (checksumScratch[i + 1] & 0xFF);
        }
        if (i < length) {
            s += (checksumScratch[i] & 0xFF) << 8;
        }
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) (~s & 0xFFFF);
    }
}
