package io.jndk.bench;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Many QPs at once: connects one QP pair and measures its RDMA Write streaming bandwidth, then connects
 * {@code n} more pairs between the same two adapters (timing the setup), measures what they cost (heap after GC,
 * direct buffers, resident memory, platform threads, file descriptors) and streams Writes on all of them at once
 * from one posting thread. Prints one JSON object. Arguments: {@code [qps] [seconds] [size] [depth] [transport]
 * [key=value provider options...]}.
 */
public final class Scale {
    private Scale() {}

    /** What the process holds at one moment. */
    record Footprint(long heap, long direct, long rss, int threads, int fds) {
        static Footprint now() {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            Runtime r = Runtime.getRuntime();
            long direct = 0;
            for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                direct += b.getMemoryUsed();
            }
            return new Footprint(r.totalMemory() - r.freeMemory(), direct, readRss(),
                    ManagementFactory.getThreadMXBean().getThreadCount(), countFds());
        }

        private static long readRss() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (IOException e) {
                return -1;
            }
            return -1;
        }

        private static int countFds() {
            try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
                return (int) s.count();
            } catch (IOException e) {
                return -1;
            }
        }
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        int qps = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        int size = args.length > 2 ? Integer.parseInt(args[2]) : 65536;
        int depth = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        String transport = args.length > 4 ? args[4] : "iwarp";
        Map<String, String> options = Fabric.options(args, 5);
        try (Arena arena = Arena.ofShared(); Fabric f = Fabric.open(transport, options)) {
            MemorySegment src = arena.allocate(size, 4096), dst = arena.allocate(size, 4096);
            fill(src, 0x5CA1EL);
            NdkMr srcMr = f.register(f.pdA, src), dstMr = f.register(f.pdB, dst);
            int oneDepth = 16;
            NdkCq oneA = f.cq(f.a, oneDepth * 2, null), oneB = f.cq(f.b, oneDepth * 2, null);
            List<NdkQp> one = f.connect(1, 1, oneA, oneB, oneDepth, new ArrayList<>());
            double oneGbs = stream(one, oneA, oneDepth, seconds, src, srcMr, dst, dstMr);
            Footprint before = Footprint.now();
            NdkCq cqA = f.cq(f.a, qps * depth * 2, null), cqB = f.cq(f.b, qps * depth * 2, null);
            long t0 = System.nanoTime();
            List<NdkQp> many = f.connect(qps, 64, cqA, cqB, depth, new ArrayList<>());
            double setup = (System.nanoTime() - t0) / 1e9;
            Footprint after = Footprint.now();
            double manyGbs = stream(many, cqA, depth, seconds, src, srcMr, dst, dstMr);
            long mismatches = verify(f, arena, many, cqA, src, dst);
            System.out.printf(Locale.ROOT, "{\"name\":\"scale\",\"transport\":\"%s\",\"qps\":%d,\"size\":%d,\"depth\":%d,"
                    + "\"setup_s\":%.3f,\"one_qp_gbytes_per_s\":%.4f,\"one_qp_depth\":%d,\"gbytes_per_s\":%.4f,\"ratio\":%.4f,"
                    + "\"heap_per_qp_bytes\":%d,\"direct_per_qp_bytes\":%d,\"rss_per_qp_bytes\":%d,\"platform_threads\":%d,"
                    + "\"platform_threads_before\":%d,\"engine_threads\":%d,\"cores\":%d,\"fds\":%d,\"fds_before\":%d,"
                    + "\"connect_retries\":%d,\"verified\":%s,\"mismatches\":%d}%n", transport, qps, size, depth, setup,
                    oneGbs, oneDepth, manyGbs, manyGbs / oneGbs, (after.heap() - before.heap()) / qps,
                    (after.direct() - before.direct()) / qps, (after.rss() - before.rss()) / qps, after.threads(),
                    before.threads(), engineThreads(), Runtime.getRuntime().availableProcessors(), after.fds(),
                    before.fds(), f.retries(), mismatches == 0, mismatches);
            if (mismatches != 0) {
                throw new IllegalStateException(mismatches + " words of the target or tags did not arrive as written");
            }
        }
    }

    /** Fills {@code seg} with a seeded pattern. */
    static void fill(MemorySegment seg, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= seg.byteSize(); i += 8) {
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
    }

    /** {@code n} result holders for polling. */
    private static NdkResultEx[] results(int n) {
        NdkResultEx[] res = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            res[i] = new NdkResultEx();
        }
        return res;
    }

    /** The tag QP {@code i} writes into its own slot. */
    private static long tag(int i) {
        return 0x7A6E_0000_0000_0000L | i;
    }

    /**
     * After the streaming: the target must hold the source (every QP wrote it there), and each QP writes its own tag
     * into its own 8-byte slot of B's memory and reads the slot back (an RDMA Read completes after the Writes
     * before it on its QP were placed). Returns how many 8-octet words of the target, and tags written or read
     * back, differ.
     */
    static long verify(Fabric f, Arena arena, List<NdkQp> qps, NdkCq cq, MemorySegment src, MemorySegment dst) {
        int n = qps.size();
        MemorySegment out = arena.allocate(8L * n, 8), back = arena.allocate(8L * n, 8), slots = arena.allocate(8L * n, 8);
        NdkMr outMr = f.register(f.pdA, out), backMr = f.register(f.pdA, back), slotsMr = f.register(f.pdB, slots);
        NdkResultEx[] res = results(256);
        NdkSge[] sge = {new NdkSge()};
        long due = 0;
        for (int i = 0; i < n; i++) {
            out.set(ValueLayout.JAVA_LONG, 8L * i, tag(i));
            sge[0].set(out.address() + 8L * i, 8, outMr.getLocalToken());
            Calls.check("Write", qps.get(i).write(null, sge, 1, slots.address() + 8L * i, slotsMr.getRemoteToken(), 0));
            sge[0].set(back.address() + 8L * i, 8, backMr.getLocalToken());
            Calls.check("Read", qps.get(i).read(null, sge, 1, slots.address() + 8L * i, slotsMr.getRemoteToken(), 0));
            due += 2;
            while (due > 0 && (due >= 512 || i == n - 1)) { // at most 512 in flight on the shared CQ
                int k = cq.getCqResultsEx(res, res.length);
                for (int j = 0; j < k; j++) {
                    if (res[j].status != NtStatus.STATUS_SUCCESS) {
                        throw new IllegalStateException("verification completion: " + NtStatus.describe(res[j].status));
                    }
                }
                due -= k;
                if (k == 0) {
                    Thread.yield();
                }
            }
        }
        long bad = 0;
        for (int i = 0; i < n; i++) {
            bad += back.get(ValueLayout.JAVA_LONG, 8L * i) != tag(i) ? 1 : 0;
            bad += slots.get(ValueLayout.JAVA_LONG, 8L * i) != tag(i) ? 1 : 0;
        }
        for (long at = 0; at + 8 <= src.byteSize(); at += 8) {
            bad += src.get(ValueLayout.JAVA_LONG_UNALIGNED, at) != dst.get(ValueLayout.JAVA_LONG_UNALIGNED, at) ? 1 : 0;
        }
        return bad;
    }

    /** Live engine threads of jndk's iwarp transport: the shared engine's loops, or two per connection end. */
    static int engineThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("iwarp-engine-") || n.startsWith("iwarp-") && (n.endsWith("-tx") || n.endsWith("-rx")))
                .count();
    }

    /**
     * Streams {@code size}-byte RDMA Writes (all QPs write the same source into the same target) with up to
     * {@code depth} in flight per QP for {@code seconds}, completions reaped from {@code cq}; returns GB/s.
     */
    static double stream(List<NdkQp> qps, NdkCq cq, int depth, double seconds, MemorySegment src, NdkMr srcMr,
            MemorySegment dst, NdkMr dstMr) {
        int n = qps.size();
        int size = (int) src.byteSize();
        int[] inFlight = new int[n];
        Integer[] tags = new Integer[n];
        for (int i = 0; i < n; i++) {
            tags[i] = i;
        }
        NdkSge[] sge = {new NdkSge(src.address(), size, srcMr.getLocalToken())};
        NdkResultEx[] res = results(256);
        long completed = 0, posted = 0;
        long t0 = System.nanoTime(), end = t0 + (long) (seconds * 1e9);
        boolean running = true;
        while (running || posted > completed) {
            running = running && System.nanoTime() < end;
            for (int q = 0; running && q < n; q++) {
                while (inFlight[q] < depth) {
                    Calls.check("Write", qps.get(q).write(tags[q], sge, 1, dst.address(), dstMr.getRemoteToken(), 0));
                    inFlight[q]++;
                    posted++;
                }
            }
            int k = cq.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                if (res[i].status != NtStatus.STATUS_SUCCESS) {
                    throw new IllegalStateException("Write completion: " + NtStatus.describe(res[i].status));
                }
                inFlight[(Integer) res[i].requestContext]--;
            }
            completed += k;
            if (k == 0) {
                Thread.yield();
            }
            if (System.nanoTime() > end + Calls.TIMEOUT_MS * 1_000_000) {
                throw new IllegalStateException("Writes still outstanding long after the run");
            }
        }
        return completed * (double) size / ((System.nanoTime() - t0) / 1e9) / 1e9;
    }
}
