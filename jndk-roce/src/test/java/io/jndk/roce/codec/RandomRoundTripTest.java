package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random packets: encode, decode, every field and the payload come back; the ICRC from header values equals
 * the ICRC over a frame built with those headers, for IPv4 and IPv6; changing a masked field leaves the ICRC alone
 * and changing any covered octet changes it. The seed is in every assertion's description.
 */
class RandomRoundTripTest {

    private static final RoceOpcode[] OPCODES = RoceOpcode.values();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 0x5EED, 20261202, -7})
    void encodeThenDecodeGivesEveryField(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        RocePacketEncoder e = new RocePacketEncoder();
        RocePacketDecoder d = new RocePacketDecoder();
        for (int i = 0; i < 400; i++) {
            String at = "seed " + seed + " packet " + i;
            RoceOpcode op = OPCODES[r.nextInt(OPCODES.length)];
            boolean full = op.position() == RoceOpcode.Position.FIRST || op.position() == RoceOpcode.Position.MIDDLE;
            int payload = !op.hasPayload() ? 0 : full ? 4 * r.nextInt(1, 300) : r.nextInt(0, 1200);
            byte[] data = new byte[payload];
            r.nextBytes(data);
            int offset = r.nextInt(0, 16);
            ByteBuffer b = r.nextBoolean() ? ByteBuffer.allocate(offset + 1400) : ByteBuffer.allocateDirect(offset + 1400);
            boolean se = r.nextBoolean();
            boolean m = r.nextBoolean();
            boolean ackReq = r.nextBoolean();
            int pkey = r.nextInt(1 << 16);
            int qpn = r.nextInt(1 << 24);
            int psn = r.nextInt(1 << 24);
            long va = r.nextLong();
            int key = r.nextInt();
            int len = r.nextInt();
            long swap = r.nextLong();
            long compare = r.nextLong();
            int syndrome = r.nextInt(256);
            int msn = r.nextInt(1 << 24);
            int imm = r.nextInt();
            int icrc = r.nextInt();
            e.begin(b, offset, op);
            e.bth().solicitedEvent(se).migration(m).pkey(pkey).destQp(qpn).ackRequest(ackReq).psn(psn);
            if (op.has(ExtensionHeader.DETH)) {
                e.deth().qkey(key).srcQp(qpn ^ 0x5A5A5A);
            }
            if (op.has(ExtensionHeader.RETH)) {
                e.reth().virtualAddress(va).rkey(key).dmaLength(len);
            }
            if (op.has(ExtensionHeader.ATOMIC_ETH)) {
                e.atomicEth().virtualAddress(va).rkey(key).swapOrAdd(swap).compare(compare);
            }
            if (op.has(ExtensionHeader.AETH)) {
                e.aeth().syndrome(syndrome).msn(msn);
            }
            if (op.has(ExtensionHeader.ATOMIC_ACK_ETH)) {
                e.atomicAckEth().originalData(swap);
            }
            if (op.has(ExtensionHeader.IMMDT)) {
                e.immDt().immediate(imm);
            }
            if (op.has(ExtensionHeader.IETH)) {
                e.ieth().rkey(~key);
            }
            e.payload(ByteBuffer.wrap(data), 0, payload);
            int length = e.finish(icrc);
            assertThat(length % 4).as(at).isZero();
            assertThat(length).as(at).isEqualTo(op.headersLength() + payload + RocePacketEncoder.padFor(payload) + 4);

            assertThat(d.decode(b, offset, length)).as(at).isEqualTo(RocePacketError.NONE);
            assertThat(d.opcode()).as(at).isEqualTo(op);
            BthFlyweight bth = d.bth();
            assertThat(new Object[] {bth.solicitedEvent(), bth.migration(), bth.transportVersion(), bth.pkey(), bth.resv8a(),
                bth.destQp(), bth.ackRequest(), bth.resv7(), bth.psn(), bth.padCount()}).as(at)
                .containsExactly(se, m, 0, pkey, 0, qpn, ackReq, 0, psn, RocePacketEncoder.padFor(payload));
            if (op.has(ExtensionHeader.DETH)) {
                assertThat(new long[] {d.deth().qkey(), d.deth().srcQp(), d.deth().reserved()}).as(at)
                    .containsExactly(key, qpn ^ 0x5A5A5A, 0);
            }
            if (op.has(ExtensionHeader.RETH)) {
                assertThat(new long[] {d.reth().virtualAddress(), d.reth().rkey(), d.reth().dmaLength()}).as(at)
                    .containsExactly(va, key, len);
            }
            if (op.has(ExtensionHeader.ATOMIC_ETH)) {
                AtomicEthFlyweight a = d.atomicEth();
                assertThat(new long[] {a.virtualAddress(), a.rkey(), a.swapOrAdd(), a.compare()}).as(at)
                    .containsExactly(va, key, swap, compare);
            }
            if (op.has(ExtensionHeader.AETH)) {
                assertThat(new int[] {d.aeth().syndrome(), d.aeth().msn()}).as(at).containsExactly(syndrome, msn);
            }
            if (op.has(ExtensionHeader.ATOMIC_ACK_ETH)) {
                assertThat(d.atomicAckEth().originalData()).as(at).isEqualTo(swap);
            }
            if (op.has(ExtensionHeader.IMMDT)) {
                assertThat(d.immDt().immediate()).as(at).isEqualTo(imm);
            }
            if (op.has(ExtensionHeader.IETH)) {
                assertThat(d.ieth().rkey()).as(at).isEqualTo(~key);
            }
            assertThat(d.payloadLength()).as(at).isEqualTo(payload);
            byte[] back = new byte[payload];
            b.get(d.payloadOffset(), back);
            assertThat(back).as(at).isEqualTo(data);
            for (int p = 0; p < RocePacketEncoder.padFor(payload); p++) {
                assertThat(b.get(d.payloadOffset() + payload + p)).as(at + " pad").isZero();
            }
            assertThat(d.icrc()).as(at).isEqualTo(icrc);
            assertThat(b.position()).as(at + ": position untouched").isZero();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 77, 0xC0FFEE})
    void icrcFromValuesEqualsIcrcOverTheBuiltFrameAndCoversWhatItShould(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Icrc icrc = new Icrc();
        for (int i = 0; i < 200; i++) {
            String at = "seed " + seed + " packet " + i;
            int length = 4 * r.nextInt(4, 100);
            boolean v6 = r.nextBoolean();
            int ip = r.nextInt(0, 20);
            int ipLength = v6 ? Icrc.IPV6_HEADER_LENGTH : Icrc.IPV4_HEADER_LENGTH;
            ByteBuffer f = ByteBuffer.allocate(ip + ipLength + 8 + length);
            int udp = ip + ipLength;
            byte[] payload = new byte[length];
            r.nextBytes(payload);
            payload[1] &= (byte) 0xF0;
            f.put(udp + 8, payload);
            int sport = 0xC000 | r.nextInt(1 << 14);
            int computedFromValues;
            byte[] src = new byte[16];
            byte[] dst = new byte[16];
            r.nextBytes(src);
            r.nextBytes(dst);
            if (v6) {
                f.putInt(ip, 0x60000000 | r.nextInt(1 << 28)); // version 6, random traffic class and flow label
                f.putShort(ip + 4, (short) (8 + length));
                f.put(ip + 6, (byte) 17);
                f.put(ip + 7, (byte) r.nextInt(256));
                f.put(ip + 8, src);
                f.put(ip + 24, dst);
                computedFromValues = icrc.ipv6(src, dst, sport, Icrc.ROCE_V2_PORT, f, udp + 8, length);
            } else {
                int id = r.nextInt(1 << 16);
                int s = r.nextInt();
                int t = r.nextInt();
                f.put(ip, (byte) 0x45).put(ip + 1, (byte) r.nextInt(256)).putShort(ip + 2, (short) (28 + length))
                    .putShort(ip + 4, (short) id).putShort(ip + 6, (short) 0x4000).put(ip + 8, (byte) r.nextInt(256))
                    .put(ip + 9, (byte) 17).putShort(ip + 10, (short) r.nextInt()).putInt(ip + 12, s).putInt(ip + 16, t);
                computedFromValues = icrc.ipv4(s, t, id, Icrc.IPV4_DONT_FRAGMENT, sport, Icrc.ROCE_V2_PORT, f, udp + 8, length);
            }
            f.putShort(udp, (short) sport).putShort(udp + 2, (short) Icrc.ROCE_V2_PORT).putShort(udp + 4, (short) (8 + length))
                .putShort(udp + 6, (short) r.nextInt());
            int frame = v6 ? icrc.ipv6Frame(f, ip) : icrc.ipv4Frame(f, ip);
            assertThat(frame).as(at).isEqualTo(computedFromValues);

            // masked: IPv4 TOS, TTL, checksum; IPv6 traffic class, flow label, hop limit; UDP checksum; BTH resv8a
            int[] masked = v6 ? new int[] {ip, ip + 1, ip + 2, ip + 3, ip + 7, udp + 6, udp + 7, udp + 8 + 4}
                : new int[] {ip + 1, ip + 8, ip + 10, ip + 11, udp + 6, udp + 7, udp + 8 + 4};
            for (int index : masked) {
                ByteBuffer g = copy(f);
                g.put(index, (byte) (g.get(index) ^ (index == ip ? 0x0F : 0xFF))); // keep the IPv6 version nibble
                assertThat(v6 ? icrc.ipv6Frame(g, ip) : icrc.ipv4Frame(g, ip)).as(at + ": masked octet %d", index - ip).isEqualTo(frame);
            }
            // covered: any other octet from the IP header to the ICRC (the length fields are kept consistent)
            for (int k = 0; k < 8; k++) {
                int index;
                do {
                    index = r.nextInt(ip, f.limit() - 4);
                } while (contains(masked, index) || isLengthOrType(index, ip, udp, v6));
                ByteBuffer g = copy(f);
                g.put(index, (byte) (g.get(index) ^ (1 << r.nextInt(8))));
                assertThat(v6 ? icrc.ipv6Frame(g, ip) : icrc.ipv4Frame(g, ip)).as(at + ": covered octet %d", index - ip)
                    .isNotEqualTo(frame);
            }
        }
    }

    private static boolean isLengthOrType(int index, int ip, int udp, boolean v6) {
        if (index == udp + 4 || index == udp + 5) {
            return true;
        }
        return v6 ? index == ip || index == ip + 4 || index == ip + 5 || index == ip + 6
            : index == ip || index == ip + 9;
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    private static ByteBuffer copy(ByteBuffer f) {
        ByteBuffer g = ByteBuffer.allocate(f.capacity());
        g.put(0, f, 0, f.capacity());
        return g;
    }
}
