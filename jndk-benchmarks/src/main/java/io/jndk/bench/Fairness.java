package io.jndk.bench;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Fair service of the engine: {@code writers} QPs post 8-byte RDMA Writes one at a time, round robin, each timed
 * from the post to its completion, first alone, then while one more QP between the same adapters keeps
 * {@value #STORM_DEPTH} 1 MiB RDMA Reads outstanding back to back (the Read Responses stream into the writers'
 * adapter, served by the same engine loops). Prints one JSON object with both p50 and p99 and their ratio (the target:
 * the loaded p99 within 5 times the quiet one). Arguments: {@code [writers] [samples] [key=value provider
 * options...]}; {@code storm=wait} (the default) or {@code storm=spin}, not a provider option: how the storm's
 * consumer waits for its Read completions.
 *
 * <p>By default the storm's consumer waits for its completions as a storage server's would: it arms its CQ and parks
 * until the notification. With {@code storm=spin} it polls without a pause, and on a machine with few cores that
 * spinning thread takes a core from the engine: the writers' p99 then measures the operating system's time slices
 * (milliseconds) rather than the engine's service order.
 */
public final class Fairness {
    private static final int STORM_DEPTH = 4;
    private static final int STORM_SIZE = 1 << 20;

    private Fairness() {}

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        int writers = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Map<String, String> options = Fabric.options(args, 2);
        boolean spin = "spin".equals(options.remove("storm")); // not a provider option
        try (Arena arena = Arena.ofShared(); Fabric f = Fabric.open("iwarp", options)) {
            MemorySegment src = arena.allocate(8L * writers, 4096), dst = arena.allocate(8L * writers, 4096);
            MemorySegment sink = arena.allocate((long) STORM_SIZE * STORM_DEPTH, 4096);
            MemorySegment source = arena.allocate(STORM_SIZE, 4096);
            NdkMr srcMr = f.register(f.pdA, src), dstMr = f.register(f.pdB, dst);
            NdkMr sinkMr = f.register(f.pdA, sink), sourceMr = f.register(f.pdB, source);
            NdkCq cqW = f.cq(f.a, 4 * writers, null), cqWB = f.cq(f.b, 4 * writers, null);
            List<NdkQp> w = f.connect(writers, 16, cqW, cqWB, 4, new ArrayList<>());
            AtomicReference<Thread> stormThread = new AtomicReference<>();
            AtomicBoolean stormNotified = new AtomicBoolean();
            NdkCq cqR = f.cq(f.a, 4 * STORM_DEPTH, (ctx, status) -> {
                stormNotified.set(true);
                LockSupport.unpark(stormThread.get());
            });
            NdkCq cqRB = f.cq(f.b, 4 * STORM_DEPTH, null);
            Fabric.Pair storm = f.connect(cqR, cqRB, STORM_DEPTH);
            measure(w, cqW, samples / 4, src, srcMr, dst, dstMr); // warm-up
            long[] quiet = measure(w, cqW, samples, src, srcMr, dst, dstMr);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            Thread t = Thread.ofPlatform().name("fairness-storm").unstarted(() -> {
                NdkResultEx[] res = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};
                int out = 0;
                while (!stop.get() || out > 0) {
                    while (!stop.get() && out < STORM_DEPTH) {
                        int slot = (int) ((reads.get() + out) % STORM_DEPTH);
                        Calls.check("Read", storm.a().read(null, new NdkSge[] {new NdkSge(sink.address()
                                + (long) slot * STORM_SIZE, STORM_SIZE, sinkMr.getLocalToken())}, 1, source.address(),
                                sourceMr.getRemoteToken(), 0));
                        out++;
                    }
                    int k = cqR.getCqResultsEx(res, res.length);
                    if (k == 0 && !spin) {
                        // arm, then look again (a completion may have come before the arm), then park until notified
                        stormNotified.set(false);
                        cqR.armCq(NdkCqNotifyType.ANY);
                        k = cqR.getCqResultsEx(res, res.length);
                        long deadline = System.nanoTime() + Calls.TIMEOUT_MS * 1_000_000L;
                        while (k == 0 && !stormNotified.get()) {
                            LockSupport.parkNanos(1_000_000L); // the notification unparks it; each wait is bounded
                            if (System.nanoTime() > deadline) {
                                throw new IllegalStateException("no Read completion notified");
                            }
                        }
                    }
                    for (int i = 0; i < k; i++) {
                        Calls.check("Read completion", res[i].status);
                    }
                    out -= k;
                    reads.addAndGet(k);
                    if (k == 0 && spin) {
                        Thread.onSpinWait();
                    }
                }
            });
            stormThread.set(t);
            t.start();
            while (reads.get() < STORM_DEPTH) {
                Thread.onSpinWait(); // the storm is under way before the loaded run starts
            }
            long r0 = reads.get(), t0 = System.nanoTime();
            long[] loaded = measure(w, cqW, samples, src, srcMr, dst, dstMr);
            double stormGbs = (reads.get() - r0) * (double) STORM_SIZE / ((System.nanoTime() - t0) / 1e9) / 1e9;
            stop.set(true);
            t.join();
            double qp99 = quiet[(int) (quiet.length * 0.99)] / 1000.0, lp99 = loaded[(int) (loaded.length * 0.99)] / 1000.0;
            System.out.printf(Locale.ROOT, "{\"name\":\"fairness\",\"engine\":\"%s\",\"poll\":%s,\"yield_us\":\"%s\",\"storm\":\"%s\",\"writers\":%d,\"samples\":%d,\"quiet_p50_us\":%.2f,"
                    + "\"quiet_p99_us\":%.2f,\"storm_p50_us\":%.2f,\"storm_p99_us\":%.2f,\"p99_ratio\":%.3f,"
                    + "\"storm_read_gbytes_per_s\":%.4f}%n", options.getOrDefault("engine", "shared"),
                    options.getOrDefault("poll", "false"), options.getOrDefault("engine.yield.us", "default"),
                    spin ? "spin" : "wait", writers, samples, quiet[quiet.length / 2] / 1000.0, qp99,
                    loaded[loaded.length / 2] / 1000.0, lp99, lp99 / qp99, stormGbs);
        }
    }

    /** {@code n} 8-byte Writes, one at a time round robin over {@code qps}; returns their latencies sorted, in ns. */
    static long[] measure(List<NdkQp> qps, NdkCq cq, int n, MemorySegment src, NdkMr srcMr, MemorySegment dst,
            NdkMr dstMr) {
        long[] lat = new long[n];
        NdkResultEx[] res = {new NdkResultEx()};
        long deadline = System.nanoTime() + Calls.TIMEOUT_MS * 1_000_000L * 10;
        for (int i = 0; i < n; i++) {
            int q = i % qps.size();
            NdkSge[] sge = {new NdkSge(src.address() + 8L * q, 8, srcMr.getLocalToken())};
            long t0 = System.nanoTime();
            Calls.check("Write", qps.get(q).write(null, sge, 1, dst.address() + 8L * q, dstMr.getRemoteToken(), 0));
            while (cq.getCqResultsEx(res, 1) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("a Write did not complete");
                }
                Thread.onSpinWait();
            }
            lat[i] = System.nanoTime() - t0;
            if (res[0].status != NtStatus.STATUS_SUCCESS) {
                throw new IllegalStateException("Write completion: " + NtStatus.describe(res[0].status));
            }
        }
        Arrays.sort(lat);
        return lat;
    }
}
