package io.jndk.bench;

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
 * 64 KiB streaming from a direct buffer, with and without CRC32c over every byte; 8-byte ping-pong, spinning and
 * blocking) and {@code MemorySegment.copy}. Prints one JSON object per line.
 */
public final class NioBaseline {
    private NioBaseline() {}

    /** Entry point: {@code [seconds]} per streaming measurement (default 3). */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        stream(65536, false, 1.0); // warm the JIT and the socket paths before measuring
        emit("nio.stream.64k", "gbytes_per_s", stream(65536, false, seconds));
        emit("nio.stream.64k.crc", "gbytes_per_s", stream(65536, true, seconds));
        emit("nio.pingpong.spin", "rtt_p50_us", pingPong(true, 50_000));
        emit("nio.pingpong.block", "rtt_p50_us", pingPong(false, 20_000));
        emit("memcopy.1m", "gbytes_per_s", copy(1 << 20, seconds));
    }

    private static void emit(String name, String key, double value) {
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"%s\":%.4f}%n", name, key, value);
    }

    private static ServerSocketChannel listen() throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return s;
    }

    /** Streams {@code chunk}-byte writes for {@code seconds}; returns GB/s received. */
    static double stream(int chunk, boolean crc, double seconds) throws Exception {
        try (ServerSocketChannel server = listen()) {
            long[] received = {0};
            Thread sink = Thread.ofPlatform().start(() -> {
                try (SocketChannel c = server.accept()) {
                    ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                    CRC32C check = new CRC32C();
                    int n;
                    while ((n = c.read(b)) >= 0) {
                        if (crc) {
                            b.flip();
                            check.update(b);
                        }
                        received[0] += n;
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
                long warm = System.nanoTime() + 1_000_000_000L;
                long bytes = 0;
                long start = 0;
                long end = 0;
                while (true) {
                    long now = System.nanoTime();
                    if (start == 0 && now >= warm) {
                        start = now;
                        bytes = 0;
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
                c.shutdownOutput();
                sink.join();
                return gbs;
            }
        }
    }

    /** 8-byte ping-pong round trips; returns the median in microseconds. */
    static double pingPong(boolean spin, int iterations) throws Exception {
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
                int warmup = iterations / 5;
                long[] rtt = new long[iterations];
                for (int i = -warmup; i < iterations; i++) {
                    long t = System.nanoTime();
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
                    if (i >= 0) {
                        rtt[i] = System.nanoTime() - t;
                    }
                }
                c.shutdownOutput();
                echo.join();
                Arrays.sort(rtt);
                return rtt[iterations / 2] / 1000.0;
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
