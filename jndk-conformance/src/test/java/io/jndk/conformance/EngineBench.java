package io.jndk.conformance;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Engine measurements beside raw NIO in one run (not a test; run by hand, see docs/DECISIONS.md "Threading
 * model"), next to jndk-benchmarks' {@code NioBaseline} in the same run: 8-byte RDMA Write ping-pong round
 * trips (each side polls its buffer for the peer's sequence number, as perftest's ib_write_lat does) and 64 KiB
 * RDMA Write bandwidth over {@code N} connections driven round-robin by one thread. Prints one JSON object per line.
 *
 * <p>Arguments: {@code lat|bw connections iterations [key=value adapter options...]}, or {@code rate batch
 * iterations [options...]}: 8-byte writes on one connection posted in batches of which all but the last are
 * deferred ({@code NDK_OP_FLAG_DEFER}), to see what batching the doorbell buys.
 */
public final class EngineBench {
    private EngineBench() {}

    public static void main(String[] args) throws Exception {
        String what = args[0];
        int connections = Integer.parseInt(args[1]);
        int iterations = Integer.parseInt(args[2]);
        Map<String, String> options = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            options.put(kv[0], kv[1]);
        }
        switch (what) {
            case "lat" -> emit("write8.pingpong " + options + " conns=" + connections, "rtt_p50_us",
                writePingPong(options, connections, iterations));
            case "bw" -> emit("write64k.bw " + options + " conns=" + connections, "gbytes_per_s",
                writeBandwidth(options, connections, iterations));
            case "rate" -> emit("write8.rate " + options + " batch=" + connections, "mops_per_s",
                writeRate(options, connections, iterations));
            default -> throw new IllegalArgumentException(what);
        }
        System.exit(0);
    }

    private static void emit(String name, String key, double value) {
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"%s\":%.3f}%n", name, key, value);
    }

    /** One connected pair with a registered 64 KiB buffer on each side. */
    private static final class Duo {
        final World.Pair p;
        final Buffer a;
        final Buffer b;
        final NdkMr mrA;
        final NdkMr mrB;

        Duo(World w, Map<String, String> options) {
            p = w.connect(false, 64, 16, 16, options);
            a = w.buffer(1 << 16);
            b = w.buffer(1 << 16);
            mrA = w.registerAll(p.a.pd, a);
            mrB = w.registerAll(p.b.pd, b);
        }
    }

    /** Round trips of 8-byte writes on the first of {@code connections} connections; returns the median in µs. */
    static double writePingPong(Map<String, String> options, int connections, int iterations) throws Exception {
        try (World w = new World(new Mode("iwarp", false))) {
            Duo[] duos = new Duo[connections];
            for (int i = 0; i < connections; i++) {
                duos[i] = new Duo(w, options);
            }
            Duo d = duos[0];
            int warmup = iterations / 5;
            int total = warmup + iterations;
            Thread echo = new Thread(() -> {
                NdkSge[] sge = {new NdkSge(d.b.address(), 8, d.mrB.getLocalToken())};
                NdkResultEx[] r = results();
                for (long seq = 1; seq <= total; seq++) {
                    while (d.b.segment().get(ValueLayout.JAVA_LONG, 0) != seq) {
                        d.p.b.cq.getCqResultsEx(r, r.length);
                        Thread.yield(); // two cores: leave the engine threads room to run
                    }
                    post(d.p.b.qp.write(null, sge, 1, d.a.address(), d.mrA.getRemoteToken(), 0));
                }
            });
            echo.setDaemon(true);
            echo.start();
            NdkSge[] sge = {new NdkSge(d.a.address() + 64, 8, d.mrA.getLocalToken())};
            NdkResultEx[] r = results();
            long[] rtt = new long[iterations];
            for (long seq = 1; seq <= total; seq++) {
                d.a.segment().set(ValueLayout.JAVA_LONG, 64, seq);
                long t = System.nanoTime();
                post(d.p.a.qp.write(null, sge, 1, d.b.address(), d.mrB.getRemoteToken(), 0));
                while (d.a.segment().get(ValueLayout.JAVA_LONG, 0) != seq) {
                    d.p.a.cq.getCqResultsEx(r, r.length);
                    Thread.yield();
                }
                if (seq > warmup) {
                    rtt[(int) (seq - warmup - 1)] = System.nanoTime() - t;
                }
            }
            echo.join();
            drain(d.p.a.cq);
            drain(d.p.b.cq);
            Arrays.sort(rtt);
            return rtt[iterations / 2] / 1000.0;
        }
    }

    /** 64 KiB writes, up to 8 in flight per connection, one thread round-robin; returns GB/s. */
    static double writeBandwidth(Map<String, String> options, int connections, int iterations) {
        try (World w = new World(new Mode("iwarp", false))) {
            Duo[] duos = new Duo[connections];
            for (int i = 0; i < connections; i++) {
                duos[i] = new Duo(w, options);
            }
            int depth = 8;
            int[] inFlight = new int[connections];
            NdkSge[] sge = {new NdkSge()};
            NdkResultEx[] r = results();
            long warmup = iterations / 5;
            long posted = 0;
            long done = 0;
            long start = 0;
            long total = warmup + iterations;
            while (done < total) {
                for (int c = 0; c < connections; c++) {
                    Duo d = duos[c];
                    while (inFlight[c] < depth && posted < total) {
                        sge[0].set(d.a.address(), 1 << 16, d.mrA.getLocalToken());
                        post(d.p.a.qp.write(null, sge, 1, d.b.address(), d.mrB.getRemoteToken(), 0));
                        inFlight[c]++;
                        posted++;
                    }
                    int n = d.p.a.cq.getCqResultsEx(r, r.length);
                    for (int k = 0; k < n; k++) {
                        if (r[k].status != NtStatus.STATUS_SUCCESS) {
                            throw new IllegalStateException(r[k].toString());
                        }
                    }
                    inFlight[c] -= n;
                    done += n;
                    if (start == 0 && done >= warmup) {
                        start = System.nanoTime();
                    }
                }
                Thread.yield();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return (iterations * (double) (1 << 16)) / seconds / 1e9;
        }
    }

    /** 8-byte writes in batches of {@code batch} (all but the last deferred), one batch in flight; returns Mops/s. */
    static double writeRate(Map<String, String> options, int batch, int iterations) {
        try (World w = new World(new Mode("iwarp", false))) {
            Duo d = new Duo(w, options);
            NdkSge[] sge = {new NdkSge(d.a.address(), 8, d.mrA.getLocalToken())};
            NdkResultEx[] r = results();
            int rounds = iterations / batch;
            int warmup = rounds / 5;
            long start = 0;
            for (int i = -warmup; i < rounds; i++) {
                if (i == 0) {
                    start = System.nanoTime();
                }
                for (int k = 0; k < batch; k++) {
                    int flags = k < batch - 1 ? io.jndk.api.NdkOpFlags.DEFER : 0;
                    post(d.p.a.qp.write(null, sge, 1, d.b.address(), d.mrB.getRemoteToken(), flags));
                }
                int done = 0;
                while (done < batch) {
                    done += d.p.a.cq.getCqResultsEx(r, r.length);
                    Thread.yield();
                }
            }
            return rounds * (double) batch / ((System.nanoTime() - start) / 1e3);
        }
    }

    /** Completion slots: each wait drains up to this many, so that the CQ never fills. */
    private static NdkResultEx[] results() {
        NdkResultEx[] r = new NdkResultEx[16];
        for (int i = 0; i < r.length; i++) {
            r[i] = new NdkResultEx();
        }
        return r;
    }

    private static void post(int status) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new IllegalStateException(NtStatus.describe(status));
        }
    }

    private static void drain(NdkCq cq) {
        NdkResultEx[] r = {new NdkResultEx()};
        long end = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < end) {
            cq.getCqResultsEx(r, 1);
        }
    }
}
