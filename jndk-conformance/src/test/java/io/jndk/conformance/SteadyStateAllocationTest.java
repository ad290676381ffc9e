package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data path allocates nothing in steady state: after a warm-up, more than 100,000 operations (RDMA Write,
 * RDMA Read and Send/Receive at 8 bytes, and an 8-byte Write from a privileged-token SGE), then 15,000 at 64 KiB,
 * run between two connected QPs, and the heap bytes allocated meanwhile are measured.
 *
 * <p>Measurement: {@code com.sun.management.ThreadMXBean.getTotalThreadAllocatedBytes()}, the bytes allocated
 * by every thread of the JVM, live or ended. On JDK 25 the per-thread counters answer -1 for virtual threads
 * (the iWARP TX and RX threads are virtual), while their allocations are charged to the carrier threads and so
 * are part of this total. The total is an upper bound for the data path: it also contains whatever the test
 * runner's own threads allocate in the measured interval (a few hundred bytes a second when idle), which is why
 * the bound is one byte per operation rather than zero. The posting thread's own figure is exact; it is held to
 * the same bound because a rare JIT deoptimisation may allocate a few hundred bytes on it.
 * The 64 KiB operations over iWARP carry the JDK's own allowance (see {@link #largeAllowance()}).
 *
 * <p>A notified consumer's rounds are held to the same bound ({@link #notifiedRoundsAllocateNothingInSteadyState}):
 * arm A's CQ, post an 8-byte RDMA Write, wait for the notification (on the adapter's dispatcher thread, the default,
 * or on the engine thread with {@code notify=inline}), poll the completion.
 */
@ParameterizedClass
@MethodSource("modes")
@Timeout(300)
class SteadyStateAllocationTest {
    private static final int SMALL = 8;
    private static final int LARGE = 64 * 1024;
    private static final int WARMUP_ROUNDS = 4_000;
    /** Four small operations a round: 100,000 measured. */
    private static final int SMALL_ROUNDS = 25_000;
    /** Three 64 KiB operations a round: 15,000 measured. */
    private static final int LARGE_ROUNDS = 5_000;
    /** Upper bound of what the JDK allocates to pin one segment-backed buffer in a gathering write. */
    private static final int JDK_BYTES_PER_GATHERED_VIEW = 96;
    /**
     * Ceilings for roce, not its goal (which is zero, as elsewhere). The 96 bytes per 8-byte operation and 816 per
     * 64 KiB one seen on some runs and not on others were 24 bytes a packet, sent or received: UdpLink's copy of the
     * peer's address octets for the ICRC ({@code InetAddress.getAddress}), allocated whenever the JIT did not remove
     * the copy (so the figure came and went between runs and with JFR; it was first blamed on the JDK). The link now
     * keeps the octets of the last peer. With {@code poll=true} that work runs on the posting thread, whose check
     * below caught it. These ceilings catch any growth of the rest.
     */
    private static final double ROCE_SMALL_CEILING = 128, ROCE_LARGE_CEILING = 1024;
    private static final long WAIT_NANOS = Kit.WAIT.toNanos();
    private static final Object CONTEXT = "op";

    @Parameter(0)
    Mode mode;
    @Parameter(1)
    Map<String, String> options;

