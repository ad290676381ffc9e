package io.jndk.iwarp.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Minimal classic-pcap reader with per-direction TCP reassembly, for tests. Supports both byte
 * orders and micro/nanosecond magics; link types Ethernet (1, with 802.1Q tags), Linux cooked
 * SLL (113) and SLL2 (276), raw IP (101) and BSD null/loopback (0); IPv4 and IPv6 (no extension headers).
 */
final class Pcap {

    /** One TCP direction: its reassembled bytes and the segment boundaries as captured. */
    static final class Direction {
        final String key;
        final String reverseKey;
        final List<long[]> segments = new ArrayList<>(); // {seq, index into payloads}
        final List<byte[]> payloads = new ArrayList<>();
        Long isn;
        byte[] bytes;
        int[] boundaries;
        int duplicates;

        Direction(String key, String reverseKey) {
            this.key = key;
            this.reverseKey = reverseKey;
        }
    }

    /** A TCP connection as two directions, the initiator's first. */
    record Connection(String name, Direction initiator, Direction responder) {
    }

    private final Map<String, Direction> directions = new LinkedHashMap<>();

    static Pcap read(Path file) throws IOException {
        Pcap pcap = new Pcap();
        pcap.parse(ByteBuffer.wrap(Files.readAllBytes(file)));
        pcap.reassemble();
        return pcap;
    }

    private void parse(ByteBuffer b) {
        int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
            b.order(ByteOrder.BIG_ENDIAN);
            magic = b.getInt(0);
            if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
                throw new IllegalArgumentException("not a classic pcap file");
            }
        }
        int linkType = b.getInt(20) & 0x0FFFFFFF;
        int at = 24;
        while (at + 16 <= b.limit()) {
            int captured = b.getInt(at + 8);
            int original = b.getInt(at + 12);
            if (captured != original) {
                throw new IllegalStateException("truncated packet at file offset " + at);
            }
            ByteBuffer packet = b.slice(at + 16, captured).order(ByteOrder.BIG_ENDIAN);
            link(linkType, packet);
            at += 16 + captured;
        }
    }

    private void link(int linkType, ByteBuffer p) {
        switch (linkType) {
            case 1 -> {
                int off = 12;
                int type = p.getShort(off) & 0xFFFF;
                while (type == 0x8100 || type == 0x88a8) {
                    off += 4;
                    type = p.getShort(off) & 0xFFFF;
                }
                ip(type, p.slice(off + 2, p.limit() - off - 2));
            }
            case 113 -> ip(p.getShort(14) & 0xFFFF, p.slice(16, p.limit() - 16));
            case 276 -> ip(p.getShort(0) & 0xFFFF, p.slice(20, p.limit() - 20));
            case 101 -> ip((p.get(0) & 0xF0) == 0x60 ? 0x86dd : 0x0800, p);
            case 0 -> ip((p.get(4) & 0xF0) == 0x60 ? 0x86dd : 0x0800, p.slice(4, p.limit() - 4));
            default -> throw new IllegalArgumentException("unsupported link type " + linkType);
        }
    }

    private void ip(int etherType, ByteBuffer p) {
        String src;
        String dst;
        ByteBuffer tcp;
        if (etherType == 0x0800) {
            int ihl = (p.get(0) & 0x0F) * 4;
            int total = p.getShort(2) & 0xFFFF;
            if (p.get(9) != 6) {
                return;
            }
            src = ipv4(p, 12);
            dst = ipv4(p, 16);
            tcp = p.slice(ihl, total - ihl);
        } else if (etherType == 0x86dd) {
            int payload = p.getShort(4) & 0xFFFF;
            if (p.get(6) != 6) {
                return;
            }
            src = ipv6(p, 8);
            dst = ipv6(p, 24);
            tcp = p.slice(40, payload);
        } else {
            return;
        }
        int srcPort = tcp.getShort(0) & 0xFFFF;
        int dstPort = tcp.getShort(2) & 0xFFFF;
        long seq = tcp.getInt(4) & 0xFFFFFFFFL;
        int dataOffset = ((tcp.get(12) & 0xF0) >>> 4) * 4;
        boolean syn = (tcp.get(13) & 0x02) != 0;
        String key = src + ":" + srcPort + ">" + dst + ":" + dstPort;
        String reverse = dst + ":" + dstPort + ">" + src + ":" + srcPort;
        Direction d = directions.computeIfAbsent(key, k -> new Direction(k, reverse));
        if (syn) {
            d.isn = seq + 1;
            d.segments.clear();
            d.payloads.clear();
        }
        int length = tcp.limit() - dataOffset;
        if (length > 0) {
            byte[] data = new byte[length];
            tcp.get(dataOffset, data);
            d.segments.add(new long[] {seq, d.payloads.size()});
            d.payloads.add(data);
        }
    }

    private static String ipv4(ByteBuffer p, int at) {
        return (p.get(at) & 0xFF) + "." + (p.get(at + 1) & 0xFF) + "." + (p.get(at + 2) & 0xFF) + "." + (p.get(at + 3) & 0xFF);
    }

    private static String ipv6(ByteBuffer p, int at) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 16; i += 2) {
            sb.append(Integer.toHexString(p.getShort(at + i) & 0xFFFF)).append(i < 14 ? ":" : "]");
        }
        return sb.toString();
    }

    private void reassemble() {
        for (Direction d : directions.values()) {
            long base = d.isn != null ? d.isn : d.segments.isEmpty() ? 0 : d.segments.get(0)[0];
            List<long[]> ordered = new ArrayList<>(d.segments);
            ordered.sort(Comparator.comparingLong(s -> (s[0] - base) & 0xFFFFFFFFL));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Integer> bounds = new ArrayList<>();
            long next = 0;
            for (long[] s : ordered) {
                byte[] data = d.payloads.get((int) s[1]);
                long rel = (s[0] - base) & 0xFFFFFFFFL;
                if (rel > next) {
                    throw new IllegalStateException(d.key + ": gap in the TCP stream at relative seq " + next);
                }
                long skip = next - rel;
                if (skip >= data.length) {
                    d.duplicates++;
                    continue;
                }
                out.write(data, (int) skip, data.length - (int) skip);
                next += data.length - skip;
                bounds.add((int) next);
            }
            d.bytes = out.toByteArray();
            d.boundaries = bounds.stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** @return connections whose initiator direction was seen first (by SYN order of appearance) */
    List<Connection> connections() {
        List<Connection> result = new ArrayList<>();
        List<String> done = new ArrayList<>();
        for (Direction d : directions.values()) {
            if (done.contains(d.key)) {
                continue;
            }
            Direction reverse = directions.get(d.reverseKey);
            done.add(d.key);
            done.add(d.reverseKey);
            Direction empty = new Direction(d.reverseKey, d.key);
            empty.bytes = new byte[0];
            empty.boundaries = new int[0];
            result.add(new Connection(d.key, d, reverse != null ? reverse : empty));
        }
        return result;
    }
}
