package io.jndk.roce.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Minimal capture reader for tests: classic pcap (both byte orders, micro and nanosecond magics) and pcapng
 * (section header, interface description, enhanced and simple packet blocks); link types Ethernet (1, with 802.1Q
 * tags) and Linux cooked SLL (113); IPv4 (any IHL) and IPv6 (no extension headers); keeps the UDP datagrams to
 * port 4791.
 */
public final class Pcap {

    /** The test resources' directory of captures. */
    public static final String TESTDATA = "/io/jndk/roce/testdata/";

    /**
     * One UDP datagram to port 4791 as captured.
     *
     * @param file the capture's file name
     * @param frame the frame's number in the file, from 1 as tshark counts
     * @param bytes the whole frame
     * @param ipOffset index of the IP header
     * @param ipVersion 4 or 6
     * @param udpOffset index of the UDP header
     */
    public record Datagram(String file, int frame, byte[] bytes, int ipOffset, int ipVersion, int udpOffset) {

        /** @return the frame as a big-endian buffer */
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes);
        }

        /** @return index of the UDP payload (the BTH) */
        public int payloadOffset() {
            return udpOffset + 8;
        }

        /** @return the UDP payload's length, from the UDP header */
        public int payloadLength() {
            return (((bytes[udpOffset + 4] & 0xFF) << 8) | (bytes[udpOffset + 5] & 0xFF)) - 8;
        }

        /** @return the UDP payload's octets */
        public byte[] payload() {
            byte[] p = new byte[payloadLength()];
            System.arraycopy(bytes, payloadOffset(), p, 0, p.length);
            return p;
        }

        /** @return the UDP source port */
        public int sourcePort() {
            return ((bytes[udpOffset] & 0xFF) << 8) | (bytes[udpOffset + 1] & 0xFF);
        }

        @Override
        public String toString() {
            return file + " frame " + frame;
        }
    }

    private Pcap() {
    }

    /**
     * @param name a capture's file name in the test resources
     * @return its RoCEv2 UDP datagrams, in file order
     */
    public static List<Datagram> read(String name) {
        try (InputStream in = Pcap.class.getResourceAsStream(TESTDATA + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + TESTDATA + name);
            }
            return parse(name, ByteBuffer.wrap(in.readAllBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the file names of every capture in the test resources, sorted */
    public static List<String> captures() {
        URL dir = Pcap.class.getResource(TESTDATA);
        if (dir == null) {
            throw new IllegalStateException("no test resource directory " + TESTDATA);
        }
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap") || n.endsWith(".pcapng")).sorted()
                .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Datagram> parse(String name, ByteBuffer b) {
        List<Datagram> out = new ArrayList<>();
        int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic == 0x0A0D0D0A) {
            pcapng(name, b, out);
            return out;
        }
        if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
            b.order(ByteOrder.BIG_ENDIAN);
            magic = b.getInt(0);
            if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
                throw new IllegalArgumentException(name + ": neither pcap nor pcapng");
            }
        }
        int linkType = b.getInt(20) & 0x0FFFFFFF;
        int at = 24;
        int frame = 0;
        while (at + 16 <= b.limit()) {
            int captured = b.getInt(at + 8);
            int original = b.getInt(at + 12);
            if (captured != original) {
                throw new IllegalStateException(name + ": frame " + (frame + 1) + " truncated by the capture");
            }
            byte[] data = new byte[captured];
            b.get(at + 16, data);
            link(name, ++frame, linkType, data, out);
            at += 16 + captured;
        }
        return out;
    }

    private static void pcapng(String name, ByteBuffer b, List<Datagram> out) {
        List<Integer> linkTypes = new ArrayList<>();
        int at = 0;
        int frame = 0;
        while (at + 12 <= b.limit()) {
            int type = b.getInt(at);
            if (type == 0x0A0D0D0A) { // the same in both byte orders; the byte-order magic tells
                b.order(ByteOrder.LITTLE_ENDIAN);
                b.order(b.getInt(at + 8) == 0x1A2B3C4D ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
                linkTypes.clear();
            }
            int length = b.getInt(at + 4);
            if (length < 12 || at + length > b.limit()) {
                throw new IllegalStateException(name + ": bad pcapng block at " + at);
            }
            switch (type) {
                case 1 -> linkTypes.add(b.getShort(at + 8) & 0xFFFF);
                case 6 -> {
                    int iface = b.getInt(at + 8);
                    int captured = b.getInt(at + 20);
                    int original = b.getInt(at + 24);
                    if (captured != original) {
                        throw new IllegalStateException(name + ": frame " + (frame + 1) + " truncated by the capture");
                    }
                    byte[] data = new byte[captured];
                    b.get(at + 28, data);
                    link(name, ++frame, linkTypes.get(iface), data, out);
                }
                case 3 -> {
                    byte[] data = new byte[Math.min(b.getInt(at + 8), length - 16)];
                    b.get(at + 12, data);
                    link(name, ++frame, linkTypes.get(0), data, out);
                }
                default -> {
                    // section header, statistics, name resolution, custom: nothing to keep
                }
            }
            at += length;
        }
    }

    private static void link(String name, int frame, int linkType, byte[] data, List<Datagram> out) {
        ByteBuffer p = ByteBuffer.wrap(data);
        int off;
        int type;
        switch (linkType) {
            case 1 -> {
                off = 12;
                type = p.getShort(off) & 0xFFFF;
                while (type == 0x8100 || type == 0x88a8) {
                    off += 4;
                    type = p.getShort(off) & 0xFFFF;
                }
                off += 2;
            }
            case 113 -> {
                type = p.getShort(14) & 0xFFFF;
                off = 16;
            }
            default -> throw new IllegalArgumentException(name + ": unsupported link type " + linkType);
        }
        int udp;
        int version;
        if (type == 0x0800) {
            if (p.get(off + 9) != 17) {
                return;
            }
            udp = off + (p.get(off) & 0x0F) * 4;
            version = 4;
        } else if (type == 0x86dd) {
            if (p.get(off + 6) != 17) {
                return;
            }
            udp = off + 40;
            version = 6;
        } else {
            return;
        }
        if ((p.getShort(udp + 2) & 0xFFFF) == Icrc.ROCE_V2_PORT) {
            out.add(new Datagram(name, frame, data, off, version, udp));
        }
    }
}
