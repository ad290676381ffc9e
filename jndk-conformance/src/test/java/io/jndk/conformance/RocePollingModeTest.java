package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The RoCE polling mode ({@code poll=true}; docs/TRANSPORTS.md): a thread polling a CQ, and a thread posting, run the
 * device's pass themselves when no other thread does (they receive, place and complete what has arrived, and send
 * what is queued), while the engine thread stands by; the engine takes over when polls stop and at once when a CQ is
 * armed, and keeps the timers. Nothing of the NDKPI rules changes: every request completes once, data intact.
 */
@Timeout(120)
class RocePollingModeTest {
    private static final Map<String, String> POLL = Map.of("poll", "true");
    private static final Object RECV = "recv";

    private static World world() {
        return new World(new Mode("roce", false));
    }

    /** A Send and an RDMA Write from A, then B's receive: B's polling thread receives and places most of them. */
    @Test
    void aPollingConsumerReceivesOnItsOwnThread() {
        try (World w = world()) {
            World.Pair p = w.connect(false, 64, 4, 4, POLL);
            long before = p.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED)
                    + p.a.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED);
            PollingModeTest.writeAndSendRounds(w, p, 200, () -> { }); // B's spin on its CQ drives the device
            // both adapters share the device of 127.0.0.1, so a poll of either side's CQ may take the packets of
            // both: of the 400 request packets and their ACKs, most are taken by polling threads (more than a quarter
            // is asked: the engine takes over when no consumer has polled for a millisecond, and a loaded two-core
            // machine deschedules the consumer for longer than that often)
            long polled = p.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED)
                    + p.a.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED) - before;
            assertThat(polled).isGreaterThan(100);
            // and the posters sent their own requests (the first packet of each Write and Send, at least)
            assertThat(p.a.adapter.counters().get(NdkCounter.FPDUS_OUT_INLINE)).isGreaterThan(100);
        }
        // and without the polling mode, nothing is
        try (World w = world()) {
            World.Pair q = w.connect(false, 64, 4, 4, Map.of());
            assertThat(q.b.qp.receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            for (int i = 0; i < 20; i++) {
                assertThat(q.a.qp.send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(q.b.qp.receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                Kit.poll(q.b.cq);
                Kit.poll(q.a.cq);
            }
            assertThat(q.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED)
                    + q.a.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED)).isZero();
            assertThat(q.a.adapter.counters().get(NdkCounter.FPDUS_OUT_INLINE)).isZero();
        }
    }

    /**
     * A consumer that stops polling leaves the device to its engine again: a Write that arrives afterwards lands in
     * memory, and its completion reaches A, while B does not poll (and A only looks at its CQ, which polls too: so
     * A's part is checked by memory alone first).
     */
    @Test
    void whenPollingStopsTheEnginePlacesWrites() {
        try (World w = world()) {
            World.Pair p = w.connect(false, 64, 4, 4, POLL);
            Buffer src = w.buffer(64);
            Buffer dst = w.buffer(64);
            NdkMr srcMr = w.registerAll(p.a.pd, src), dstMr = w.registerAll(p.b.pd, dst);
            PollingModeTest.pingPongs(w, p, 300); // the engine stands by meanwhile
            for (long v = 1; v <= 20; v++) {
                src.segment().set(ValueLayout.JAVA_LONG, 0, v);
                assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 8, srcMr.getLocalToken())}, 1, dst.address(),
                        dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                long expected = v;
                // nobody polls: only the engine can receive and place the Write
                Kit.awaitTrue("write " + v + " placed without polling",
                        () -> dst.segment().get(ValueLayout.JAVA_LONG, 0) == expected);
                Kit.poll(p.a.cq);
            }
        }
    }

    /** A consumer that arms its CQ after polling gets its notification: arming hands the device back at once. */
    @Test
    void armingTheCqHandsTheDeviceBack() {
        AtomicInteger notified = new AtomicInteger();
        try (World w = world()) {
            World.Pair p = notifiedPair(w, (ctx, st) -> notified.incrementAndGet());
            PollingModeTest.pingPongs(w, p, 50);
            assertThat(p.b.qp.receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            p.b.cq.armCq(NdkCqNotifyType.ANY);
            assertThat(p.a.qp.send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.awaitTrue("notification of the receive, nobody polling B", () -> notified.get() == 1);
            Kit.poll(p.b.cq);
            Kit.poll(p.a.cq);
        }
    }

    /** A consumer that keeps polling still learns of the peer's orderly close (the disconnect event). */
    @Test
    void anOrderlyCloseIsSeenWhileTheConsumerKeepsPolling() {
        PollingModeTest.orderlyCloseSeenWhilePolling("roce");
    }

    /**
     * Four posting threads stream Writes, Sends and Reads of up to 300 KiB (many packets each, Read responses in
     * their own PSN space) on four QP pairs of one device while both sides poll: every request completes exactly
     * once and every octet lands where it belongs, whichever thread ran each pass.
     */
    @Test
    void manyPostersAndPollersMoveEveryOctet() throws Exception {
        try (World w = world()) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < 4; t++) {
                World.Pair p = w.connect(false, 64, 8, 8, POLL);
                int seed = 40 + t;
                threads.add(Thread.ofPlatform().name("poster-" + t).start(() -> {
                    try {
                        stream(w, p, seed);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(Kit.WAIT.toMillis() * 4);
                assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
            }
            assertThat(failures).isEmpty();
        }
    }

    private static void stream(World w, World.Pair p, int seed) {
        int size = 300 * 1024 + seed;
        Buffer src = w.buffer(size).fillRandom(seed);
        Buffer dst = w.buffer(size);
        Buffer recv = w.buffer(size);
        Buffer remote = w.buffer(size).fillRandom(seed + 100);
        Buffer sink = w.buffer(size);
        NdkMr srcMr = w.registerAll(p.a.pd, src), dstMr = w.registerAll(p.b.pd, dst),
                recvMr = w.registerAll(p.b.pd, recv), remoteMr = w.registerAll(p.b.pd, remote),
                sinkMr = w.registerAll(p.a.pd, sink);
        for (int round = 0; round < 6; round++) {
            int len = size - round * 7_777;
            assertThat(p.b.qp.receive(RECV, new NdkSge[] {recv.sge(0, size, recvMr.getLocalToken())}, 1))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkSge[] local = {src.sge(0, len, srcMr.getLocalToken())};
            assertThat(p.a.qp.write("w", local, 1, dst.address(), dstMr.getRemoteToken(), 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(p.a.qp.send("s", local, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, len, sinkMr.getLocalToken())}, 1, remote.address(),
                    remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkResultEx[] done = Kit.poll(p.a.cq, 3);
            for (NdkResultEx r : done) {
                assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_SUCCESS");
            }
            NdkResultEx r = Kit.poll(p.b.cq);
            assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_SUCCESS");
            assertThat(r.bytesTransferred).isEqualTo(len);
            dst.assertSame(0, src, 0, len);
            recv.assertSame(0, src, 0, len);
            sink.assertSame(0, remote, 0, len);
            Kit.assertEmpty(p.a.cq); // exactly once: nothing more for these three
            Kit.assertEmpty(p.b.cq);
        }
    }

    /** A pair in the polling mode whose B side's CQ notifies {@code onB}. */
    private static World.Pair notifiedPair(World w, CqNotificationCallback onB) {
        World.Pair p = new World.Pair();
        for (World.Side side : new World.Side[] {p.a, p.b}) {
            NdkAdapter adapter = w.adapter(POLL);
            CqNotificationCallback cb = side == p.b ? onB : null;
            side.adapter = adapter;
            side.pd = w.pd(adapter);
            side.cq = w.track(Kit.<NdkCq>create((cc, c, o) -> adapter.createCq(256, cb, null, null, cc, c, o)));
            side.qp = w.qp(side.pd, side.cq, side.cq, side == p.a ? "qpA" : "qpB", 64, 64, 4, 4, 64);
        }
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        Ref<InetSocketAddress> bound = new Ref<>();
        p.listener = w.listen(p.b.adapter, incoming, bound);
        p.address = bound.get();
        w.connectPair(p, incoming, 4, 4);
        return p;
    }
}
