package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/** The ICRC recipe spelled out on one captured packet, and the checks of the frame forms. */
class IcrcTest {

    @Test
    void theRecipeOnTheFirstRpingReq() {
        Pcap.Datagram req = Pcap.read("pair_rping.pcap").stream().filter(g -> g.payloadLength() == 280).findFirst().orElseThrow();
        byte[] f = req.bytes();
        int ip = req.ipOffset();
        // by hand: 8 x 0xFF, IPv4 with TOS/TTL/checksum ones, UDP with checksum ones, BTH with resv8a ones, the rest
        byte[] pseudo = new byte[8 + 20 + 8 + req.payloadLength() - 4];
        java.util.Arrays.fill(pseudo, 0, 8, (byte) 0xFF);
        System.arraycopy(f, ip, pseudo, 8, 20 + 8 + req.payloadLength() - 4);
        pseudo[8 + 1] = (byte) 0xFF;
        pseudo[8 + 8] = (byte) 0xFF;
        pseudo[8 + 10] = (byte) 0xFF;
        pseudo[8 + 11] = (byte) 0xFF;
        pseudo[8 + 20 + 6] = (byte) 0xFF;
        pseudo[8 + 20 + 7] = (byte) 0xFF;
        pseudo[8 + 28 + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(pseudo);
        int expected = (int) crc.getValue();
        int carried = ByteBuffer.wrap(f).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(req.payloadOffset() + req.payloadLength() - 4);
        assertThat(carried).as("stored little-endian").isEqualTo(expected);
        assertThat(new Icrc().ipv4Frame(req.buffer(), ip)).isEqualTo(expected);
        // tshark shows the first REQ's Invariant CRC as 0xb494ef85: the octets as they stand, read big-endian
        assertThat(Integer.reverseBytes(carried)).isEqualTo(0xb494ef85);
    }

    @Test
    void theIpIdentificationIsCovered() {
        List<Pcap.Datagram> all = Pcap.read("pair_write_s64_n100.pcap");
        Pcap.Datagram g = all.get(0);
        ByteBuffer f = g.buffer();
        Icrc icrc = new Icrc();
        int good = icrc.ipv4Frame(f, g.ipOffset());
        f.put(g.ipOffset() + 5, (byte) (f.get(g.ipOffset() + 5) + 1));
        assertThat(icrc.ipv4Frame(f, g.ipOffset())).isNotEqualTo(good);
    }

    @Test
    void framesThatAreNotRoceUdpAreRefused() {
        Icrc icrc = new Icrc();
        ByteBuffer f = ByteBuffer.allocate(60);
        f.put(0, (byte) 0x45).put(9, (byte) 6);
        assertThatThrownBy(() -> icrc.ipv4Frame(f, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("protocol 6");
        f.put(9, (byte) 17).putShort(24, (short) 100);
        assertThatThrownBy(() -> icrc.ipv4Frame(f, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("UDP length");
        f.putShort(24, (short) 20);
        assertThatThrownBy(() -> icrc.ipv4Frame(f, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 16");
        f.put(0, (byte) 0x65);
        assertThatThrownBy(() -> icrc.ipv4Frame(f, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not IPv4");
        assertThatThrownBy(() -> icrc.ipv6Frame(f, 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not IPv6");
        assertThatThrownBy(() -> icrc.ipv6(new byte[4], new byte[16], 1, 2, f, 0, 16)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void directAndHeapBuffersGiveTheSameIcrc() {
        Pcap.Datagram g = Pcap.read("pair_write_bw_R_s65536_n100_head300.pcap").stream().filter(d -> d.payloadLength() > 1000)
            .findFirst().orElseThrow();
        ByteBuffer direct = ByteBuffer.allocateDirect(g.bytes().length);
        direct.put(0, g.bytes());
        direct.position(3).limit(direct.capacity() - 1);
        Icrc icrc = new Icrc();
        int heap = icrc.ipv4Frame(g.buffer(), g.ipOffset());
        direct.limit(direct.capacity());
        assertThat(icrc.ipv4Frame(direct, g.ipOffset())).isEqualTo(heap).isEqualTo(Icrc.read(g.buffer(), g.payloadOffset(), g.payloadLength()));
        assertThat(direct.position()).isEqualTo(3);
    }
}
