package io.jndk.roce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.roce.codec.Icrc;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link FrameLink} against a fake QEMU peer on 127.0.0.1: ARP answered and resolved (packets held, then released,
 * bounded, expired), the IPv4/UDP headers and ICRC of sent frames checked independently of the link (a CRC-32 over
 * the masked octets written out here, and {@link Icrc#ipv4Frame}), frames of the real rxe captures accepted with
 * their ICRC good and a corrupted copy dropped as bad, and everything that is not RoCEv2 for this station dropped
 * and counted.
 */
@Timeout(60)
class FrameLinkTest {
    /** The counters one arriving frame moves exactly one of (a returned packet counts as ICRC good). */
    static final Set<FrameCounter> RECEIVE_COUNTERS = EnumSet.of(FrameCounter.ICRC_GOOD, FrameCounter.ICRC_BAD,
        FrameCounter.ARP_REQUESTS_IN, FrameCounter.ARP_REPLIES_IN, FrameCounter.ARP_OTHER,
        FrameCounter.OTHER_ETHERTYPE, FrameCounter.NOT_FOR_US, FrameCounter.NOT_ROCE, FrameCounter.MALFORMED,
        FrameCounter.IP_OPTIONS, FrameCounter.FRAGMENTS, FrameCounter.IP_CHECKSUM_BAD, FrameCounter.UDP_CHECKSUM_BAD,
        FrameCounter.TOO_LONG);

    // ------------------------------------------------------------------------------------------------------- ARP

    @Test
    void anArpRequestForTheLinksAddressIsAnsweredAndOneForAnotherIsNot() throws IOException {
        try (FramePeer p = new FramePeer()) {
            ByteBuffer in = ByteBuffer.allocate(65536);
            p.send(arp(1, FrameLink.BROADCAST, FramePeer.GUEST_MAC, ip(FramePeer.GUEST_IP), 0, ip(FramePeer.ip("192.0.2.9"))));
            p.send(arp(1, FrameLink.BROADCAST, FramePeer.GUEST_MAC, ip(FramePeer.GUEST_IP), 0, ip(FramePeer.LINK_IP)));
            assertThat(p.receive(in, 2, p::received)).isEqualTo(-1);
            byte[] reply = p.next();
            assertThat(reply).isNotNull().hasSize(60);
            ByteBuffer r = ByteBuffer.wrap(reply);
            assertThat(mac(r, 0)).isEqualTo(FramePeer.GUEST_MAC);
            assertThat(mac(r, 6)).isEqualTo(FramePeer.LINK_MAC);
            assertThat(r.getShort(12) & 0xFFFF).isEqualTo(0x0806);
            assertThat(r.getLong(14)).isEqualTo(0x0001_0800_0604_0002L); // Ethernet, IPv4, 6, 4, reply
            assertThat(mac(r, 22)).isEqualTo(FramePeer.LINK_MAC);
            assertThat(r.getInt(28)).isEqualTo(ip(FramePeer.LINK_IP));
            assertThat(mac(r, 32)).isEqualTo(FramePeer.GUEST_MAC);
            assertThat(r.getInt(38)).isEqualTo(ip(FramePeer.GUEST_IP));
            assertThat(p.link.counter(FrameCounter.ARP_REQUESTS_IN)).isEqualTo(1);
            assertThat(p.link.counter(FrameCounter.ARP_OTHER)).isEqualTo(1);
            assertThat(p.link.neighbour(FramePeer.GUEST_IP)).isEqualTo(FramePeer.GUEST_MAC);
        }
    }

    @Test
    void packetsToAnUnknownDestinationAreHeldUntilTheArpReplyThenSentInOrder() throws IOException {
        // a clock that stands still: a loaded machine taking longer than the ARP retry would otherwise put a second
        // request where the held packets are expected
        AtomicLong now = new AtomicLong(1_000_000_000L);
        try (FramePeer p = new FramePeer(FramePeer.LINK_MAC, FramePeer.LINK_IP, FrameLink.DEFAULT_HOLD, now::get)) {
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ByteBuffer payload = payload(new Random(i), 64 + i * 4);
                sent.add(payload.array());
                assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000 + i, payload, 0, payload.capacity())).isTrue();
            }
            byte[] request = p.next();
            ByteBuffer q = ByteBuffer.wrap(request);
            assertThat(mac(q, 0)).isEqualTo(FrameLink.BROADCAST);
            assertThat(q.getShort(20)).isEqualTo((short) 1);
            assertThat(q.getInt(28)).isEqualTo(ip(FramePeer.LINK_IP));
            assertThat(q.getInt(38)).isEqualTo(ip(FramePeer.GUEST_IP));
            assertThat(p.link.counter(FrameCounter.HELD)).isEqualTo(3);
            assertThat(p.link.counter(FrameCounter.ARP_REQUESTS_OUT)).isEqualTo(1);

            p.send(arp(2, FramePeer.LINK_MAC, FramePeer.GUEST_MAC, ip(FramePeer.GUEST_IP), FramePeer.LINK_MAC,
                ip(FramePeer.LINK_IP)));
            assertThat(p.receive(ByteBuffer.allocate(65536), 1, p::received)).isEqualTo(-1);
            for (int i = 0; i < 3; i++) {
                byte[] f = p.next();
                assertThat(f).as("held packet %d", i).isNotNull();
                checkRoceFrame(f, FramePeer.GUEST_MAC, 0xC000 + i, i + 1, sent.get(i));
            }
            assertThat(p.link.counter(FrameCounter.HELD_SENT)).isEqualTo(3);
            assertThat(p.link.sendDrops()).isZero();
        }
    }

    @Test
    void holdingIsBoundedPerDestinationAndEndsAfterTheWait() throws IOException {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        try (FramePeer p = new FramePeer(FramePeer.LINK_MAC, FramePeer.LINK_IP, 2, now::get)) {
            ByteBuffer payload = payload(new Random(1), 64);
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, payload, 0, 64)).isTrue();
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, payload, 0, 64)).isTrue();
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, payload, 0, 64)).isFalse();
            assertThat(p.link.counter(FrameCounter.HELD_OVERFLOW)).isEqualTo(1);
            assertThat(p.next()).isNotNull(); // the ARP request
            now.addAndGet(FrameLink.ARP_RETRY_MILLIS * 1_000_000L);
            p.link.receive(ByteBuffer.allocate(65536));
            assertThat(p.next()).as("the ARP request resent").isNotNull();
            assertThat(p.link.counter(FrameCounter.ARP_REQUESTS_OUT)).isEqualTo(2);
            now.addAndGet((FrameLink.HOLD_MILLIS - FrameLink.ARP_RETRY_MILLIS) * 1_000_000L);
            p.link.receive(ByteBuffer.allocate(65536));
            assertThat(p.link.counter(FrameCounter.HELD_EXPIRED)).isEqualTo(2);
            assertThat(p.link.sendDrops()).isEqualTo(3);
            // a late reply resolves the address but sends nothing; the next packet goes straight out
            p.send(arp(2, FramePeer.LINK_MAC, FramePeer.GUEST_MAC, ip(FramePeer.GUEST_IP), FramePeer.LINK_MAC,
                ip(FramePeer.LINK_IP)));
            p.receive(ByteBuffer.allocate(65536), 1, p::received);
            assertThat(p.link.counter(FrameCounter.HELD_SENT)).isZero();
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC001, payload, 0, 64)).isTrue();
            byte[] f = p.next();
            assertThat(f).isNotNull();
            assertThat(ByteBuffer.wrap(f).getShort(12)).as("an IPv4 frame, not ARP").isEqualTo((short) 0x0800);
        }
    }

    // ---------------------------------------------------------------------------------------------------- sending

    @Test
    void sentFramesCarryRxesHeadersAndAnIcrcOverThem() throws IOException {
        try (FramePeer p = new FramePeer()) {
            resolveGuest(p);
            Random random = new Random(0x5eed);
            for (int i = 0; i < 50; i++) {
                int length = 16 + 4 * random.nextInt(300);
                ByteBuffer payload = payload(random, length + 8);
                int offset = 4 * random.nextInt(2);
                byte[] expected = Arrays.copyOfRange(payload.array(), offset, offset + length);
                int sourcePort = 0xC000 + random.nextInt(0x4000);
                assertThat(p.link.send(FramePeer.GUEST_IP, sourcePort, payload, offset, length)).isTrue();
                byte[] f = p.next();
                assertThat(f).isNotNull();
                int crc = checkRoceFrame(f, FramePeer.GUEST_MAC, sourcePort, i + 1, expected);
                assertThat(payload.order(ByteOrder.LITTLE_ENDIAN).getInt(offset + length - 4))
                    .as("the ICRC written into the caller's buffer too").isEqualTo(crc);
                payload.order(ByteOrder.BIG_ENDIAN);
            }
            assertThat(p.link.counter(FrameCounter.FRAMES_OUT)).isEqualTo(50);
        }
    }

    @Test
    void packetsOverTheMtuOrTooShortAreNotSent() throws IOException {
        try (FramePeer p = new FramePeer()) {
            resolveGuest(p);
            ByteBuffer big = ByteBuffer.allocate(2048);
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, big, 0, FrameLink.DEFAULT_IP_MTU - 28 + 4)).isFalse();
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, big, 0, 12)).isFalse();
            assertThat(p.link.send(FramePeer.ip("2001:db8::2"), 0xC000, big, 0, 64)).isFalse();
            assertThat(p.link.counter(FrameCounter.OVERSIZE)).isEqualTo(2);
            assertThat(p.link.counter(FrameCounter.ADDRESS_FAMILY)).isEqualTo(1);
            assertThat(p.link.sendDrops()).isEqualTo(3);
            assertThat(p.link.send(FramePeer.GUEST_IP, 0xC000, big, 0, FrameLink.DEFAULT_IP_MTU - 28)).isTrue();
            assertThat(p.next()).hasSize(14 + FrameLink.DEFAULT_IP_MTU);
        }
    }

    // -------------------------------------------------------------------------------------------------- receiving

    /** Captures made inside guest A (192.0.2.10, 52:54:00:00:02:0a) and the dgram capture (guest .10, host .1). */
    @ParameterizedTest(name = "{0} as {1}")
    @CsvSource({
        "pair_rping.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_write_s4096_n20_R.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_read_s4096_n20.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_atomic_cs_n20.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_send_ud_s1024_n20.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_write_bw_R_s65536_n100_head300.pcap, 192.0.2.10, 52:54:00:00:02:0a",
        "pair_rping.pcap, 192.0.2.11, 52:54:00:00:02:0b",
        "dgram_guest_eth0.pcap, 192.0.2.1, 02:00:00:00:02:01",
        "dgram_guest_eth0.pcap, 192.0.2.10, 52:54:00:00:02:0a"})
    void rxeFramesFromTheCapturesAreAcceptedWithTheirPayloadAndSource(String file, String address, String mac)
        throws IOException {
        InetAddress self = FramePeer.ip(address);
        List<byte[]> frames = FramePcap.frames(file);
        try (FramePeer p = new FramePeer(FrameLink.mac(file, mac), self, FrameLink.DEFAULT_HOLD, System::nanoTime)) {
            ByteBuffer in = ByteBuffer.allocate(65536);
            int expectedGood = 0;
            int expectedBad = 0;
            for (byte[] f : frames) {
                ByteBuffer b = ByteBuffer.wrap(f);
                boolean roce = b.getShort(12) == 0x0800 && b.get(23) == 17 && (b.getShort(36) & 0xFFFF) == 4791
                    && b.getInt(30) == ip(self) && mac(b, 0) == p.link.mac();
                boolean good = roce && icrcOf(f) == Icrc.read(b, 42, (b.getShort(38) & 0xFFFF) - 8);
                long before = p.received();
                p.send(f);
                int n = p.receive(in, before + 1, p::received);
                if (good) {
                    expectedGood++;
                    int udpLength = b.getShort(38) & 0xFFFF;
                    assertThat(n).isEqualTo(udpLength - 8);
                    assertThat(Arrays.copyOfRange(in.array(), 0, n)).isEqualTo(Arrays.copyOfRange(f, 42, 42 + n));
                    assertThat(ip(p.link.source())).isEqualTo(b.getInt(26));
                } else {
                    assertThat(n).isEqualTo(-1);
                    if (roce) {
                        expectedBad++;
                    }
                }
                assertThat(p.received()).isEqualTo(before + 1);
            }
            assertThat(expectedGood).isPositive();
            assertThat(p.link.icrcGood()).isEqualTo(expectedGood);
            assertThat(p.link.icrcBad()).isEqualTo(expectedBad);
            if (file.startsWith("dgram")) {
                // the corrupted REQ the peer injected (frame 3) is for .10; every other RoCEv2 frame is good
                assertThat(expectedBad).isEqualTo(address.equals("192.0.2.10") ? 1 : 0);
            }
        }
    }

    @Test
    void aCapturedFrameWithAFlippedBitOrAChangedIdentificationIsDroppedAsIcrcBad() throws IOException {
        byte[] rep = roceFrameTo(FramePcap.frames("dgram_guest_eth0.pcap"), "192.0.2.1");
        try (FramePeer p = new FramePeer()) {
            ByteBuffer in = ByteBuffer.allocate(65536);
            p.send(rep);
            assertThat(p.receive(in, 1, p::received)).isPositive();
            byte[] flipped = rep.clone();
            flipped[42 + 40] ^= 0x10; // inside the MAD
            p.send(flipped);
            assertThat(p.receive(in, 2, p::received)).isEqualTo(-1);
            byte[] renumbered = rep.clone();
            renumbered[18] ^= 0x01; // the IPv4 identification, header checksum fixed: only the ICRC can tell
            ByteBuffer r = ByteBuffer.wrap(renumbered);
            r.putShort(24, (short) 0);
            r.putShort(24, (short) ~FrameLink.sum(r, 14, 20, 0));
            p.send(renumbered);
            assertThat(p.receive(in, 3, p::received)).isEqualTo(-1);
            assertThat(p.link.icrcGood()).isEqualTo(1);
            assertThat(p.link.icrcBad()).isEqualTo(2);
        }
    }

    @Test
    void framesThatAreNotRoceForThisStationAreDroppedEachUnderItsCounter() throws IOException {
        byte[] rep = roceFrameTo(FramePcap.frames("dgram_guest_eth0.pcap"), "192.0.2.1");
        try (FramePeer p = new FramePeer()) {
            ByteBuffer in = ByteBuffer.allocate(65536);
            List<Object[]> cases = new ArrayList<>();
            cases.add(new Object[] {edit(rep, b -> b.putShort(12, (short) 0x86dd)), FrameCounter.OTHER_ETHERTYPE});
            cases.add(new Object[] {edit(rep, b -> b.put(5, (byte) 0x99)), FrameCounter.NOT_FOR_US});
            cases.add(new Object[] {ipEdit(rep, b -> b.put(33, (byte) 9)), FrameCounter.NOT_FOR_US});
            cases.add(new Object[] {ipEdit(rep, b -> b.put(23, (byte) 6)), FrameCounter.NOT_ROCE});
            cases.add(new Object[] {edit(rep, b -> b.putShort(36, (short) 4792)), FrameCounter.NOT_ROCE});
            cases.add(new Object[] {ipEdit(rep, b -> b.put(14, (byte) 0x46)), FrameCounter.IP_OPTIONS});
            cases.add(new Object[] {ipEdit(rep, b -> b.putShort(20, (short) 0x2000)), FrameCounter.FRAGMENTS});
            cases.add(new Object[] {ipEdit(rep, b -> b.putShort(20, (short) 0x4001)), FrameCounter.FRAGMENTS});
            cases.add(new Object[] {edit(rep, b -> b.put(22, (byte) 63)), FrameCounter.IP_CHECKSUM_BAD});
            cases.add(new Object[] {edit(rep, b -> b.putShort(40, (short) 0x1234)), FrameCounter.UDP_CHECKSUM_BAD});
            cases.add(new Object[] {Arrays.copyOf(rep, 100), FrameCounter.MALFORMED});
            cases.add(new Object[] {Arrays.copyOf(rep, 13), FrameCounter.MALFORMED});
            cases.add(new Object[] {edit(rep, b -> b.putShort(38, (short) 20)), FrameCounter.MALFORMED});
            cases.add(new Object[] {Arrays.copyOf(arp(1, FrameLink.BROADCAST, FramePeer.GUEST_MAC, 1, 0,
                ip(FramePeer.LINK_IP)), 30), FrameCounter.MALFORMED});
            for (int i = 0; i < cases.size(); i++) {
                FrameCounter counter = (FrameCounter) cases.get(i)[1];
                long before = p.link.counter(counter);
                p.send((byte[]) cases.get(i)[0]);
                assertThat(p.receive(in, i + 1, p::received)).as("case %d (%s)", i, counter).isEqualTo(-1);
                assertThat(p.link.counter(counter)).as("case %d (%s)", i, counter).isEqualTo(before + 1);
            }
            assertThat(p.link.icrcGood() + p.link.icrcBad()).isZero();
            // a correct UDP checksum is accepted
            byte[] summed = edit(rep, b -> {
                int udpLength = b.getShort(38) & 0xFFFF;
                int pseudo = (b.getShort(26) & 0xFFFF) + (b.getShort(28) & 0xFFFF) + (b.getShort(30) & 0xFFFF)
                    + (b.getShort(32) & 0xFFFF) + 17 + udpLength;
                b.putShort(40, (short) ~FrameLink.sum(b, 34, udpLength, pseudo));
            });
            p.send(summed);
            assertThat(p.receive(in, cases.size() + 1, p::received)).isPositive();
        }
    }

    @Test
    void aPayloadLongerThanTheCallersBufferIsDropped() throws IOException {
        byte[] rep = roceFrameTo(FramePcap.frames("dgram_guest_eth0.pcap"), "192.0.2.1");
        try (FramePeer p = new FramePeer()) {
            p.send(rep);
            assertThat(p.receive(ByteBuffer.allocate(100), 1, p::received)).isEqualTo(-1);
            assertThat(p.link.counter(FrameCounter.TOO_LONG)).isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------------------------------------------- options

    @Test
    void theOptionNamesThePortsAndTheMac() throws IOException {
        try (FrameLink l = FrameLink.open("dgram:0:24792".replace(":0:", ":" + freePort() + ":"), FramePeer.LINK_IP)) {
            assertThat(l.mac()).isEqualTo(0x0200_c000_0201L);
            assertThat(l.icrcExact()).isTrue();
            assertThat(l.localAddress()).isEqualTo(FramePeer.LINK_IP);
            assertThat(l.toString()).contains("02:00:c0:00:02:01", "-> 127.0.0.1:24792");
        }
        try (FrameLink l = FrameLink.open("dgram:" + freePort() + ":24792:02-11-22-33-44-55", FramePeer.LINK_IP)) {
            assertThat(l.mac()).isEqualTo(0x0211_2233_4455L);
        }
        for (String bad : new String[] {"dgram", "dgram:1", "udp:1:2", "dgram:x:2", "dgram:1:70000", "dgram:1:2:03:00:00:00:00:01",
            "dgram:1:2:02:00:00:00:01", "dgram:1:2:zz:00:00:00:00:01"}) {
            assertThatThrownBy(() -> FrameLink.open(bad, FramePeer.LINK_IP)).as(bad)
                .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> FrameLink.open("dgram:1:2", FramePeer.ip("2001:db8::1")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("IPv4");
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    private static int freePort() throws IOException {
        try (java.nio.channels.DatagramChannel c = java.nio.channels.DatagramChannel.open()) {
            c.bind(new java.net.InetSocketAddress(FramePeer.ip("127.0.0.1"), 0));
            return ((java.net.InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    static void resolveGuest(FramePeer p) throws IOException {
        p.send(arp(1, FrameLink.BROADCAST, FramePeer.GUEST_MAC, ip(FramePeer.GUEST_IP), 0, ip(FramePeer.LINK_IP)));
        p.receive(ByteBuffer.allocate(65536), p.received() + 1, p::received);
        assertThat(p.next()).as("the ARP reply").isNotNull();
        assertThat(p.link.neighbour(FramePeer.GUEST_IP)).isEqualTo(FramePeer.GUEST_MAC);
    }

    /** The first IPv4/UDP 4791 frame of a capture to {@code address}. */
    static byte[] roceFrameTo(List<byte[]> frames, String address) {
        int want = ip(FramePeer.ip(address));
        for (byte[] f : frames) {
            ByteBuffer b = ByteBuffer.wrap(f);
            if (b.getShort(12) == 0x0800 && b.get(23) == 17 && (b.getShort(36) & 0xFFFF) == 4791 && b.getInt(30) == want) {
                return f;
            }
        }
        throw new AssertionError("no RoCEv2 frame to " + address);
    }

    private static byte[] edit(byte[] frame, java.util.function.Consumer<ByteBuffer> change) {
        byte[] f = frame.clone();
        change.accept(ByteBuffer.wrap(f));
        return f;
    }

    /** An edit of the IPv4 header with its checksum made right again. */
    private static byte[] ipEdit(byte[] frame, java.util.function.Consumer<ByteBuffer> change) {
        return edit(frame, b -> {
            change.accept(b);
            b.putShort(24, (short) 0);
            b.putShort(24, (short) ~FrameLink.sum(b, 14, 20, 0));
        });
    }

    /**
     * Checks a RoCEv2 frame the link sent, field by field, as rxe builds them, and its ICRC twice: with a CRC-32
     * over the masked octets computed here, and with {@link Icrc#ipv4Frame}.
     *
     * @return the ICRC
     */
    static int checkRoceFrame(byte[] f, long destinationMac, int sourcePort, int identification, byte[] payload) {
        ByteBuffer b = ByteBuffer.wrap(f);
        int length = payload.length;
        assertThat(f).hasSize(42 + length);
        assertThat(mac(b, 0)).isEqualTo(destinationMac);
        assertThat(mac(b, 6)).isEqualTo(FramePeer.LINK_MAC);
        assertThat(b.getShort(12)).isEqualTo((short) 0x0800);
        assertThat(b.get(14)).as("version, IHL").isEqualTo((byte) 0x45);
        assertThat(b.get(15)).as("TOS").isZero();
        assertThat(b.getShort(16) & 0xFFFF).as("total length").isEqualTo(28 + length);
        assertThat(b.getShort(18) & 0xFFFF).as("identification").isEqualTo(identification);
        assertThat(b.getShort(20)).as("DF").isEqualTo((short) 0x4000);
        assertThat(b.get(22)).as("TTL").isEqualTo((byte) 64);
        assertThat(b.get(23)).as("protocol").isEqualTo((byte) 17);
        long sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += b.getShort(i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        assertThat(sum).as("header checksum").isEqualTo(0xFFFF);
        assertThat(b.getInt(26)).isEqualTo(ip(FramePeer.LINK_IP));
        assertThat(b.getInt(30)).isEqualTo(ip(FramePeer.GUEST_IP));
        assertThat(b.getShort(34) & 0xFFFF).as("UDP source port").isEqualTo(sourcePort);
        assertThat(b.getShort(36) & 0xFFFF).as("UDP destination port").isEqualTo(4791);
        assertThat(b.getShort(38) & 0xFFFF).as("UDP length").isEqualTo(8 + length);
        assertThat(b.getShort(40)).as("UDP checksum").isZero();
        assertThat(Arrays.copyOfRange(f, 42, 42 + length - 4)).isEqualTo(Arrays.copyOf(payload, length - 4));
        int crc = Icrc.read(b, 42, length);
        assertThat(crc).as("ICRC, computed here").isEqualTo(icrcOf(f));
        assertThat(crc).as("ICRC, Icrc.ipv4Frame").isEqualTo(new Icrc().ipv4Frame(b, 14));
        return crc;
    }

    /** The ICRC of an IPv4 (IHL 5) RoCEv2 frame, from the annex's recipe, independently of {@link Icrc}. */
    static int icrcOf(byte[] f) {
        int udpLength = ((f[38] & 0xFF) << 8) | (f[39] & 0xFF);
        byte[] m = new byte[8 + 20 + udpLength - 4];
        Arrays.fill(m, 0, 8, (byte) 0xFF);
        System.arraycopy(f, 14, m, 8, 20 + udpLength - 4);
        m[8 + 1] = (byte) 0xFF;
        m[8 + 8] = (byte) 0xFF;
        m[8 + 10] = (byte) 0xFF;
        m[8 + 11] = (byte) 0xFF;
        m[8 + 20 + 6] = (byte) 0xFF;
        m[8 + 20 + 7] = (byte) 0xFF;
        m[8 + 20 + 8 + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(m);
        return (int) crc.getValue();
    }

    static byte[] arp(int operation, long to, long senderMac, int senderIp, long targetMac, int targetIp) {
        ByteBuffer b = ByteBuffer.allocate(60);
        putMac(b, 0, to);
        putMac(b, 6, senderMac);
        b.putShort(12, (short) 0x0806).putShort(14, (short) 1).putShort(16, (short) 0x0800).put(18, (byte) 6)
            .put(19, (byte) 4).putShort(20, (short) operation);
        putMac(b, 22, senderMac);
        b.putInt(28, senderIp);
        putMac(b, 32, targetMac);
        b.putInt(38, targetIp);
        return b.array();
    }

    static ByteBuffer payload(Random random, int length) {
        byte[] p = new byte[length];
        random.nextBytes(p);
        return ByteBuffer.wrap(p);
    }

    static long mac(ByteBuffer b, int index) {
        return (b.getLong(index) >>> 16) & FrameLink.BROADCAST;
    }

    static void putMac(ByteBuffer b, int index, long mac) {
        b.putShort(index, (short) (mac >>> 32)).putInt(index + 2, (int) mac);
    }

    static int ip(InetAddress a) {
        return ByteBuffer.wrap(a.getAddress()).getInt();
    }
}
