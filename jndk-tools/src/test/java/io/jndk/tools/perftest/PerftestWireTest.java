package io.jndk.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** perftest 4.5's messages against the bytes two siw peers exchanged (shared testdata write_bw_s64_n100.pcap). */
class PerftestWireTest {
    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    /**
     * The address keys of perftest's TCP exchange, as an rxe guest's ib_write_bw client sent them to another guest
     * (TCP 18515, captured on the bridge between them): decoded field by field, and encoded back byte for byte.
     */
    @Test
    void addressKeysAreRxesOwnByteForByte() {
        String text = "0000:0001:000012:682b03:00000616:0000557bb399f000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:0b"
                + ":00000000:";
        byte[] wire = java.util.Arrays.copyOf(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                PerftestWire.KEYS_LENGTH);
        Dest d = Dest.decodeKeys(wire);
        assertThat(d.lid()).isZero();
        assertThat(d.outReads()).isEqualTo(1);
        assertThat(d.qpn()).isEqualTo(0x12);
        assertThat(d.psn()).isEqualTo(0x682b03);
        assertThat(d.rkey()).isEqualTo(0x616);
        assertThat(d.vaddr()).isEqualTo(0x557bb399f000L);
        assertThat(HexFormat.of().formatHex(d.gid())).isEqualTo("00000000000000000000ffffc000020b");
        assertThat(d.encodeKeys()).isEqualTo(wire);
        assertThat(text.length() + 1).as("perftest's KEY_MSG_SIZE_GID holds the text and its NUL").isEqualTo(108);
    }

    /**
     * The address the TCP mode connects a QP to is the one its peer's GID stands for: an IPv4-mapped GID (rxe's
     * ::ffff:192.0.2.11 from the keys above) is that IPv4 address, any other GID the IPv6 address it is.
     */
    @Test
    void aGidStandsForItsAddress() throws Exception {
        java.net.InetAddress v4 = PerftestRun.addressOfGid(HexFormat.of().parseHex("00000000000000000000ffffc000020b"));
        assertThat(v4).isInstanceOf(java.net.Inet4Address.class);
        assertThat(v4.getHostAddress()).isEqualTo("192.0.2.11");
        java.net.InetAddress v6 = PerftestRun.addressOfGid(HexFormat.of().parseHex("20010db8000000000000000000000002"));
        assertThat(v6).isInstanceOf(java.net.Inet6Address.class).isEqualTo(java.net.InetAddress.getByName("2001:db8::2"));
        java.net.InetAddress almost = PerftestRun.addressOfGid(HexFormat.of().parseHex("00000000000000000000ff00c000020b"));
        assertThat(almost).as("not IPv4-mapped: ::ff00:c000:20b").isInstanceOf(java.net.Inet6Address.class);
    }

    /** Keys that are not perftest's are refused with the text in the message, not misread. */
    @Test
    void malformedAddressKeysAreRefused() {
        byte[] junk = java.util.Arrays.copyOf("0000:zz:12".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 108);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Dest.decodeKeys(junk))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("0000:zz:12");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Dest.decodeKeys(new byte[56]))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("expected 108");
    }

    @Test
    void messagesOfTheCaptureDecodeAndEncodeByteForByte() {
        assertThat(PerftestWire.version("6.06")).isEqualTo(hex("362e3036000000000000000000000000"));
        assertThat(PerftestWire.parseVersion(hex("362e3036000000000000000000000000"))).isEqualTo("6.06");
        assertThat(PerftestWire.int32(4096)).isEqualTo(hex("00001000"));
        assertThat(PerftestWire.int32(64)).isEqualTo(hex("00000040"));
        assertThat(PerftestWire.mtu(3)).isEqualTo(hex("3300"));
        assertThat(PerftestWire.parseMtu(hex("3300"))).isEqualTo(3);
        // The client's destination (msn 7 of the control connection); the GID prints as in siw's own log
        byte[] wire = hex("00000000000000010000000300584116b248c40000000000000055f0c856f0005254001234560000000000000000"
                + "00000000000000000000");
        Dest d = Dest.decode(wire);
        assertThat(d.outReads()).isEqualTo(1);
        assertThat(d.qpn()).isEqualTo(3);
        assertThat(d.psn()).isEqualTo(0x584116);
        assertThat(d.rkey()).isEqualTo(0xb248c400);
        assertThat(d.vaddr()).isEqualTo(0x55f0c856f000L);
        assertThat(d.gidText()).isEqualTo("82:84:00:18:52:86:00:00:00:00:00:00:00:00:00:00");
        assertThat(d.encode()).isEqualTo(wire);
        // The same message with uninitialised structure padding (msn 16) decodes to the same destination.
        assertThat(Dest.decode(hex("00000000000000010000000300584116b248c400f0550000000055f0c856f0005254001234560000"
                + "00000000000000000000000000000000"))).isEqualTo(d);
        assertThat(Dest.ZERO.encode()).hasSize(56).containsOnly(0);
    }

    @Test
    void reportIsFiveBigEndianWords() {
        byte[][] m = new Report(64, 100, 0.33336518379964797, 0.20390392224416082, 0.003340761862048331).encode();
        assertThat(m).hasNumberOfRows(5);
        assertThat(m[0]).isEqualTo(hex("0000000000000040"));
        assertThat(m[1]).isEqualTo(hex("0000000000000064"));
        assertThat(m[2]).isEqualTo(hex("3fd555daec82d95e"));
        assertThat(m[3]).isEqualTo(hex("3fca198612c84b4a"));
        assertThat(m[4]).isEqualTo(hex("3f6b5e15de1e7cdb"));
        assertThat(PerftestWire.parseF64(hex("3fca198612c84b4a"), "x")).isEqualTo(0.20390392224416082);
    }

    @Test
    void rowsLookLikePerftests() {
        // siw's client log for write_bw -s 64 -n 100, byte for byte
        assertThat(PerftestWire.row(new Report(64, 100, 0.33336518379964797, 0.20390392224416082, 0.003340761862048331)))
                .isEqualTo(" 64         100              0.33               0.20   \t\t   0.003341");
        assertThat(PerftestWire.columns(false))
                .isEqualTo(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
    }

    @Test
    void offsetsCycleLikePerftest() {
        // ib_read_bw -s 64: 64 slots of 64 bytes in the 4096-byte cycle buffer, then back to the start
        assertThat(PerftestWire.offset(1, 64, 4096, 64)).isEqualTo(64);
        assertThat(PerftestWire.offset(63, 64, 4096, 64)).isEqualTo(4032);
        assertThat(PerftestWire.offset(64, 64, 4096, 64)).isZero();
        assertThat(PerftestWire.offset(3, 2, 4096, 64)).isEqualTo(192); // rounded up to the cache line
        assertThat(PerftestWire.offset(5, 4096, 4096, 64)).isZero(); // only when two fit
        assertThat(PerftestWire.allSizes()).hasSize(23).startsWith(2L).endsWith(1L << 23);
    }
}
