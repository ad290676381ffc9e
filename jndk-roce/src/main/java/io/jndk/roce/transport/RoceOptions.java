package io.jndk.roce.transport;

import io.jndk.provider.spi.OptionValues;
import java.util.Map;

/**
 * The {@code roce} transport's adapter options (docs/TRANSPORTS.md). Devices are shared by the adapters of one JVM
 * with the same address, so the device-level options ({@code udp.port}, {@code link}, {@code mtu},
 * {@code icrc.ipv4}, buffers) are those of the adapter that opened the device first.
 *
 * @param udpPort the UDP port every device of the fabric uses ({@code udp.port}, default 4791)
 * @param peerPort the UDP port packets are sent to ({@code udp.peer.port}, default {@code udp.port}; another value
 *     puts a relay between two devices of one host)
 * @param pcap a capture file of every packet the device sends and receives ({@code pcap=FILE}), or null
 * @param link {@code udp} (a UDP socket, default) or a frame-level link specification ({@code dgram:...})
 * @param mtu the largest path MTU this device offers ({@code mtu}: 256, 512, 1024, 2048, 4096; 0 = from the
 *     interface's MTU, as rxe)
 * @param ackTimeout the local ACK timeout exponent ({@code ack.timeout}, 4.096 us x 2^t; default 14, 67 ms)
 * @param retryCount transport retries ({@code retry}, 0-7, default 7)
 * @param rnrRetry RNR retries ({@code rnr.retry}, 0-7, 7 = for ever as on rdma_cm; default 6: NDKPI makes a Send
 *     with no receive posted a remote error, so the wait is bounded, about 6 x 0.64 ms)
 * @param minRnrTimer the RNR NAK timer code this side's RNR NAKs carry ({@code rnr.timer}, default 12: 0.64 ms)
 * @param sendQueueDepth requests one QP may have on the wire ({@code sq.depth}, default 1024)
 * @param lenientIpv4 accept IPv4 packets whose ICRC cannot be checked ({@code icrc.ipv4=lenient}; default strict)
 * @param socketBuffer SO_RCVBUF and SO_SNDBUF asked for ({@code udp.buffer}, bytes; default 4 MiB, 0 = system's)
 * @param spinMicros how long the engine thread keeps polling after its last work before it sleeps in the selector
 *     ({@code poll.spin.us}, default 0: a spinning engine takes a core from the consumers on a small machine)
 * @param sendPath which UDP socket packets leave through ({@code udp.send}): {@code connected} (default: one
 *     connected socket per peer address, an ephemeral source port) or {@code bound} (the device's socket and port)
 * @param poll the polling mode ({@code poll=true}, default false): posting threads transmit and threads polling a CQ
 *     receive and place themselves, each in a pass over the device when no other thread runs one, while the engine
 *     thread stands by (it keeps the timers and takes over within 1 ms of the last consumer's pass, at once when a CQ
 *     is armed)
 */
record RoceOptions(int udpPort, int peerPort, String pcap, String link, int mtu, int ackTimeout, int retryCount, int rnrRetry, int minRnrTimer,
        int sendQueueDepth, boolean lenientIpv4, int socketBuffer, long spinMicros, UdpLink.SendPath sendPath, boolean poll) {

    static RoceOptions of(Map<String, String> o) {
        int mtu = (int) OptionValues.number(o, "mtu", 0, 0, 4096);
        if (mtu != 0 && mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096) {
            throw new IllegalArgumentException("adapter option mtu=" + mtu + ": not 256, 512, 1024, 2048 or 4096");
        }
        String icrc = o == null ? null : o.get("icrc.ipv4");
        if (icrc != null && !icrc.equals("strict") && !icrc.equals("lenient")) {
            throw new IllegalArgumentException("adapter option icrc.ipv4=" + icrc + ": not strict or lenient");
        }
        String link = o == null ? null : o.get("link");
        int udpPort = (int) OptionValues.number(o, "udp.port", RoceLink.ROCE_PORT, 1, 65535);
        return new RoceOptions(udpPort, (int) OptionValues.number(o, "udp.peer.port", udpPort, 1, 65535),
            o == null ? null : o.get("pcap"),
            link == null ? "udp" : link, mtu,
            (int) OptionValues.number(o, "ack.timeout", 14, 1, 31),
            (int) OptionValues.number(o, "retry", 7, 0, 7),
            (int) OptionValues.number(o, "rnr.retry", 6, 0, 7),
            (int) OptionValues.number(o, "rnr.timer", 12, 0, 31),
            (int) OptionValues.number(o, "sq.depth", 1024, 1, 1 << 16),
            "lenient".equals(icrc),
            (int) OptionValues.number(o, "udp.buffer", 4 << 20, 0, Integer.MAX_VALUE),
            OptionValues.number(o, "poll.spin.us", 0, 0, 10_000_000),
            sendPath(o), poll(o));
    }

    private static UdpLink.SendPath sendPath(Map<String, String> o) {
        String v = o == null ? null : o.get("udp.send");
        if (v == null || v.equals("connected")) {
            return UdpLink.SendPath.CONNECTED;
        }
        if (v.equals("bound")) {
            return UdpLink.SendPath.BOUND;
        }
        throw new IllegalArgumentException("adapter option udp.send=" + v + ": not connected or bound");
    }

    private static boolean poll(Map<String, String> o) {
        String v = o == null ? null : o.get("poll");
        if (v == null || v.equals("false")) {
            return false;
        }
        if (v.equals("true")) {
            return true;
        }
        throw new IllegalArgumentException("adapter option poll=" + v + ": not true or false");
    }

    /** The IB path MTU code of a size (1 = 256 ... 5 = 4096). */
    static int mtuCode(int mtu) {
        return Integer.numberOfTrailingZeros(mtu) - 7;
    }

    /** The size of an IB path MTU code. */
    static int mtuSize(int code) {
        return code < 1 || code > 5 ? 1024 : 128 << code;
    }
}
