package io.jndk.roce.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Every frame of a classic pcap file with link type Ethernet (both byte orders, micro and nanosecond magics), for
 * feeding captured frames to a {@link FrameLink} whole (ARP and everything else included, unlike the codec tests'
 * reader, which keeps only the RoCEv2 datagrams).
 */
final class FramePcap {
    private FramePcap() {
    }

    /**
     * @param name a capture's file name in the test resources' {@code io/jndk/roce/testdata/}
     * @return its frames, in file order
     */
    static List<byte[]> frames(String name) {
        try (InputStream in = FramePcap.class.getResourceAsStream("/io/jndk/roce/testdata/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + name);
            }
            ByteBuffer b = ByteBuffer.wrap(in.readAllBytes()).order(ByteOrder.LITTLE_ENDIAN);
            int magic = b.getInt(0);
            if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
                b.order(ByteOrder.BIG_ENDIAN);
                magic = b.getInt(0);
                if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
                    throw new IllegalArgumentException(name + ": not a classic pcap");
                }
            }
            if ((b.getInt(20) & 0x0FFFFFFF) != 1) {
                throw new IllegalArgumentException(name + ": not Ethernet");
            }
            List<byte[]> out = new ArrayList<>();
            for (int at = 24; at + 16 <= b.limit(); ) {
                int captured = b.getInt(at + 8);
                if (captured != b.getInt(at + 12)) {
                    throw new IllegalStateException(name + ": frame " + (out.size() + 1) + " truncated by the capture");
                }
                byte[] frame = new byte[captured];
                b.get(at + 16, frame);
                out.add(frame);
                at += 16 + captured;
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
