package io.jndk.iwarp.pcap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict reader of what {@link PcapWriter} produces: classic pcap, Ethernet, IPv4 or IPv6,
 * TCP without options. Verifies checksums and per-direction sequence continuity while reading.
 */
public final class PcapFile {

    /** One packet. */
    public record Packet(String direction, int flags, long seq, long ack, byte[] payload) {
    }

    final int linkType;
    final int snaplen;
    public final List<Packet> packets = new ArrayList<>();
    final Map<String, ByteArrayOutputStream> streams = new LinkedHashMap<>();
    public final List<String> problems = new ArrayList<>();

    private final Map<String, Long> next = new LinkedHashMap<>();

    private PcapFile(ByteBuffer b) {
        b.order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != PcapWriter.MAGIC || b.getShort(4) != 2 || b.getShort(6) != 4) {
            throw new IllegalArgumentException("not a little-endian microsecond pcap 2.4 file");
        }
        snaplen = b.getInt(16);
        linkType = b.getInt(20);
        b.position(24);
        while (b.remaining() >= 16) {
            b.order(ByteOrder.LITTLE_ENDIAN);
            b.getInt();
            int usec = b.getInt();
            int incl = b.getInt();
            int orig = b.getInt();
            if (usec < 0 || usec >= 1_000_000 || incl != orig || incl > b.remaining()) {
                problems.add("bad record header at " + (b.position() - 16));
                return;
            }
            ByteBuffer frame = b.slice(b.position(), incl).order(ByteOrder.BIG_ENDIAN);
            b.position(b.position() + incl);
            parseEthernet(frame);
        }
        if (b.hasRemaining()) {
            problems.add(b.remaining() + " trailing octets");
        }
    }

    public static PcapFile read(Path file) throws IOException {
        return new PcapFile(ByteBuffer.wrap(Files.readAllBytes(file)));
    }

    public byte[] stream(String direction) {
        ByteArrayOutputStream s = streams.get(direction);
        return s == null ? new byte[0] : s.toByteArray();
    }

    private void parseEthernet(ByteBuffer f) {
        int type = f.getShort(12) & 0xFFFF;
        int ip = 14;
        String src;
        String dst;
        int tcp;
        long pseudo;
        int tcpLength;
        if (type == 0x0800) {
            if (f.get(ip) != 0x45 || checksum(f, ip, 20, 0) != 0) {
                problems.add("bad IPv4 header");
            }
            int total = f.getShort(ip + 2) & 0xFFFF;
            tcpLength = total - 20;
            src = addr(f, ip + 12, 4);
            dst = addr(f, ip + 16, 4);
            pseudo = words(f, ip + 12, 8) + 6 + tcpLength;
            tcp = ip + 20;
        } else if (type == 0x86DD) {
            tcpLength = f.getShort(ip + 4) & 0xFFFF;
            src = addr(f, ip + 8, 16);
            dst = addr(f, ip + 24, 16);
            pseudo = words(f, ip + 8, 32) + 6 + tcpLength;
            tcp = ip + 40;
        } else {
            problems.add("ethertype " + Integer.toHexString(type));
            return;
        }
        if (tcp + tcpLength != f.limit()) {
            problems.add("IP length does not match the frame");
            return;
        }
        if (checksum(f, tcp, tcpLength, pseudo) != 0) {
            problems.add("bad TCP checksum");
        }
        String direction = src + ":" + (f.getShort(tcp) & 0xFFFF) + ">" + dst + ":" + (f.getShort(tcp + 2) & 0xFFFF);
        long seq = f.getInt(tcp + 4) & 0xFFFFFFFFL;
        long ack = f.getInt(tcp + 8) & 0xFFFFFFFFL;
        int flags = f.get(tcp + 13) & 0xFF;
        byte[] payload = new byte[tcpLength - 20];
        f.get(tcp + 20, payload);
        packets.add(new Packet(direction, flags, seq, ack, payload));
        Long expected = next.get(direction);
        if (expected != null && expected != seq) {
            problems.add(direction + ": sequence " + seq + " where " + expected + " was expected");
        }
        int advance = payload.length + ((flags & 0x03) != 0 ? 1 : 0);
        next.put(direction, (seq + advance) & 0xFFFFFFFFL);
        streams.computeIfAbsent(direction, k -> new ByteArrayOutputStream()).writeBytes(payload);
    }

    private static String addr(ByteBuffer f, int index, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            s.append(i == 0 ? "" : ".").append(f.get(index + i) & 0xFF);
        }
        return s.toString();
    }

    private static long words(ByteBuffer f, int index, int length) {
        long s = 0;
        for (int i = 0; i < length; i += 2) {
            s += f.getShort(index + i) & 0xFFFF;
        }
        return s;
    }

    /** 0 when the covered octets (including their checksum field) are consistent. */
    private static int checksum(ByteBuffer f, int index, int length, long initial) {
        long s = initial + words(f, index, length & ~1);
        if ((length & 1) != 0) {
            s += (f.get(index + length - 1) & 0xFF) << 8;
        }
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) (~s & 0xFFFF);
    }
}
