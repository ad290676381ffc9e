package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared engine at scale, not timed: 2,000 connections (1,000 QP pairs, both ends in this JVM) between two
 * adapters of two engine loops each run on those loops alone (no thread per connection), move verified data (a Write
 * and a Read on every pair), and close without leaking a thread, a file descriptor or registered memory (the shared
 * arena of every registered buffer closes, which it refuses while any engine still holds its memory).
 */
@Timeout(600)
class SharedEngineConnectionsTest {
    private static final int PAIRS = 1000;
    private static final int LOOPS = 2;
    private static final int SLOT = 64;
    /** How long the close may take to return every thread and descriptor. */
    private static final long SETTLE_NANOS = 30_000_000_000L;

    @Test
    void twoThousandConnectionsRunOnTheConfiguredEngineLoopsAndLeaveNothingBehind() {
        Map<String, String> options = Map.of("engine", "shared", "engine.loops", Integer.toString(LOOPS));
        run(1, options); // what the JVM opens once (selector provider, NIO's deferred-close pair) is not a leak
        Kit.awaitTrueOrTimeout(() -> jndkThreads().isEmpty());
        int fdsBefore = fds();
        List<String> fdNames = fdNames();
        List<String> before = jndkThreads();
        run(PAIRS, options);
        long deadline = System.nanoTime() + SETTLE_NANOS;
        while ((jndkThreads().size() > before.size() || fds() > fdsBefore) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(20_000_000L); // polling with a deadline
        }
        assertThat(jndkThreads()).as("threads after the close").isSubsetOf(before);
        assertThat(fds()).as("file descriptors after the close: before %s, after %s", fdNames, fdNames())
            .isLessThanOrEqualTo(fdsBefore);
    }

    private static void run(int count, Map<String, String> options) {
        try (World w = new World(new Mode("iwarp", false))) {
            NdkAdapter a = w.adapter(options), b = w.adapter(options);
            NdkPd pdA = w.pd(a), pdB = w.pd(b);
            NdkCq cqA = w.cq(a, 4 * count), cqB = w.cq(b, 4 * count);
            Buffer src = w.buffer(count * SLOT).fillRandom(16), dst = w.buffer(count * SLOT);
            Buffer remote = w.buffer(count * SLOT).fillRandom(17), sink = w.buffer(count * SLOT);
            NdkMr srcMr = w.registerAll(pdA, src), sinkMr = w.registerAll(pdA, sink);
            NdkMr dstMr = w.registerAll(pdB, dst), remoteMr = w.registerAll(pdB, remote);
            ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
            Ref<InetSocketAddress> bound = new Ref<>();
            w.listen(b, incoming, bound);
            List<World.Pair> pairs = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                World.Pair p = new World.Pair();
                p.a.adapter = a;
                p.b.adapter = b;
                p.a.pd = pdA;
                p.b.pd = pdB;
                p.a.cq = cqA;
                p.b.cq = cqB;
                p.a.qp = w.qp(pdA, cqA, cqA, i, 4, 4, 1, 1, 0);
                p.b.qp = w.qp(pdB, cqB, cqB, i, 4, 4, 1, 1, 0);
                p.address = bound.get();
                w.connectPair(p, incoming, 4, 4);
                pairs.add(p);
            }
            List<String> during = jndkThreads();
            assertThat(during.stream().filter(n -> n.startsWith("iwarp-engine-")).count())
                .as("engine loop threads with %d connections: %s", 2 * count, during)
                .isBetween(1L, (long) Math.min(2 * LOOPS, 2 * count));
            assertThat(during).as("no thread of a connection of its own")
                .noneMatch(n -> n.endsWith("-tx") || n.endsWith("-rx"));

            for (int i = 0; i < count; i++) {
                World.Pair p = pairs.get(i);
                assertThat(p.a.qp.write("w", new NdkSge[] {src.sge((long) i * SLOT, SLOT, srcMr.getLocalToken())}, 1,
                    dst.address() + (long) i * SLOT, dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge((long) i * SLOT, SLOT, sinkMr.getLocalToken())}, 1,
                    remote.address() + (long) i * SLOT, remoteMr.getRemoteToken(), 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            for (NdkResultEx r : Kit.poll(cqA, 2 * count)) {
                assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_SUCCESS));
            }
            dst.assertSame(0, src, 0, (long) count * SLOT);
            sink.assertSame(0, remote, 0, (long) count * SLOT);
        } // closes QPs, connectors, MRs, adapters, then the arena (which refuses memory still held)
    }

    /** The /proc/net/tcp line of a socket inode (local, remote, state), or "" if it is not TCP. */
    private static String tcpState(String inode) {
        try {
            for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[9].equals(inode)) {
                        return " " + f[1] + " " + f[2] + " " + f[3];
                    }
                }
            }
        } catch (IOException e) {
            return "";
        }
        return "";
    }

    private static List<String> fdNames() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.map(p -> {
                try {
                    return Files.readSymbolicLink(p).toString();
                } catch (IOException e) {
                    return "gone";
                }
            }).map(l -> l.startsWith("socket:[") ? l + tcpState(l.substring(8, l.length() - 1)) : l).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Live platform threads named like jndk's engine ({@code iwarp-*}). */
    private static List<String> jndkThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .filter(n -> n.startsWith("iwarp-")).toList();
    }

    private static int fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
