package io.jndk.bench;

import io.jndk.tools.kit.CpuSteal;
import io.jndk.tools.kit.ProcessCpu;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Baselines measured on this machine in the same run as jndk: raw Java NIO over 127.0.0.1 (one connection,
 * 64 KiB streaming from a direct buffer into a 64 KiB direct buffer, with and without CRC32c over every byte;
 * 8-byte ping-pong, spinning and blocking) and {@code MemorySegment.copy}. Prints one JSON object per line.
 *
 * <p>The streaming figure is the best raw NIO can do with the shape jndk's benchmark has (one 64 KiB source,
 * one 64 KiB destination, both cache-warm): socket buffers are left to the kernel's auto-tuning (setting
 * {@code SO_SNDBUF}/{@code SO_RCVBUF} switches it off and measured slower), the reader reads into a buffer of the
 * message size (a 1 MiB reader buffer measured about a third slower: every copy lands in cold cache), each
 * connection warms up for half a second before it is measured, and the figure is the median of
 * {@link #RUNS} connections, reported with their minimum and maximum.
 */
public final class NioBaseline {
    private NioBaseline() {}

    /** Streaming connections measured per figure. */
    static final int RUNS = 3;

    /**
     * Entry point: {@code [seconds]} per streaming connection (default 2), then {@code pair} for one 64 KiB stream
     * without and one with CRC32c only ({@code nio.pair.64k}, {@code nio.pair.64k.crc}), or {@code pingpong} for the
     * spinning and the blocking ping-pong only ({@code nio.pair.pingpong.spin}, {@code nio.pair.pingpong.block}): the
     * samples that {@code bench/run.sh} takes just before each round of jndk's target rows, so that each round's ratio
     * compares figures measured within the same minute.
     */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        if (args.length > 1 && args[1].equals("pingpong")) {
            printPingPong("nio.pair.pingpong.spin", pingPong(true, 50_000));
            printPingPong("nio.pair.pingpong.block", pingPong(false, 20_000));
            return;
        }
        stream(65536, false, 1.0); // warm the JIT and the socket paths before measuring, until the JIT is quiet
        Warmup.untilJitQuiet(() -> {
            stream(65536, false, 0.3);
            stream(65536, true, 0.3);
        });
        if (args.length > 1 && args[1].equals("pair")) {
            for (boolean crc : new boolean[] {false, true}) {
                double g = stream(65536, crc, seconds);
                System.out.printf(Locale.ROOT, "{\"name\":\"nio.pair.64k%s\",\"gbytes_per_s\":%.4f,\"cpu_s_per_gb\":%.4f%s}%n",
                        crc ? ".crc" : "", g, lastCpuPerGb, CpuSteal.jsonField(lastStealPercent));
            }
            return;
        }
        for (boolean crc : new boolean[] {false, true}) {
            double[] g = new double[RUNS];
            double[] cpu = new double[RUNS];
            for (int i = 0; i < RUNS; i++) {
                g[i] = stream(65536, crc, seconds);
                cpu[i] = lastCpuPerGb;
            }
            Arrays.sort(g);
            Arrays.sort(cpu);
            System.out.printf(Locale.ROOT, "{\"name\":\"nio.stream.64k%s\",\"gbytes_per_s\":%.4f,\"min\":%.4f,\"max\":%.4f,"
                    + "\"runs\":%d,\"cpu_s_per_gb\":%.4f}%n", crc ? ".crc" : "", g[RUNS / 2], g[0], g[RUNS - 1], RUNS,
                    cpu[RUNS / 2]);
        }
        for (boolean spin : new boolean[] {true, false}) {
            printPingPong("nio.pingpong." + (spin ? "spin" : "block"), pingPong(spin, spin ? 50_000 : 20_000));
        }
        for (int size : new int[] {8, 4096, 1 << 20}) { // the other points of the bandwidth-versus-size chart
            System.out.printf(Locale.ROOT, "{\"name\":\"nio.stream.%d\",\"size\":%d,\"gbytes_per_s\":%.4f}%n", size, size,
                    stream(size, false, seconds / 2));
        }
        System.out.printf(Locale.ROOT, "{\"name\":\"memcopy.1m\",\"gbytes_per_s\":%.4f}%n", copy(1 << 20, seconds));
    }

    /** One ping-pong's record: p50 and p99 of its sorted round trips, in µs. */
    private static void printPingPong(String name, long[] rtt) {
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"rtt_p50_us\":%.4f,\"rtt_p99_us\":%.4f,\"iters\":%d}%n", name,
                rtt[rtt.length / 2] / 1000.0, rtt[(int) (rtt.length * 0.99)] / 1000.0, rtt.length);
    }

    private static ServerSocketChannel listen() throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return s;
    }

    /** CPU seconds (user + system, both ends: this process) per GB of the last {@link #stream}'s measured window. */
    static double lastCpuPerGb;
    /** The share of the machine's CPU time stolen by its hypervisor over the last {@link #stream}'s measured window. */
    static double lastStealPercent;

    /** Streams {@code chunk}-byte writes for {@code seconds} after half a second of warm-up; returns GB/s sent. */
    static double stream(int chunk, boolean crc, double seconds) throws Exception {
        try (ServerSocketChannel server = listen()) {
            Thread sink = Thread.ofPlatform().start(() -> {
                try (SocketChannel c = server.accept()) {
                    ByteBuffer b = ByteBuffer.allocateDirect(chunk);
                    CRC32C check = new CRC32C();
                    while (c.read(b) >= 0) {
                        if (crc) {
                            b.flip();
                            check.update(b);
                        }
                        b.clear();
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer b = ByteBuffer.allocateDirect(chunk);
                CRC32C sum = new CRC32C();
                long warm = System.nanoTime() + 500_000_000L;
                long bytes = 0;
                long start = 0;
                long end = 0;
                double cpu0 = 0;
                long[] steal0 = null;
                while (true) {
                    long now = System.nanoTime();
                    if (start == 0 && now >= warm) {
                        start = now;
                        bytes = 0;
                        cpu0 = ProcessCpu.seconds();
                        steal0 = CpuSteal.sample();
                        end = start + (long) (seconds * 1e9);
                    }
                    if (start != 0 && now >= end) {
                        break;
                    }
                    b.clear();
                    if (crc) {
                        sum.update(b);
                        b.clear();
                    }
                    while (b.hasRemaining()) {
                        bytes += c.write(b);
                    }
                }
                double gbs = bytes / ((System.nanoTime() - start) / 1e9) / 1e9;
                lastCpuPerGb = (ProcessCpu.seconds() - cpu0) / (bytes / 1e9);
                lastStealPercent = CpuSteal.percent(steal0, CpuSteal.sample());
                c.shutdownOutput();
                sink.join();
                return gbs;
            }
        }
    }

    /**
     * 8-byte ping-pong round trips: {@code iterations} after a warm-up of a fifth as many rounds and at least a second
     * ({@link Warmup}), or fewer if measuring takes longer than five seconds (a loaded machine); returns them sorted,
     * in ns.
     */
    static long[] pingPong(boolean spin, int iterations) throws Exception {
        try (ServerSocketChannel server = listen()) {
            Thread echo = Thread.ofPlatform().start(() -> {
                try (SocketChannel c = server.accept()) {
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    c.configureBlocking(!spin);
                    ByteBuffer b = ByteBuffer.allocateDirect(8);
                    while (true) {
                        b.clear();
                        while (b.hasRemaining()) {
                            if (c.read(b) < 0) {
                                return;
                            }
                        }
                        b.flip();
                        while (b.hasRemaining()) {
                            c.write(b);
                        }
                    }
                } catch (IOException e) {
                    // the client closed
                }
            });
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.configureBlocking(!spin);
                ByteBuffer b = ByteBuffer.allocateDirect(8);
                Warmup warm = new Warmup(iterations / 5);
                long[] rtt = new long[iterations];
                int measured = 0;
                long stopAt = Long.MAX_VALUE;
                for (long r = 1; measured < iterations && System.nanoTime() < stopAt; r++) {
                    long t = System.nanoTime();
                    boolean measures = warm.measures(r, t);
                    if (measures && stopAt == Long.MAX_VALUE) {
                        stopAt = t + 5_000_000_000L;
                    }
                    b.clear();
                    while (b.hasRemaining()) {
                        c.write(b);
                    }
                    b.clear();
                    while (b.hasRemaining()) {
                        if (c.read(b) < 0) {
                            throw new IOException("echo closed");
                        }
                    }
                    if (measures) {
                        rtt[measured++] = System.nanoTime() - t;
                    }
                }
                c.shutdownOutput();
                echo.join();
                long[] done = Arrays.copyOf(rtt, measured);
                Arrays.sort(done);
                return done;
            }
        }
    }

    /** {@code MemorySegment.copy} of {@code size} bytes between native segments; returns GB/s. */
    static double copy(int size, double seconds) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(size, 4096);
            MemorySegment b = arena.allocate(size, 4096);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long bytes = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                MemorySegment.copy(a, 0, b, 0, size);
                bytes += size;
            }
            return bytes / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
    }
}
