package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Decoding, re-encoding and the ICRC allocate nothing per packet once warm: the thread's allocated bytes over
 * thousands of captured packets stay at the measurement's own noise. Measured with {@link ThreadAllocations};
 * skipped where the JVM does not count.
 */
class NoAllocationTest {

    @Test
    void steadyStateAllocatesNothing() {
        ThreadAllocations allocated = ThreadAllocations.open();
        List<Pcap.Datagram> all = Pcap.read("pair_rping.pcap");
        all = new java.util.ArrayList<>(all);
        all.addAll(Pcap.read("pair_atomic_cs_n20.pcap"));
        ByteBuffer[] frames = all.stream().map(Pcap.Datagram::buffer).toArray(ByteBuffer[]::new);
        int[] ip = all.stream().mapToInt(Pcap.Datagram::ipOffset).toArray();
        int[] at = all.stream().mapToInt(Pcap.Datagram::payloadOffset).toArray();
        int[] length = all.stream().mapToInt(Pcap.Datagram::payloadLength).toArray();
        RocePacketDecoder d = new RocePacketDecoder();
        RocePacketEncoder e = new RocePacketEncoder();
        Icrc icrc = new Icrc();
        ByteBuffer out = ByteBuffer.allocateDirect(2048);
        long sink = 0;
        for (int round = 0; round < 300; round++) {
            sink += pass(frames, ip, at, length, d, e, icrc, out);
        }
        long noise = allocated.noise();
        long before = allocated.bytes();
        for (int round = 0; round < 50; round++) {
            sink += pass(frames, ip, at, length, d, e, icrc, out);
        }
        long after = allocated.bytes();
        int packets = 50 * frames.length;
        System.out.printf("%d packets decoded, re-encoded and ICRC-checked: %d bytes allocated (a counter read alone: %d)%n",
            packets, after - before - noise, noise);
        assertThat(sink).isNotZero();
        assertThat(after - before - noise).as("bytes allocated over %d packets", packets).isLessThan(256);
    }

    private static long pass(ByteBuffer[] frames, int[] ip, int[] at, int[] length, RocePacketDecoder d, RocePacketEncoder e,
        Icrc icrc, ByteBuffer out) {
        long sink = 0;
        for (int i = 0; i < frames.length; i++) {
            if (d.decode(frames[i], at[i], length[i]) != RocePacketError.NONE) {
                throw new AssertionError("packet " + i);
            }
            sink += icrc.ipv4Frame(frames[i], ip[i]) ^ d.icrc();
            sink += Reencoder.reencode(d, e, out, 0);
            sink += icrc.ipv4(1, 2, i, Icrc.IPV4_DONT_FRAGMENT, 0xC000, Icrc.ROCE_V2_PORT, out, 0, length[i]);
        }
        return sink + 1;
    }
}
