package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every UDP datagram to port 4791 in the rxe captures of the test resources ({@code io/jndk/roce/testdata}): the
 * RoCEv2 ones decode without error, their ICRC computed both ways (from the captured IP/UDP headers, and from the
 * header values) equals the captured one, and re-encoding the decoded fields gives the captured octets. The
 * datagrams that are not RoCEv2 (text probes, TFTP through slirp, the REQ whose ICRC was corrupted on purpose) are
 * exactly the ones whose ICRC does not match. The expected counts are those of an independent checker (a Python
 * script over the same files).
 */
class RxeCaptureTest {

    /** Per capture: UDP-4791 datagrams, those with a correct ICRC. */
    static Stream<Arguments> captures() {
        return Stream.of(
            Arguments.of("dgram_guest_eth0.pcap", 6, 5),
            Arguments.of("pair_atomic_cs_n20.pcap", 40, 40),
            Arguments.of("pair_atomic_fa_n20.pcap", 40, 40),
            Arguments.of("pair_hostudp.pcap", 3, 0),
            Arguments.of("pair_read_s4096_n20.pcap", 100, 100),
            Arguments.of("pair_read_s4096_n20_R.pcap", 175, 175),
            Arguments.of("pair_rping.pcap", 125, 125),
            Arguments.of("pair_send_s4096_n20.pcap", 100, 100),
            Arguments.of("pair_send_s4096_n20_R.pcap", 154, 154),
            Arguments.of("pair_send_ud_s1024_n20.pcap", 20, 20),
            Arguments.of("pair_small_br0.pcapng", 1238, 1228),
            Arguments.of("pair_write_bw_R_s65536_n100_head300.pcap", 300, 300),
            Arguments.of("pair_write_s4096_n20.pcap", 100, 100),
            Arguments.of("pair_write_s4096_n20_R.pcap", 174, 174),
            Arguments.of("pair_write_s64_n100.pcap", 200, 200),
            Arguments.of("slirp_udp.pcap", 17, 6));
    }

    @Test
    void everyCaptureInTheResourcesIsChecked() {
        List<String> listed = captures().map(a -> (String) a.get()[0]).toList();
        assertThat(Pcap.captures()).containsExactlyInAnyOrderElementsOf(listed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void everyRocePacketDecodesWithItsIcrcAndReencodesIdentically(String file, int datagrams, int good) {
        List<Pcap.Datagram> all = Pcap.read(file);
        RocePacketDecoder decoder = new RocePacketDecoder();
        RocePacketEncoder encoder = new RocePacketEncoder();
        Icrc icrc = new Icrc();
        int matched = 0;
        List<String> notRoce = new ArrayList<>();
        Map<RoceOpcode, Integer> opcodes = new EnumMap<>(RoceOpcode.class);
        for (Pcap.Datagram g : all) {
            assertThat(g.ipVersion()).as("%s", g).isEqualTo(4);
            ByteBuffer frame = g.buffer();
            int computed = icrc.ipv4Frame(frame, g.ipOffset());
            RocePacketError error = decoder.decode(frame, g.payloadOffset(), g.payloadLength());
            int carried = Icrc.read(frame, g.payloadOffset(), g.payloadLength());
            if (computed != carried) {
                notRoce.add(g.frame() + ":" + error);
                continue;
            }
            matched++;
            assertThat(error).as("%s", g).isEqualTo(RocePacketError.NONE);
            opcodes.merge(decoder.opcode(), 1, Integer::sum);
            assertThat(decoder.icrc()).isEqualTo(carried);
            // the ICRC from the header values, as a sender that builds its own headers computes it
            int valued = icrc.ipv4(frame.getInt(g.ipOffset() + 12), frame.getInt(g.ipOffset() + 16),
                frame.getShort(g.ipOffset() + 4) & 0xFFFF, frame.getShort(g.ipOffset() + 6) & 0xFFFF, g.sourcePort(),
                frame.getShort(g.udpOffset() + 2) & 0xFFFF, frame, g.payloadOffset(), g.payloadLength());
            assertThat(valued).as("%s: ICRC from header values", g).isEqualTo(carried);
            // decode -> encode gives the captured octets, ICRC recomputed over the new buffer
            ByteBuffer out = ByteBuffer.allocate(g.payloadLength() + 8);
            int length = Reencoder.reencode(decoder, encoder, out, 3);
            assertThat(length).as("%s", g).isEqualTo(g.payloadLength());
            Icrc.write(out, 3, length, 0);
            Icrc.write(out, 3, length, icrc.ipv4(frame.getInt(g.ipOffset() + 12), frame.getInt(g.ipOffset() + 16),
                frame.getShort(g.ipOffset() + 4) & 0xFFFF, frame.getShort(g.ipOffset() + 6) & 0xFFFF, g.sourcePort(),
                Icrc.ROCE_V2_PORT, out, 3, length));
            assertThat(Hex.of(out, 3, length)).as("%s re-encoded", g).isEqualTo(Hex.of(frame, g.payloadOffset(), length));
        }
        System.out.printf("%s: %d datagrams, %d RoCEv2 with matching ICRC, opcodes %s, not RoCEv2 (frame:decode) %s%n", file,
            all.size(), matched, new TreeMap<>(opcodes), notRoce);
        assertThat(all).as(file).hasSize(datagrams);
        assertThat(matched).as(file + ": ICRC matches").isEqualTo(good);
    }

    @Test
    void theDatagramsThatAreNotRoceAreTheKnownOnes() {
        // text probes ("rob..."): opcode 0x72 is not RC or UD
        assertThat(errors("pair_hostudp.pcap")).containsExactly("1:UNKNOWN_OPCODE", "2:UNKNOWN_OPCODE", "3:UNKNOWN_OPCODE");
        // TFTP read requests (00 01 ...) read as opcode 0 with TVer 1; the text probes again
        assertThat(errors("slirp_udp.pcap")).hasSize(11).allMatch(s -> s.endsWith(":BAD_TVER") || s.endsWith(":UNKNOWN_OPCODE"));
        // the CM REQ sent with a flipped ICRC bit: well formed, wrong ICRC
        assertThat(errors("dgram_guest_eth0.pcap")).containsExactly("3:NONE");
    }

    private static List<String> errors(String file) {
        RocePacketDecoder decoder = new RocePacketDecoder();
        Icrc icrc = new Icrc();
        List<String> out = new ArrayList<>();
        for (Pcap.Datagram g : Pcap.read(file)) {
            ByteBuffer frame = g.buffer();
            if (icrc.ipv4Frame(frame, g.ipOffset()) != Icrc.read(frame, g.payloadOffset(), g.payloadLength())) {
                out.add(g.frame() + ":" + decoder.decode(frame, g.payloadOffset(), g.payloadLength()));
            }
        }
        return out;
    }
}
