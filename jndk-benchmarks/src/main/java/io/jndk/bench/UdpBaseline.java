package io.jndk.bench;

import io.jndk.tools.kit.CpuSteal;
import io.jndk.tools.kit.ProcessCpu;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The roce transport's baselines, measured on this machine in the same run as jndk (the UDP counterpart of
 * {@link NioBaseline}): raw Java {@link DatagramChannel}s over 127.0.0.1 in one process, two threads, as jndk's
 * in-process perf run has two adapters on one address. Prints one JSON object per line.
 * <ul>
 *   <li>{@code udp.stream.roce}: a sender thread streams datagrams of the size of a RoCEv2 RDMA Write First packet at
 *   the path MTU the roce device picks ({@link #datagramBytes}: BTH 12 + RETH 16 + MTU payload + ICRC 4; the MTU is
 *   the device's rule on 127.0.0.1's interface, 4096 on lo, or the second argument) into a receiver thread; the
 *   receiver counts what arrives, so datagrams the kernel drops (a full receive buffer: UDP has no flow control)
 *   count against the figure. {@code gbytes_per_s} is the RDMA payload those datagrams carry (MTU bytes each, what
 *   {@code jndk perf} counts), {@code datagram_gbytes_per_s} the UDP payload, {@code loss} the fraction sent and
 *   not received. Both sockets ask for the roce transport's default SO_SNDBUF/SO_RCVBUF ({@code udp.buffer}, 4 MiB).
 *   Median of {@link #RUNS} runs of {@code seconds} after half a second of warm-up each, with min and max.</li>
 *   <li>{@code udp.pingpong.spin}: 8-byte datagrams echoed back, both ends non-blocking and spinning on
 *   {@code receive} (as {@code nio.pingpong.spin}); round trips p50/p99 in µs.</li>
 * </ul>
 */
public final class UdpBaseline {
    private UdpBaseline() {}

    /** Streaming runs per figure. */
    static final int RUNS = 3;
    /** SO_SNDBUF and SO_RCVBUF asked for: the roce transport's default {@code udp.buffer}. */
    static final int SOCKET_BUFFER = 4 << 20;
    /** BTH, RETH (a Write's first packet) and ICRC around the payload of a RoCEv2 data packet. */
    static final int BTH = 12;
    static final int RETH = 16;
    static final int ICRC = 4;
    /** The value of an {@code acked} ping-pong's extra datagram (the rounds count from 1; -1 stops the echo). */
    private static final long ACK = -2;

    /**
     * Entry point: {@code [seconds per streaming run, default 2] [MTU, default: the device's rule on 127.0.0.1]}, or
     * {@code seconds pair}: one stream and one ping-pong ({@code udp.pair.roce}), the sample bench/run.sh takes before
     * each round of the RoCE rows.
     */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        boolean pair = args.length > 1 && args[1].equals("pair");
        int mtu = args.length > 1 && !pair ? Integer.parseInt(args[1]) : deviceMtu(lo);
        int datagram = datagramBytes(mtu);
        stream(lo, datagram, 1.0); // warm the JIT and the socket paths, until the JIT is quiet
        Warmup.untilJitQuiet(() -> stream(lo, datagram, 0.3));
        if (pair) { // one stream and one ping-pong: bench/run.sh's sample before each round of the RoCE rows
            Stream one = stream(lo, datagram, seconds);
            long[] rtt = pingPong(lo, 8, 50_000, false);
            long[] acked = pingPong(lo, 8, 50_000, true);
            System.out.printf(Locale.ROOT, "{\"name\":\"udp.pair.roce\",\"mtu\":%d,\"gbytes_per_s\":%.4f,"
                    + "\"rtt_p50_us\":%.4f,\"rtt_acked_p50_us\":%.4f%s}%n", mtu, one.gbs(mtu), rtt[rtt.length / 2] / 1000.0,
                    acked[acked.length / 2] / 1000.0, CpuSteal.jsonField(one.stealPercent()));
            return;
        }
        Stream[] runs = new Stream[RUNS];
        for (int i = 0; i < RUNS; i++) {
            runs[i] = stream(lo, datagram, seconds);
        }
        Arrays.sort(runs, (a, b) -> Long.compare(a.received, b.received));
        Stream m = runs[RUNS / 2];
        System.out.printf(Locale.ROOT, "{\"name\":\"udp.stream.roce\",\"mtu\":%d,\"datagram_bytes\":%d,"
                + "\"gbytes_per_s\":%.4f,\"min\":%.4f,\"max\":%.4f,\"runs\":%d,\"datagram_gbytes_per_s\":%.4f,"
                + "\"sent_gbytes_per_s\":%.4f,\"loss\":%.4f,\"cpu_s_per_gb\":%.4f}%n", mtu, datagram,
                m.gbs(mtu), runs[0].gbs(mtu), runs[RUNS - 1].gbs(mtu), RUNS, m.gbs(datagram), m.sentGbs(mtu), m.loss(),
                m.cpuSeconds / (m.received * (double) mtu / 1e9));
        long[] rtt = pingPong(lo, 8, 50_000, false);
        System.out.printf(Locale.ROOT, "{\"name\":\"udp.pingpong.spin\",\"size\":8,\"rtt_p50_us\":%.4f,\"rtt_p99_us\":%.4f,"
                + "\"iters\":%d}%n", rtt[rtt.length / 2] / 1000.0, rtt[(int) (rtt.length * 0.99)] / 1000.0, rtt.length);
    }

    /** The UDP payload of a RoCEv2 RDMA Write First packet carrying {@code mtu} bytes. */
    static int datagramBytes(int mtu) {
        return BTH + RETH + mtu + ICRC;
    }

    /**
     * The path MTU the roce device picks on {@code a} without an {@code mtu} option (its rule, as rxe's): the largest
     * IB MTU, 256 to 4096, that fits the interface's MTU less the IP, UDP, BTH, RETH and ICRC headers.
     */
    static int deviceMtu(InetAddress a) {
        int ifMtu = 1500;
        try {
            NetworkInterface n = NetworkInterface.getByInetAddress(a);
            if (n != null && n.getMTU() > 0) {
                ifMtu = n.getMTU();
            }
        } catch (SocketException e) {
            // the device's default too
        }
        int room = ifMtu - 20 - 8 - BTH - RETH - ICRC;
        int m = 4096;
        while (m > 256 && m > room) {
            m >>= 1;
        }
        return m;
    }

    /** One streaming run: datagrams sent and received in the measured window, its length and the CPU it took. */
    record Stream(long sent, long received, long nanos, double cpuSeconds, double stealPercent) {
        double gbs(int bytesEach) {
            return received * (double) bytesEach / (nanos / 1e9) / 1e9;
        }

        double sentGbs(int bytesEach) {
            return sent * (double) bytesEach / (nanos / 1e9) / 1e9;
        }

        double loss() {
            return sent == 0 ? 0 : Math.max(0, 1 - (double) received / sent);
        }
    }

    private static DatagramChannel open(InetAddress at) throws IOException {
        DatagramChannel c = DatagramChannel.open();
        c.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        c.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        c.bind(new InetSocketAddress(at, 0));
        return c;
    }

    /**
     * Streams {@code datagram}-byte datagrams for {@code seconds} after half a second of warm-up; the receiver
     * (blocking, ended by closing its channel) counts every datagram, and the window's count is the difference of
     * its counter read at the window's start and end.
     */
    static Stream stream(InetAddress at, int datagram, double seconds) throws Exception {
        AtomicLong received = new AtomicLong();
        DatagramChannel rx = open(at);
        try (DatagramChannel tx = open(at)) {
            tx.connect(rx.getLocalAddress());
            Thread sink = Thread.ofPlatform().daemon().name("udp-sink").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(65536);
                try {
                    while (true) {
                        b.clear();
                        rx.receive(b);
                        received.lazySet(received.get() + 1); // one writer
                    }
                } catch (ClosedChannelException e) { // AsynchronousCloseException: rx closed under the receive
                    // the run ended
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            ByteBuffer b = ByteBuffer.allocateDirect(datagram);
            long warm = System.nanoTime() + 500_000_000L;
            long start = 0, end = 0, sent = 0, received0 = 0;
            double cpu0 = 0;
            long[] steal0 = null;
            while (true) {
                long now = System.nanoTime();
                if (start == 0 && now >= warm) {
                    start = now;
                    end = start + (long) (seconds * 1e9);
                    sent = 0;
                    received0 = received.get();
                    cpu0 = ProcessCpu.seconds();
                    steal0 = CpuSteal.sample();
                }
                if (start != 0 && now >= end) {
                    break;
                }
                b.clear();
                if (tx.write(b) == datagram) {
                    sent++;
                }
            }
            long nanos = System.nanoTime() - start;
            long got = received.get() - received0;
            double cpu = ProcessCpu.seconds() - cpu0;
            double steal = CpuSteal.percent(steal0, CpuSteal.sample());
            rx.close(); // ends the sink's receive
            sink.join(10_000);
            return new Stream(sent, got, nanos, cpu, steal);
        } finally {
            rx.close();
        }
    }

    /**
     * {@code size}-byte ping-pong round trips: {@code iterations} after a warm-up of a fifth as many rounds and at
     * least a second ({@link Warmup}), or fewer if measuring takes longer than five seconds (a loaded machine); both ends non-blocking and spinning. A round that
     * waits more than a second for its echo (a datagram lost) fails the run. Returns them sorted, in ns.
     *
     * <p>{@code acked}: each end also sends an 8-byte datagram right after each message it sends, which the other end
     * reads and drops: four datagrams a round trip, as an RC ping-pong carries (each Write and its ACK), the floor of
     * what RoCE's round trip can cost over the same sockets (docs/PERFORMANCE.md).
     */
    static long[] pingPong(InetAddress at, int size, int iterations, boolean acked) throws Exception {
        try (DatagramChannel echo = open(at); DatagramChannel c = open(at)) {
            echo.connect(c.getLocalAddress());
            c.connect(echo.getLocalAddress());
            echo.configureBlocking(false);
            c.configureBlocking(false);
            Thread echoer = Thread.ofPlatform().daemon().name("udp-echo").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(size);
                ByteBuffer ack = ByteBuffer.allocateDirect(8);
                try {
                    while (true) {
                        b.clear();
                        if (echo.read(b) > 0) {
                            long v = b.getLong(0);
                            if (v == -1) {
                                return;
                            }
                            if (v == ACK) {
                                continue;
                            }
                            b.flip();
                            echo.write(b);
                            if (acked) {
                                echo.write(ack.clear().putLong(0, ACK));
                            }
                        }
                    }
                } catch (IOException e) {
                    // the client closed
                }
            });
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            ByteBuffer in = ByteBuffer.allocateDirect(size);
            ByteBuffer ack = ByteBuffer.allocateDirect(8);
            Warmup warm = new Warmup(iterations / 5);
            long[] rtt = new long[iterations];
            int measured = 0;
            long stopAt = Long.MAX_VALUE;
            try {
                for (long r = 1; measured < iterations && System.nanoTime() < stopAt; r++) {
                    long t = System.nanoTime();
                    boolean measures = warm.measures(r, t);
                    if (measures && stopAt == Long.MAX_VALUE) {
                        stopAt = t + 5_000_000_000L;
                    }
                    out.clear();
                    out.putLong(0, r);
                    c.write(out);
                    if (acked) {
                        c.write(ack.clear().putLong(0, ACK));
                    }
                    long deadline = t + 1_000_000_000L;
                    while (true) {
                        in.clear();
                        if (c.read(in) > 0 && in.getLong(0) == r) {
                            break;
                        }
                        if (System.nanoTime() > deadline) {
                            throw new IOException("no echo of round " + r + " within a second (a datagram lost)");
                        }
                    }
                    if (measures) {
                        rtt[measured++] = System.nanoTime() - t;
                    }
                }
            } finally {
                out.clear();
                out.putLong(0, -1);
                for (int k = 0; k < 3 && echoer.isAlive(); k++) { // the stop datagram may be lost too
                    out.rewind();
                    c.write(out);
                    echoer.join(200);
                }
            }
            long[] done = Arrays.copyOf(rtt, measured);
            Arrays.sort(done);
            return done;
        }
    }
}
