package io.jndk.tools.perf;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.tools.kit.CpuSteal;
import io.jndk.tools.kit.JitWatch;
import io.jndk.tools.kit.ProcessCpu;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.ToolThread;
import io.jndk.tools.kit.WireTrouble;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The one-process run of {@code jndk perf}: two adapters, {@code qps} connected QP pairs between them, each pair
 * driven by its own thread(s); a row sums every pair's operations and merges their latency histograms.
 */
final class PerfLocal implements AutoCloseable {
    /** What a run measures and how. {@code seconds > 0} replaces the iteration count by a duration. */
    record Settings(String transport, boolean latencyMode, int depth, int qps, boolean inline, boolean block, boolean crc,
            String pcap, double seconds, double warmupSeconds, Map<String, String> options, InetAddress bindA, int cqMod) {}

    /** How much longer than asked a warm-up may run while the JIT is still busy: this many times, and seconds. */
    static final long WARM_UP_EXTENSION = 8;

    private final Settings settings;
    private final NdkAdapter a, b;
    private final NdkPd pdA, pdB;
    private final NdkListener listener;
    private final List<PerfPair> pairs = new ArrayList<>();
    private final int inlineLimit;
    /** One adapter per device under the run (both sides share one when they have the same address). */
    private final List<NdkAdapter> devices;

    PerfLocal(Settings settings, int maxSize) {
        this.settings = settings;
        InetAddress lo = InetAddress.getLoopbackAddress();
        // side A on --bind's address when given (over roce: a device of its own, as on another host)
        InetAddress from = settings.bindA() == null ? lo : settings.bindA();
        a = Session.open(settings.transport(), from, Session.options(settings.crc(), settings.pcap(), settings.options()));
        b = Session.open(settings.transport(), lo, Session.options(settings.crc(), null, settings.options()));
        devices = from.equals(lo) ? List.of(a) : List.of(a, b);
        inlineLimit = settings.inline() ? Math.min(a.info().maxInlineDataSize(), b.info().maxInlineDataSize()) : 0;
        pdA = Sync.create("CreatePd", a::createPd);
        pdB = Sync.create("CreatePd", b::createPd);
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        listener = Sync.create("CreateListener", (cc, c, o) -> b.createListener((x, conn) -> incoming.add(conn), null, cc, c, o));
        Sync.request("Listen", (rc, c) -> listener.listen(new InetSocketAddress(lo, 0), rc, c));
        Ref<InetSocketAddress> addr = new Ref<>();
        Sync.check("GetListenerLocalAddress", listener.getLocalAddress(addr, new IntRef(28)));
        for (int i = 0; i < settings.qps(); i++) {
            PerfPair p = new PerfPair(i, a, pdA, b, pdB, maxSize, settings.depth(), inlineLimit, settings.block(),
                    settings.cqMod());
            pairs.add(p);
            connect(p, from, addr.get(), incoming);
        }
    }

    /** The adapters' inline limit in bytes when {@code --inline} was given, else 0. */
    int inlineLimit() {
        return inlineLimit;
    }

    private static void connect(PerfPair p, InetAddress lo, InetSocketAddress to, ConcurrentLinkedQueue<NdkConnector> incoming) {
        CompletableFuture<Integer> connect = Sync.start((rc, c) -> p.connA.connect(p.qpA, new InetSocketAddress(lo, 0), to,
                16, 16, null, rc, c));
        long deadline = System.nanoTime() + Sync.TIMEOUT_MS * 1_000_000;
        while (incoming.isEmpty()) {
            if (connect.isDone() && connect.join() != NtStatus.STATUS_PENDING) {
                Sync.check("Connect", connect.join());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no connection request arrived at the listener");
            }
            Thread.onSpinWait();
        }
        p.accepted(incoming.poll());
        CompletableFuture<Integer> accept = Sync.start((rc, c) -> p.connB().accept(p.qpB, 16, 16, null, null, null, rc, c));
        Sync.check("Connect", Sync.get(connect, "Connect"));
        Sync.request("CompleteConnect", (rc, c) -> p.connA.completeConnect(null, null, rc, c));
        Sync.check("Accept", Sync.get(accept, "Accept"));
    }

    /**
     * Runs one operation at one size on every pair for the warm-up time, unmeasured (its data still verified), then
     * on in parts of {@link JitWatch#QUIET_NANOS} until one of them leaves the JIT quiet ({@link JitWatch}), for at
     * most {@link #WARM_UP_EXTENSION} times the warm-up time and at most {@link #WARM_UP_EXTENSION} seconds more. Each
     * part ends as a measured run does (its settling Read), so the code the measured run starts with has seen that
     * end too: a Read after a Write stream deoptimised the stream's compiled path once, at the start of the run.
     */
    void warmUp(String op, int size) {
        long nanos = (long) (settings.warmupSeconds() * 1e9);
        warmUpPart(op, size, nanos);
        JitWatch.runUntilQuiet(Math.min(WARM_UP_EXTENSION * nanos, WARM_UP_EXTENSION * 1_000_000_000L),
                () -> warmUpPart(op, size, JitWatch.QUIET_NANOS));
    }

    private void warmUpPart(String op, int size, long nanos) {
        PerfFormat.Row r = run(op, size, Long.MAX_VALUE, nanos, PerfProgress.off());
        if (!r.verified()) {
            throw new IllegalStateException("data mismatch during the warm-up of " + op + " " + size + " B");
        }
    }

    /** Measures one operation at one size on every pair at once. */
    PerfFormat.Row run(String op, int size, long iters, PerfProgress progress) {
        return run(op, size, iters, (long) (settings.seconds() * 1e9), progress);
    }

    private PerfFormat.Row run(String op, int size, long iters, long durationNs, PerfProgress progress) {
        boolean inline = size <= inlineLimit && !op.equals("read");
        List<ToolThread> threads = new ArrayList<>();
        List<PerfFormat.Part> results = new ArrayList<>();
        double cpu0 = ProcessCpu.seconds();
        long[] steal0 = CpuSteal.sample();
        Map<String, Long> wire0 = WireTrouble.sample(devices);
        for (PerfPair p : pairs) {
            threads.add(ToolThread.start("perf-qp-" + p.index, () -> {
                PerfFormat.Part r = p.run(op, size, iters, durationNs, settings.latencyMode(), inline, progress);
                synchronized (results) {
                    results.add(r);
                }
            }));
        }
        for (ToolThread t : threads) {
            t.join(Duration.ofDays(1)); // each pair gives up by itself when its operations stop completing
        }
        // both ends run in this process: its CPU time over the counted operations (a bandwidth row's stream, not the
        // timed single operations after it) is the cost of moving the data, both sides
        return PerfFormat.sum(size, op, settings.latencyMode() ? "lat" : "bw", results, inline)
                .withCpu(PerfFormat.cpuOver(results, ProcessCpu.seconds() - cpu0))
                .withSteal(CpuSteal.percent(steal0, CpuSteal.sample()))
                .withWire(WireTrouble.growth(wire0, WireTrouble.sample(devices)));
    }

    @Override
    public void close() {
        for (PerfPair p : pairs) {
            p.close();
        }
        Sync.close(listener);
        Sync.close(pdA);
        Sync.close(pdB);
        a.close();
        b.close();
    }
}
