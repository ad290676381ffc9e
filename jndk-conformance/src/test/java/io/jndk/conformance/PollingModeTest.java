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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The iWARP polling mode ({@code poll=true}; docs/TRANSPORTS.md): a consumer polling its CQ runs the receive side on
 * its own thread (consumer-driven receive), the receive thread takes it back when polling stops or the CQ is armed
 * and still sees an orderly close, and a notification that posts from an engine thread never waits for a full
 * socket (it leaves the write to the transmit thread), so two peers posting from their callbacks cannot deadlock.
 */
@Timeout(120)
class PollingModeTest {
    private static final Map<String, String> POLL = Map.of("poll", "true");
    private static final Object RECV = "recv";

    /** A Send and an RDMA Write from A, then B's receive: all of it is read and placed by B's polling thread. */
    @Test
    void aPollingConsumerReceivesOnItsOwnThread() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 4, 4, POLL);
            long before = p.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED);
            // B polls all the time, as a latency-bound consumer does
            writeAndSendRounds(w, p, 200, () -> spin(p.b.cq, 100));
            // the Write and the Send of most rounds were decoded on the polling thread (not the first ones, before the
            // receive thread stood by, and one read every 50 ms may be the receive thread's: on a machine busy with
            // other work that is up to a third of them; more than a quarter of the 400 FPDUs is asked)
            assertThat(p.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED) - before).isGreaterThan(100);
            // A's posters sent their Writes and Sends themselves (caller-runs)
            assertThat(p.a.adapter.counters().get(NdkCounter.FPDUS_OUT_INLINE)).isGreaterThan(100);
            // and without the polling mode, nothing is
            World.Pair q = w.connect(false, 64, 4, 4, Map.of());
            assertThat(q.a.qp.send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(q.b.qp.receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.poll(q.b.cq);
            assertThat(q.b.adapter.counters().get(NdkCounter.FPDUS_IN_POLLED)).isZero();
        }
    }

    /**
     * A consumer that stops polling leaves its receive side to the receive thread again: a Write that arrives
     * afterwards lands in memory while nobody polls the CQ.
     */
    @Test
    void whenPollingStopsTheReceiveThreadPlacesWrites() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 4, 4, POLL);
            Buffer src = w.buffer(64);
            Buffer dst = w.buffer(64);
            NdkMr srcMr = w.registerAll(p.a.pd, src), dstMr = w.registerAll(p.b.pd, dst);
            pingPongs(w, p, 300); // B's receive thread stands by meanwhile
            for (long v = 1; v <= 20; v++) {
                src.segment().set(ValueLayout.JAVA_LONG, 0, v);
                assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 8, srcMr.getLocalToken())}, 1, dst.address(),
                        dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                Kit.poll(p.a.cq);
                long expected = v;
                // B does not poll: only its receive thread can place the Write
                Kit.awaitTrue("write " + v + " placed without polling",
                        () -> dst.segment().get(ValueLayout.JAVA_LONG, 0) == expected);
            }
        }
    }

    /** A consumer that arms its CQ after polling gets its notification: arming hands the receive side back. */
    @Test
    void armingTheCqHandsTheReceiveSideBack() {
        AtomicInteger notified = new AtomicInteger();
        try (World w = new World(new Mode("iwarp", false))) {
            Sides s = Sides.connect(w, POLL, null, (ctx, st) -> notified.incrementAndGet());
            for (int round = 0; round < 50; round++) {
                assertThat(s.b.qp().receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(s.a.qp().send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                Kit.poll(s.b.cq()); // polling: B's thread drives
                Kit.poll(s.a.cq());
            }
            assertThat(s.b.qp().receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            s.b.cq().armCq(NdkCqNotifyType.ANY);
            assertThat(s.a.qp().send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.awaitTrue("notification of the receive, nobody polling", () -> notified.get() == 1);
            Kit.poll(s.b.cq());
        }
    }

    /** A consumer that keeps polling still learns of the peer's orderly close (the disconnect event). */
    @Test
    void anOrderlyCloseIsSeenWhileTheConsumerKeepsPolling() {
        orderlyCloseSeenWhilePolling("iwarp");
    }

    /**
     * A consumer that keeps polling still learns of the peer's orderly close (the disconnect event), on
     * {@code transport} in polling mode (also {@link RocePollingModeTest}'s).
     */
    static void orderlyCloseSeenWhilePolling(String transport) {
        try (World w = new World(new Mode(transport, false))) {
            World.Pair p = w.connect(false, 64, 4, 4, POLL);
            pingPongs(w, p, 100);
            assertThat(Kit.request((rc, c) -> p.a.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkResultEx[] r = {new NdkResultEx()};
            // B spins on its CQ the whole time, as a polling consumer does
            Kit.awaitTrue("B's disconnect event while B polls", () -> {
                p.b.cq.getCqResultsEx(r, 1);
                return p.b.disconnects.get() == 1;
            });
        }
    }

    /**
     * Both peers post from their CQ notifications (run inline on the engine threads that completed the requests),
     * echoing every message back, with many Sends of 16 KiB and 256 KiB in flight both ways: far more than the sockets
     * (64 KiB buffers here) hold. An engine thread never waits for a full socket (it leaves the write, or a large request, to the transmit
     * thread), so neither receive thread stops reading and every message arrives.
     */
    @Test
    void peersPostingFromTheirNotificationsNeverWaitForTheSocket() {
        int echoes = 600;
        int inFlight = 24;
        Map<String, String> options = new HashMap<>(POLL);
        options.put("notify", "inline");
        // small socket buffers: a few messages in flight fill both directions
        options.put("tcp.sndbuf", "65536");
        options.put("tcp.rcvbuf", "65536");
        AtomicReference<String> problem = new AtomicReference<>();
        Echo[] ends = new Echo[2];
        try (World w = new World(new Mode("iwarp", false))) {
            CqNotificationCallback onA = (ctx, st) -> ends[0].drain(st);
            CqNotificationCallback onB = (ctx, st) -> ends[1].drain(st);
            Sides s = Sides.connect(w, options, onA, onB);
            for (int i = 0; i < 2; i++) {
                Sides.End e = i == 0 ? s.a : s.b;
                Buffer src = w.buffer(Echo.LARGE).fillRandom(30 + i);
                Buffer sink = w.buffer(Echo.LARGE);
                ends[i] = new Echo(e, src, w.registerAll(e.pd(), src), sink, w.registerAll(e.pd(), sink), echoes,
                        problem);
            }
            for (Echo e : ends) {
                for (int k = 0; k < 2 * inFlight + 8; k++) {
                    e.postReceive();
                }
                e.arm();
            }
            for (int k = 0; k < inFlight; k++) {
                ends[0].postSend(k);
                ends[1].postSend(k);
            }
            Kit.awaitTrue("both ends echo " + echoes + " messages",
                    () -> problem.get() != null || ends[0].received.get() >= echoes && ends[1].received.get() >= echoes);
            assertThat(problem.get()).isNull();
            Kit.awaitTrue("every Send completes", () -> ends[0].sendsDone.get() == ends[0].sendsPosted.get()
                    && ends[1].sendsDone.get() == ends[1].sendsPosted.get());
            assertThat(problem.get()).isNull();
        }
    }

    /**
     * The deterministic form of the above: each peer's notification for one trigger message posts a burst of 2 MiB
     * of Sends at once, both at the same moment, with 16 KiB socket buffers. A receive thread that waited for its
     * socket inside its notification would never read the peer's burst, and the peer's would never read its own:
     * both would wait forever. Each burst must arrive whole. (Whether both receive threads are in their bursts at
     * once depends on scheduling, hence several attempts: without the rule, about one attempt in two hangs.)
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "attempt {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2, 3, 4})
    void simultaneousBurstsPostedFromNotificationsBothArrive(int attempt) {
        int burst = 128;
        Map<String, String> options = new HashMap<>(POLL);
        options.put("notify", "inline");
        options.put("tcp.sndbuf", "16384");
        options.put("tcp.rcvbuf", "16384");
        AtomicReference<String> problem = new AtomicReference<>();
        Burst[] ends = new Burst[2];
        try (World w = new World(new Mode("iwarp", false))) {
            Sides s = Sides.connect(w, options, (ctx, st) -> ends[0].drain(st), (ctx, st) -> ends[1].drain(st));
            for (int i = 0; i < 2; i++) {
                Sides.End e = i == 0 ? s.a : s.b;
                Buffer src = w.buffer(Echo.SMALL).fillRandom(40 + i);
                Buffer sink = w.buffer(Echo.SMALL);
                ends[i] = new Burst(new Echo(e, src, w.registerAll(e.pd(), src), sink, w.registerAll(e.pd(), sink), 0,
                        problem), burst);
            }
            for (Burst b : ends) {
                for (int k = 0; k < burst + 2; k++) {
                    b.echo.postReceive();
                }
                b.echo.arm();
            }
            // the triggers: each side's first receive starts its burst, from its receive thread
            ends[0].echo.postSend(0);
            ends[1].echo.postSend(0);
            Kit.awaitTrue("both bursts arrive", () -> problem.get() != null
                    || ends[0].echo.received.get() == burst + 1 && ends[1].echo.received.get() == burst + 1);
            assertThat(problem.get()).isNull();
            Kit.awaitTrue("every Send completes", () -> ends[0].echo.sendsDone.get() == burst + 1
                    && ends[1].echo.sendsDone.get() == burst + 1);
        }
    }

    /** An {@link Echo} whose first receive posts {@code size} Sends of 16 KiB at once, and nothing after. */
    private record Burst(Echo echo, int size) {
        void drain(int cqStatus) {
            echo.drain(cqStatus, received -> {
                if (received == 1) {
                    for (int k = 0; k < size; k++) {
                        echo.postSend(0);
                    }
                }
            });
        }
    }

    /** Polls {@code cq} {@code polls} times, expecting nothing. */
    private static void spin(NdkCq cq, int polls) {
        NdkResultEx[] r = {new NdkResultEx()};
        for (int i = 0; i < polls; i++) {
            assertThat(cq.getCqResultsEx(r, 1)).isZero();
            Thread.onSpinWait();
        }
    }

    /**
     * {@code rounds} rounds of a 4 KiB RDMA Write and a 4 KiB Send from p.a to p.b, whose receive B posts first; then
     * {@code beforePosting} runs and B spins on its CQ until the Send's receive completes (the consumer drives the
     * receive side), both payloads are checked in memory, and A takes its two completions (also
     * {@link RocePollingModeTest}'s).
     */
    static void writeAndSendRounds(World w, World.Pair p, int rounds, Runnable beforePosting) {
        Buffer src = w.buffer(4096).fillRandom(5);
        Buffer dst = w.buffer(4096);
        Buffer recv = w.buffer(4096);
        NdkMr srcMr = w.registerAll(p.a.pd, src), dstMr = w.registerAll(p.b.pd, dst), recvMr = w.registerAll(p.b.pd, recv);
        for (int round = 0; round < rounds; round++) {
            assertThat(p.b.qp.receive(RECV, new NdkSge[] {recv.sge(0, 4096, recvMr.getLocalToken())}, 1))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkSge[] local = {src.sge(0, 4096, srcMr.getLocalToken())};
            beforePosting.run();
            assertThat(p.a.qp.write("w", local, 1, dst.address(), dstMr.getRemoteToken(), 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(p.a.qp.send("s", local, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkResultEx r = Kit.poll(p.b.cq); // spins on B's CQ: the consumer drives B's receive side
            assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_SUCCESS");
            assertThat(r.bytesTransferred).isEqualTo(4096);
            dst.assertSame(0, src, 0, 4096);
            recv.assertSame(0, src, 0, 4096);
            Kit.poll(p.a.cq, 2);
        }
    }

    /** {@code rounds} Send ping-pongs between p.a and p.b, both polling their CQs (also {@link RocePollingModeTest}'s). */
    static void pingPongs(World w, World.Pair p, int rounds) {
        for (int i = 0; i < rounds; i++) {
            assertThat(p.b.qp.receive(RECV, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(p.a.qp.send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.poll(p.b.cq);
            Kit.poll(p.a.cq);
        }
    }

    /** One end of the echo test: its notification drains the CQ, reposts receives and echoes each message. */
    private static final class Echo {
        static final int SMALL = 16 * 1024;
        static final int LARGE = 256 * 1024;
        final Sides.End end;
        final Buffer src, sink;
        final NdkMr srcMr, sinkMr;
        final int echoes;
        final AtomicReference<String> problem;
        final AtomicInteger received = new AtomicInteger();
        final AtomicInteger sendsPosted = new AtomicInteger();
        final AtomicInteger sendsDone = new AtomicInteger();
        final NdkResultEx[] results = new NdkResultEx[32];

        Echo(Sides.End end, Buffer src, NdkMr srcMr, Buffer sink, NdkMr sinkMr, int echoes,
             AtomicReference<String> problem) {
            this.end = end;
            this.src = src;
            this.srcMr = srcMr;
            this.sink = sink;
            this.sinkMr = sinkMr;
            this.echoes = echoes;
            this.problem = problem;
            for (int i = 0; i < results.length; i++) {
                results[i] = new NdkResultEx();
            }
        }

        void postReceive() {
            check("Receive", end.qp().receive(RECV, new NdkSge[] {sink.sge(0, (int) sink.size(), sinkMr.getLocalToken())}, 1));
        }

        /** Small and large Sends alternate: the small ones go out on the posting thread, the large ones do not. */
        void postSend(int k) {
            int len = k % 3 == 2 ? LARGE : SMALL;
            sendsPosted.incrementAndGet();
            check("Send", end.qp().send("send", new NdkSge[] {src.sge(0, len, srcMr.getLocalToken())}, 1, 0));
        }

        void arm() {
            end.cq().armCq(NdkCqNotifyType.ANY);
        }

        /** The notification: runs on an engine thread (notify=inline), posts from there. */
        void drain(int cqStatus) {
            drain(cqStatus, got -> {
                if (got <= echoes) {
                    postSend(got);
                }
            });
        }

        /** Drains the CQ, reposting each receive and handing its number to {@code onReceive}, then arms the CQ. */
        void drain(int cqStatus, java.util.function.IntConsumer onReceive) {
            if (cqStatus != NtStatus.STATUS_SUCCESS) {
                problem.compareAndSet(null, "CQ status " + NtStatus.describe(cqStatus));
                return;
            }
            int n;
            while ((n = end.cq().getCqResultsEx(results, results.length)) > 0) {
                for (int i = 0; i < n; i++) {
                    NdkResultEx r = results[i];
                    if (r.status != NtStatus.STATUS_SUCCESS) {
                        problem.compareAndSet(null, r.requestContext + ": " + NtStatus.describe(r.status));
                        continue;
                    }
                    if (r.requestContext == RECV) {
                        postReceive();
                        onReceive.accept(received.incrementAndGet());
                    } else {
                        sendsDone.incrementAndGet();
                    }
                }
            }
            arm();
        }

        private void check(String what, int status) {
            if (status != NtStatus.STATUS_SUCCESS) {
                problem.compareAndSet(null, what + ": " + NtStatus.describe(status));
            }
        }
    }

    /** Two connected QPs whose CQs have notification callbacks (World.connect makes CQs without). */
    private record Sides(End a, End b) {
        record End(NdkAdapter adapter, io.jndk.api.NdkPd pd, NdkCq cq, io.jndk.api.NdkQp qp) {
        }

        static Sides connect(World w, Map<String, String> options, CqNotificationCallback onA,
                             CqNotificationCallback onB) {
            World.Pair p = new World.Pair();
            End[] ends = new End[2];
            for (int i = 0; i < 2; i++) {
                World.Side side = i == 0 ? p.a : p.b;
                CqNotificationCallback cb = i == 0 ? onA : onB;
                NdkAdapter adapter = w.adapter(options);
                side.adapter = adapter;
                side.pd = w.pd(adapter);
                side.cq = w.track(Kit.<NdkCq>create((cc, c, o) -> adapter.createCq(1024, cb, null, null, cc, c, o)));
                side.qp = w.qp(side.pd, side.cq, side.cq, i == 0 ? "qpA" : "qpB", 256, 256, 4, 4, 64);
                ends[i] = new End(adapter, side.pd, side.cq, side.qp);
            }
            ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
            Ref<InetSocketAddress> bound = new Ref<>();
            p.listener = w.listen(p.b.adapter, incoming, bound);
            p.address = bound.get();
            w.connectPair(p, incoming, 4, 4);
            return new Sides(ends[0], ends[1]);
        }
    }
}
