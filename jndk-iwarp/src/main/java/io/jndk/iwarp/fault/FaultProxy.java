package io.jndk.iwarp.fault;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A TCP proxy on 127.0.0.1 (port chosen by the system) that forwards every accepted connection to a target and
 * passes each chunk of both byte streams through a {@link FaultPlan}. Connect a connector to {@link #address()}
 * instead of the listener's address and the connection, MPA setup included, runs through the faults.
 *
 * <p>Each connection has two pump virtual threads, one per direction; an end of stream is forwarded as a
 * half-close, a reset fault or an I/O error closes both sides abortively (RST). Delays are bounded by
 * {@value #MAX_DELAY_MILLIS} ms. The proxy counts the faults it injected by kind ({@link #injected}).
 */
public final class FaultProxy implements AutoCloseable {
    /** Upper bound of one delay. */
    public static final int MAX_DELAY_MILLIS = 1000;
    private static final int CHUNK = 16 * 1024;

    private final ServerSocketChannel server;
    private final InetSocketAddress target;
    private final InetSocketAddress address;
    private volatile FaultPlan plan;
    private final AtomicLongArray injected = new AtomicLongArray(FaultKind.values().length);
    private final AtomicInteger accepted = new AtomicInteger();
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FaultProxy(ServerSocketChannel server, InetSocketAddress target, FaultPlan plan) throws IOException {
        this.server = server;
        this.target = target;
        this.plan = plan;
        this.address = (InetSocketAddress) server.getLocalAddress();
    }

    /**
     * Starts a proxy for {@code target}.
     *
     * @param target where accepted connections are forwarded
     * @param plan the fault plan (see {@link #plan(FaultPlan)} to change it later)
     * @return the running proxy
     * @throws IOException if the listening socket cannot be opened
     */
    public static FaultProxy start(InetSocketAddress target, FaultPlan plan) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            FaultProxy p = new FaultProxy(s, target, plan);
            Thread.ofVirtual().name("fault-proxy-accept").start(p::acceptLoop);
            return p;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** @return the address to connect to */
    public InetSocketAddress address() {
        return address;
    }

    /** Replaces the plan; chunks read afterwards follow the new one (for example: no faults until set up). */
    public void plan(FaultPlan p) {
        this.plan = p;
    }

    /** @return how many faults of {@code kind} this proxy injected (for {@link FaultKind#PASS}: 0) */
    public long injected(FaultKind kind) {
        return injected.get(kind.ordinal());
    }

    /** @return how many destructive faults (corrupt, drop, reset) this proxy injected */
    public long destructive() {
        long n = 0;
        for (FaultKind k : FaultKind.values()) {
            if (k.destructive) {
                n += injected.get(k.ordinal());
            }
        }
        return n;
    }

    /** @return connections accepted so far */
    public int connections() {
        return accepted.get();
    }

    /** Stops accepting and resets every open connection. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        for (SocketChannel c : open) {
            reset(c);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            int connection = accepted.getAndIncrement();
            Thread.ofVirtual().name("fault-proxy-" + connection).start(() -> forward(connection, client));
        }
    }

    private void forward(int connection, SocketChannel client) {
        open.add(client);
        SocketChannel upstream;
        try {
            upstream = SocketChannel.open();
            open.add(upstream);
            upstream.connect(target);
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            upstream.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            reset(client);
            return;
        }
        if (closed) {
            reset(client);
            reset(upstream);
            return;
        }
        Thread down = Thread.ofVirtual().name("fault-proxy-" + connection + "-down")
            .start(() -> pump(connection, FaultDirection.TO_CLIENT, upstream, client));
        pump(connection, FaultDirection.TO_TARGET, client, upstream);
        try {
            down.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(client);
        closeQuietly(upstream);
        open.remove(client);
        open.remove(upstream);
    }

    /** Forwards one direction until its end of stream (half-closed onwards) or a reset. */
    private void pump(int connection, FaultDirection direction, SocketChannel from, SocketChannel to) {
        ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
        long offset = 0;
        try {
            while (true) {
                buffer.clear();
                int n = from.read(buffer);
                if (n < 0) {
                    to.shutdownOutput();
                    return;
                }
                if (n == 0) {
                    continue;
                }
                buffer.flip();
                FaultAction action = plan.decide(connection, direction, offset, n);
                offset += n;
                if (!apply(action, buffer, to)) {
                    reset(from);
                    reset(to);
                    return;
                }
            }
        } catch (IOException e) {
            reset(from);
            reset(to);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reset(from);
            reset(to);
        }
    }

    /** @return false when the connection is to be reset */
    private boolean apply(FaultAction a, ByteBuffer chunk, SocketChannel to) throws IOException, InterruptedException {
        int n = chunk.remaining();
        int at = Math.min(a.at(), n - 1);
        switch (a.kind()) {
            case PASS -> write(to, chunk, 0, n);
            case SPLIT -> {
                int pieces = Math.min(a.amount(), n);
                if (pieces < 2) {
                    write(to, chunk, 0, n);
                    return true;
                }
                count(FaultKind.SPLIT);
                int size = (n + pieces - 1) / pieces;
                for (int from = 0; from < n; from += size) {
                    write(to, chunk, from, Math.min(n, from + size));
                }
            }
            case DELAY -> {
                count(FaultKind.DELAY);
                Thread.sleep(Math.min(a.amount(), MAX_DELAY_MILLIS));
                write(to, chunk, 0, n);
            }
            case CORRUPT -> {
                count(FaultKind.CORRUPT);
                chunk.put(at, (byte) (chunk.get(at) ^ a.amount()));
                write(to, chunk, 0, n);
            }
            case DROP -> {
                count(FaultKind.DROP);
                int end = Math.min(n, at + a.amount());
                write(to, chunk, 0, at);
                write(to, chunk, end, n);
            }
            case RESET -> {
                count(FaultKind.RESET);
                write(to, chunk, 0, Math.min(a.at(), n));
                return false;
            }
        }
        return true;
    }

    private void count(FaultKind k) {
        injected.incrementAndGet(k.ordinal());
    }

    private static void write(SocketChannel to, ByteBuffer chunk, int from, int end) throws IOException {
        ByteBuffer view = chunk.duplicate().position(0).limit(end).position(from);
        while (view.hasRemaining()) {
            to.write(view);
        }
    }

    /** Closes abortively: SO_LINGER 0 makes the close send a RST. */
    private static void reset(SocketChannel c) {
        try {
            if (c.isOpen()) {
                c.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        } catch (IOException | RuntimeException ignored) {
            // already closed or reset: close below
        }
        closeQuietly(c);
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
