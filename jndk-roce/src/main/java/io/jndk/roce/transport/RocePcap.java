package io.jndk.roce.transport;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A classic pcap file (link type Ethernet, microsecond timestamps) of one device's RoCEv2 packets, sent and received,
 * each with synthetic Ethernet, IPv4 (or IPv6) and UDP headers carrying the real addresses and ports, and the
 * DF flag and the IPv4 identification the link used ({@link RoceLink#ipIdentification}: the frame link's own; 0 for
 * {@link UdpLink}, which is what jndk's IPv4 ICRC assumes there), so that a capture reader that checks the ICRC finds
 * the one jndk computed. UDP checksum 0 over IPv4 (as rxe sends), computed over
 * IPv6 (where it is mandatory). The device's engine thread is the only writer; a write error stops the capture
 * (the first one is kept) without reaching the data path.
 */
final class RocePcap implements AutoCloseable {
    private static final int ETHERNET = 14;
    private final FileChannel out;
    private final ByteBuffer record = ByteBuffer.allocate(16 + ETHERNET + 40 + 8 + 65536).order(ByteOrder.BIG_ENDIAN);
    private IOException failure;

    RocePcap(Path file) throws IOException {
        out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262_144).putInt(1).flip();
        while (h.hasRemaining()) {
            out.write(h);
        }
    }

    /**
     * Records one UDP payload (BTH..ICRC) from {@code src}:{@code srcPort} to {@code dst}:{@code dstPort}, with
     * {@code ipId} as the IPv4 identification.
     */
    void packet(InetAddress src, int srcPort, InetAddress dst, int dstPort, int ipId, ByteBuffer payload, int offset,
            int length) {
        if (failure != null) {
            return;
        }
        boolean v4 = src instanceof Inet4Address && dst instanceof Inet4Address;
        int ipLength = v4 ? 20 : 40;
        int frame = ETHERNET + ipLength + 8 + length;
        long micros = System.currentTimeMillis() * 1000 + (System.nanoTime() / 1000) % 1000;
        ByteBuffer r = record.clear();
        r.order(ByteOrder.LITTLE_ENDIAN).putInt((int) (micros / 1_000_000)).putInt((int) (micros % 1_000_000))
            .putInt(frame).putInt(frame).order(ByteOrder.BIG_ENDIAN);
        // Ethernet: locally administered MACs, one per direction's source
        r.putShort((short) 0x0200).putShort((short) 0).putShort((short) 2); // destination 02:00:00:00:00:02
        r.putShort((short) 0x0200).putShort((short) 0).putShort((short) 1); // source 02:00:00:00:00:01
        r.putShort((short) (v4 ? 0x0800 : 0x86DD));
        int ip = r.position();
        if (v4) {
            r.put((byte) 0x45).put((byte) 0).putShort((short) (20 + 8 + length))
                .putShort((short) ipId).putShort((short) 0x4000).put((byte) 64).put((byte) 17).putShort((short) 0).put(src.getAddress())
                .put(dst.getAddress());
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                sum += r.getShort(ip + i) & 0xFFFF;
            }
            while (sum >>> 16 != 0) {
                sum = (sum & 0xFFFF) + (sum >>> 16);
            }
            r.putShort(ip + 10, (short) ~sum);
        } else {
            r.putInt(0x6000_0000).putShort((short) (8 + length)).put((byte) 17).put((byte) 64).put(v6(src)).put(v6(dst));
        }
        int udp = r.position();
        r.putShort((short) srcPort).putShort((short) dstPort).putShort((short) (8 + length)).putShort((short) 0);
        for (int i = 0; i < length; i++) {
            r.put(payload.get(offset + i));
        }
        if (!v4) {
            r.putShort(udp + 6, (short) udp6Checksum(r, ip, udp, 8 + length));
        }
        r.flip();
        try {
            while (r.hasRemaining()) {
                out.write(r);
            }
        } catch (IOException e) {
            failure = e;
        }
    }

    private static byte[] v6(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            return b;
        }
        byte[] m = new byte[16];
        m[10] = (byte) 0xFF;
        m[11] = (byte) 0xFF;
        System.arraycopy(b, 0, m, 12, 4);
        return m;
    }

    private static int udp6Checksum(ByteBuffer r, int ip, int udp, int udpLength) {
        long sum = 0;
        for (int i = 0; i < 32; i += 2) {
            sum += r.getShort(ip + 8 + i) & 0xFFFF;
        }
        sum += udpLength + 17;
        for (int i = 0; i < udpLength; i += 2) {
            int hi = r.get(udp + i) & 0xFF;
            int lo = i + 1 < udpLength ? r.get(udp + i + 1) & 0xFF : 0;
            sum += hi << 8 | lo;
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int c = (int) ~sum & 0xFFFF;
        return c == 0 ? 0xFFFF : c;
    }

    IOException failure() {
        return failure;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
