package io.jndk.jmh;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.bench.Fabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Posting one RDMA Write and polling its completion, through the public API, between two QPs over the loopback
 * transport (the copy runs on the posting thread, so this is the provider's own cost per request: checks, queue,
 * copy, completion).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PostPollBench {
    @Param({"8", "4096"})
    int size;

    private Arena arena;
    private Fabric fabric;
    private Fabric.Pair pair;
    private NdkCq cq;
    private MemorySegment dst;
    private NdkMr dstMr;
    private final NdkSge[] sge = {new NdkSge()};
    private final NdkResultEx[] results = {new NdkResultEx()};

    /** Connects the pair and registers a source and a target buffer. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        fabric = Fabric.open("loopback", Map.of());
        cq = fabric.cq(fabric.a, 64, null);
        pair = fabric.connect(cq, fabric.cq(fabric.b, 64, null), 16);
        MemorySegment src = arena.allocate(size, 64);
        dst = arena.allocate(size, 64);
        NdkMr srcMr = fabric.register(fabric.pdA, src);
        dstMr = fabric.register(fabric.pdB, dst);
        sge[0].set(src.address(), size, srcMr.getLocalToken());
    }

    /** Disconnects and closes, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        fabric.close();
        arena.close();
    }

    /** Posts a Write and spins on the CQ until its completion. */
    @Benchmark
    public int writeAndPoll() {
        int s = pair.a().write(null, sge, 1, dst.address(), dstMr.getRemoteToken(), 0);
        if (s != NtStatus.STATUS_SUCCESS) {
            throw new IllegalStateException(NtStatus.describe(s));
        }
        while (cq.getCqResultsEx(results, 1) == 0) {
            Thread.onSpinWait();
        }
        return results[0].status;
    }
}