    World w;
    World.Pair p;
    Buffer srcA, dstA, srcB, dstB, lamSrc;
    NdkMr mrA, mrB;
    Mem.Lam lam;
    final NdkResultEx[] results = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};
    final NdkSge[] one = {new NdkSge()};
    /** Notifications of A's CQ with a success status. */
    final AtomicInteger notifications = new AtomicInteger();

    static List<Object[]> modes() {
        List<Object[]> out = new ArrayList<>();
        for (Mode m : io.jndk.conformance.support.Modes.all()) {
            if (!m.pend()) {
                out.add(new Object[] {m, Map.of()});
                if (!m.transport().equals("loopback")) {
                    // the polling mode: iwarp's non-blocking channel, selectors, consumer-driven receive; roce's
                    // passes run by posting and polling threads
                    out.add(new Object[] {m, Map.of("poll", "true")});
                }
                if (m.transport().equals("iwarp")) {
                    out.add(new Object[] {m, Map.of("notify", "inline")}); // callbacks on the engine thread
                }
            }
        }
        return out;
    }

    @BeforeEach
    void setUp() {
        w = new World(mode);
        p = w.connect(false, 64, 16, 16, options, (ctx, status) -> {
            if (status == NtStatus.STATUS_SUCCESS) {
                notifications.incrementAndGet();
            }
        });
        srcA = w.buffer(LARGE).fillRandom(1);
        dstA = w.buffer(LARGE);
        srcB = w.buffer(LARGE).fillRandom(2);
        dstB = w.buffer(LARGE);
        mrA = w.registerAll(p.a.pd, srcA);
        NdkMr mrA2 = w.registerAll(p.a.pd, dstA);
        mrB = w.registerAll(p.b.pd, dstB);
        NdkMr mrB2 = w.registerAll(p.b.pd, srcB);
        sinkToken = mrA2.getLocalToken();
        readToken = mrB2.getRemoteToken();
        lamSrc = Buffer.pageAligned(w.arena, 4096, 0).fillRandom(3);
        lam = Mem.buildLam(p.a.adapter, lamSrc.mdl(), lamSrc.size());
        privileged = p.a.pd.getPrivilegedMemoryRegionToken();
        for (int i = 0; i < 16; i++) {
            one[0].set(dstB.address(), LARGE, mrB.getLocalToken());
            assertThat(p.b.qp.receive(CONTEXT, one, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
    }

    int sinkToken, readToken, privileged;

    @AfterEach
    void tearDown() {
        try {
            if (lam != null) {
                p.a.adapter.releaseLam(lam.mapping());
            }
        } finally {
            w.close();
        }
    }

    @Test
    void dataPathAllocatesNothingInSteadyState() {
        rounds(WARMUP_ROUNDS, true, true);
        measure(() -> 0); // the probes' first calls initialise what they use
        Measured small = measure(() -> rounds(SMALL_ROUNDS, true, false));
        Measured large = measure(() -> rounds(LARGE_ROUNDS, false, true));
        report("8-byte", small);
        report("64 KiB", large);
        assertThat(small.ops + large.ops).isGreaterThanOrEqualTo(100_000);
        assertThat((double) small.poster / small.ops).as("posting thread bytes per small operation (%d in all)",
                small.poster).isLessThan(1.0);
        boolean roce = mode.transport().equals("roce");
        assertThat(small.perOp()).as("JVM bytes per small operation (%d in all)", small.total)
                .isLessThan(roce ? ROCE_SMALL_CEILING : 1.0);
        assertThat(large.perOp()).as("JVM bytes per 64 KiB operation (%d in all)", large.total)
                .isLessThan(roce ? ROCE_LARGE_CEILING : largeAllowance());
    }

    /** 20,000 notified 8-byte Write rounds after a warm-up: the whole JVM's bytes, at most one a round. */
    @Test
    void notifiedRoundsAllocateNothingInSteadyState() {
        notifiedRounds(WARMUP_ROUNDS);
        measure(() -> 0);
        Measured m = measure(() -> notifiedRounds(5 * WARMUP_ROUNDS));
        report("notified 8-byte", m);
        // roce keeps its ceiling here too: with poll=true the notified rounds measured 0.5-1.9 bytes a round (a few
        // tens of KB in all, not on the posting thread; their source is not found yet), against 176 before the
        // dispatcher queued without allocating
        assertThat(m.perOp()).as("JVM bytes per notified round (%d in all)", m.total)
                .isLessThan(mode.transport().equals("roce") ? ROCE_SMALL_CEILING : 1.0);
    }

    /** Each round: arm A's CQ, post, await the notification (bounded), poll the one completion; returns the count. */
    private long notifiedRounds(int n) {
        for (int i = 0; i < n; i++) {
            int seen = notifications.get();
            p.a.cq.armCq(NdkCqNotifyType.ANY);
            one[0].set(srcA.address(), SMALL, mrA.getLocalToken());
            check(p.a.qp.write(CONTEXT, one, 1, dstB.address(), mrB.getRemoteToken(), 0));
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (notifications.get() == seen) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no notification within " + Kit.WAIT + " (round " + i + ")");
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            await(p.a.cq, NdkOperationType.WRITE);
        }
        return n;
    }

    /**
     * Bytes a 64 KiB operation may allocate: none on loopback; over iWARP the JDK's gathering socket write pins each
     * buffer that views a memory segment with two small objects (sun.nio.ch.IOUtil, JDK 25), and a 64 KiB message
     * takes at most two FPDUs of one payload view each on a loopback connection (request, or read response).
     */
    private double largeAllowance() {
        return mode.transport().equals("loopback") ? 1.0 : 2 * JDK_BYTES_PER_GATHERED_VIEW + 1.0;
    }

    private void report(String what, Measured m) {
        System.out.printf(Locale.ROOT, "steady-state allocation %s %s, %s: %d operations, JVM total %d bytes"
                + " (%.4f bytes/op), posting thread %d bytes%n", mode, options, what, m.ops, m.total, m.perOp(), m.poster);
    }

    /** Allocation during one run: the JVM's total, and the calling thread's own. */
    private record Measured(long ops, long total, long poster) {
        double perOp() {
            return (double) total / ops;
        }
    }

    private static Measured measure(java.util.function.LongSupplier run) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long posterBefore = mx.getCurrentThreadAllocatedBytes();
        long totalBefore = mx.getTotalThreadAllocatedBytes();
        long ops = run.getAsLong();
        long totalAfter = mx.getTotalThreadAllocatedBytes();
        long posterAfter = mx.getCurrentThreadAllocatedBytes();
        return new Measured(ops, totalAfter - totalBefore, posterAfter - posterBefore);
    }

    /** Runs {@code n} rounds of the small and/or large operations, each awaited before the next; returns the count. */
    private long rounds(int n, boolean small, boolean large) {
        long ops = 0;
        for (int i = 0; i < n; i++) {
            if (small) {
                write(srcA.address(), SMALL, mrA.getLocalToken());
                write(lam.logical(0), SMALL, privileged);
                read(SMALL);
                send(SMALL);
                ops += 4;
            }
            if (large) {
                write(srcA.address(), LARGE, mrA.getLocalToken());
                read(LARGE);
                send(LARGE);
                ops += 3;
            }
        }
        return ops;
    }

    private void write(long address, int length, int token) {
        one[0].set(address, length, token);
        check(p.a.qp.write(CONTEXT, one, 1, dstB.address(), mrB.getRemoteToken(), 0));
        await(p.a.cq, NdkOperationType.WRITE);
    }

    private void read(int length) {
        one[0].set(dstA.address(), length, sinkToken);
        check(p.a.qp.read(CONTEXT, one, 1, srcB.address(), readToken, 0));
        await(p.a.cq, NdkOperationType.READ);
    }

    private void send(int length) {
        one[0].set(srcA.address(), length, mrA.getLocalToken());
        check(p.a.qp.send(CONTEXT, one, 1, 0));
        await(p.a.cq, NdkOperationType.SEND);
        await(p.b.cq, NdkOperationType.RECEIVE);
        one[0].set(dstB.address(), LARGE, mrB.getLocalToken());
        check(p.b.qp.receive(CONTEXT, one, 1));
    }

    private static void check(int status) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new AssertionError("post failed: " + NtStatus.describe(status));
        }
    }

    /** Spins (bounded) for one completion of {@code type} on {@code cq}; allocates nothing while waiting. */
    private void await(NdkCq cq, int type) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (cq.getCqResultsEx(results, 1) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + Kit.WAIT);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        NdkResultEx r = results[0];
        if (r.status != NtStatus.STATUS_SUCCESS || r.type != type) {
            throw new AssertionError("unexpected completion " + r);
        }
    }
}
