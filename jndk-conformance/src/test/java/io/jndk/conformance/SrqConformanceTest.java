package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.Queues.End;
import io.jndk.conformance.support.Queues.Notes;
import io.jndk.conformance.support.World;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shared receive queues: {@code NdkCreateSrq}, {@code NdkSrqReceive} (consumed by several QPs created with
 * {@code NdkCreateQpWithSrq}), {@code NdkReceive} on an SRQ-attached QP, {@code NdkModifySrq} with the
 * {@code NdkSrqNotificationCallback} threshold rules, and {@code NdkCloseSrq} (pending while QPs use it).
 *
 * <p>Where a test asserts that a notification did <em>not</em> happen, it waits for a later notification that
 * must happen on the same SRQ and checks the count: notifications are delivered in order, so an unwanted one
 * would have been recorded first.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class SrqConformanceTest {
    @Parameter
    Mode mode;

    World w;
    NdkAdapter b;
    NdkPd pd;
    final Notes notes = new Notes();

    @BeforeEach
    void setUp() {
        w = new World(mode);
        b = w.adapter();
        pd = w.pd(b);
    }

    /** A class-level timeout does not cover lifecycle methods; the world close blocks while objects leak. */
    @AfterEach
    @Timeout(60)
    void tearDown() {
        w.close();
    }

    private static String st(int s) {
        return NtStatus.name(s);
    }

    private NdkSrq srq(int depth, int sge, int threshold) {
        return w.track(Kit.<NdkSrq>create((cc, c, o) -> pd.createSrq(depth, sge, threshold, notes, "srqctx", null, cc, c, o)));
    }

    private int tryCreateSrq(NdkPd p, int depth, int sge) {
        Kit.Created<NdkSrq> c = Kit.tryCreate((cc, x, o) -> p.createSrq(depth, sge, 0, null, null, null, cc, x, o));
        if (c.object() != null) {
            w.track(c.object());
        }
        return c.status();
    }

    /** A QP on {@code srq} connected to a fresh sender QP on another adapter; returns {sender, receiver}. */
    private End[] srqConnection(NdkSrq srq, String qpContext) {
        End s = new End();
        s.adapter = w.adapter();
        s.pd = w.pd(s.adapter);
        s.rcq = w.cq(s.adapter, 64);
        s.icq = s.rcq;
        s.qp = w.qp(s.pd, s.rcq, "sender-" + qpContext);
        End r = new End();
        r.adapter = b;
        r.pd = pd;
        r.rcq = w.cq(b, 64);
        r.icq = r.rcq;
        r.qp = w.track(Kit.<NdkQp>create((cc, c, o) -> pd.createQpWithSrq(r.rcq, r.icq, srq, qpContext, 16, 1, 0, cc, c, o)));
        Queues.connect(w, s, r);
        return new End[] {s, r};
    }

    // ---- NdkCreateSrq -------------------------------------------------------------------------

    @Test
    void createSrqWithDepthZeroIsInvalidParameter() {
        assertThat(st(tryCreateSrq(pd, 0, 1))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createSrqDeeperThanMaxSrqDepthIsInvalidParameter() {
        assertThat(st(tryCreateSrq(pd, b.info().maxSrqDepth() + 1, 1))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createSrqWithMoreSgesThanTheAdapterAllowsIsInvalidParameter() {
        assertThat(st(tryCreateSrq(pd, 8, b.info().maxReceiveRequestSge() + 1))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createSrqAtTheLimitsSucceeds() {
        NdkAdapter small = w.adapter(Map.of("maxSrqDepth", "256"));
        NdkPd p = w.pd(small);
        assertThat(st(tryCreateSrq(p, 256, small.info().maxReceiveRequestSge()))).isEqualTo(st(NtStatus.STATUS_SUCCESS));
    }

    @Test
    void createSrqOnAnAdapterWithoutSrqsIsNotSupported() {
        NdkAdapter none = w.adapter(Map.of("maxSrqDepth", "0"));
        assertThat(none.info().maxSrqDepth()).isZero();
        assertThat(st(tryCreateSrq(w.pd(none), 8, 1))).isEqualTo(st(NtStatus.STATUS_NOT_SUPPORTED));
    }

    // ---- NdkSrqReceive / NdkReceive -----------------------------------------------------------

    @Test
    void srqReceivesAreConsumedBySeveralQpsOnTheirOwnReceiveCqs() {
        NdkSrq srq = srq(16, 2, 0);
        Buffer sink = w.buffer(4096);
        NdkMr sinkMr = w.registerAll(pd, sink);
        for (int i = 0; i < 4; i++) {
            assertThat(srq.srqReceive("srx" + i, new NdkSge[] {sink.sge(i * 1024L, 1024, sinkMr.getLocalToken())}, 1))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        End[] one = srqConnection(srq, "qp1");
        End[] two = srqConnection(srq, "qp2");
        Buffer[] src = {w.buffer(512).fillRandom(1), w.buffer(512).fillRandom(2)};
        NdkMr m1 = w.registerAll(one[0].pd, src[0]);
        NdkMr m2 = w.registerAll(two[0].pd, src[1]);
        assertThat(one[0].qp.send("from1", new NdkSge[] {src[0].sge(0, 300, m1.getLocalToken())}, 1, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r1 = Kit.poll(one[1].rcq);
        assertThat(r1.qpContext).isEqualTo("qp1");
        assertThat(r1.requestContext).isEqualTo("srx0");
        assertThat(r1.bytesTransferred).isEqualTo(300);
        assertThat(two[0].qp.send("from2", new NdkSge[] {src[1].sge(0, 500, m2.getLocalToken())}, 1, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r2 = Kit.poll(two[1].rcq);
        assertThat(r2.qpContext).isEqualTo("qp2");
        assertThat(r2.requestContext).isEqualTo("srx1");
        assertThat(r2.bytesTransferred).isEqualTo(500);
        sink.assertSame(0, src[0], 0, 300);
        sink.assertSame(1024, src[1], 0, 500);
        Kit.assertEmpty(one[1].rcq);
    }

    @Test
    void receiveOnAnSrqQpIsInvalidDeviceRequest() {
        NdkSrq srq = srq(8, 1, 0);
        NdkCq cq = w.cq(b, 8);
        NdkQp qp = w.track(Kit.<NdkQp>create((cc, c, o) -> pd.createQpWithSrq(cq, cq, srq, "q", 4, 1, 0, cc, c, o)));
        assertThat(st(qp.receive("r", new NdkSge[0], 0))).isEqualTo(st(NtStatus.STATUS_INVALID_DEVICE_REQUEST));
        Kit.assertEmpty(cq);
    }

    @Test
    void srqReceiveWithMoreSgesThanTheSrqAllowsIsDataOverrun() {
        NdkSrq srq = srq(8, 1, 0);
        Buffer buf = w.buffer(64);
        NdkMr mr = w.registerAll(pd, buf);
        NdkSge[] two = {buf.sge(0, 8, mr.getLocalToken()), buf.sge(8, 8, mr.getLocalToken())};
        assertThat(st(srq.srqReceive("r", two, 2))).isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
    }

    @Test
    void srqReceiveBeyondTheDepthIsInsufficientResources() {
        NdkSrq srq = srq(4, 1, 0);
        Queues.postSrqReceives(srq, "r", 4);
        assertThat(st(srq.srqReceive("r4", new NdkSge[0], 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
    }

    // ---- NdkModifySrq -------------------------------------------------------------------------

    @Test
    void thresholdNotificationFiresOnceWhenTheQueuedCountFallsBelowAndNeedsReArming() {
        NdkSrq srq = srq(16, 1, 0);
        Queues.postSrqReceives(srq, "r", 4);
        End[] c = srqConnection(srq, "qp");
        assertThat(Kit.request((rc, x) -> srq.modifySrq(0, 3, rc, x))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(c[0].qp.send("s0", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS); // 3 left: not below 3
        assertThat(Kit.poll(c[1].rcq).requestContext).isEqualTo("r0");
        assertThat(c[0].qp.send("s1", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS); // 2 left: below 3
        notes.await(1);
        assertThat(notes.statuses.get(0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(notes.contexts.get(0)).isEqualTo("srqctx");
        assertThat(c[0].qp.send("s2", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS); // 1 left: disarmed
        assertThat(Kit.poll(c[1].rcq, 2)).extracting(r -> r.requestContext).containsExactly("r1", "r2");
        // re-arm with a threshold already above the queued count: notified at once
        assertThat(Kit.request((rc, x) -> srq.modifySrq(0, 2, rc, x))).isEqualTo(NtStatus.STATUS_SUCCESS);
        notes.await(2);
        assertThat(notes.count()).as("no notification while disarmed").isEqualTo(2);
    }

    @Test
    void armingWhenAlreadyBelowTheThresholdNotifiesAtOnce() {
        NdkSrq srq = srq(16, 1, 0);
        Queues.postSrqReceives(srq, "r", 2);
        assertThat(Kit.request((rc, x) -> srq.modifySrq(0, 5, rc, x))).isEqualTo(NtStatus.STATUS_SUCCESS);
        notes.await(1);
        assertThat(notes.statuses.get(0)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void thresholdGivenAtCreationArmsTheNotification() {
        NdkSrq srq = srq(16, 1, 2);
        Queues.postSrqReceives(srq, "r", 2);
        End[] c = srqConnection(srq, "qp");
        assertThat(c[0].qp.send("s0", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS); // 1 left: below 2
        notes.await(1);
    }

    @Test
    void modifySrqBelowOccupancyIsBufferOverflowAndLeavesTheSrqUnchanged() {
        NdkSrq srq = srq(8, 1, 0);
        Queues.postSrqReceives(srq, "r", 4);
        assertThat(st(Kit.request((rc, x) -> srq.modifySrq(3, 0, rc, x)))).isEqualTo(st(NtStatus.STATUS_BUFFER_OVERFLOW));
        Queues.postSrqReceives(srq, "more", 4); // the depth is still 8
        assertThat(st(srq.srqReceive("x", new NdkSge[0], 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
    }

    @Test
    void modifySrqAboveMaxSrqDepthIsInvalidParameter() {
        NdkSrq srq = srq(8, 1, 0);
        int max = b.info().maxSrqDepth();
        assertThat(st(Kit.request((rc, x) -> srq.modifySrq(max + 1, 0, rc, x)))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void modifySrqWithDepthZeroKeepsTheDepth() {
        NdkSrq srq = srq(4, 1, 0);
        assertThat(Kit.request((rc, x) -> srq.modifySrq(0, 0, rc, x))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Queues.postSrqReceives(srq, "r", 4);
        assertThat(st(srq.srqReceive("r4", new NdkSge[0], 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
    }

    @Test
    void modifySrqGrowingKeepsQueuedReceivesInOrder() {
        NdkSrq srq = srq(2, 1, 0);
        Queues.postSrqReceives(srq, "r", 2);
        assertThat(Kit.request((rc, x) -> srq.modifySrq(6, 0, rc, x))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Queues.postSrqReceives(srq, "s", 4);
        End[] c = srqConnection(srq, "qp");
        for (int i = 0; i < 6; i++) {
            assertThat(c[0].qp.send("m" + i, new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        assertThat(Kit.poll(c[1].rcq, 6)).extracting(r -> r.requestContext).containsExactly("r0", "r1", "s0", "s1", "s2", "s3");
    }

    @Test
    void modifySrqOnThePendingPathCompletesThroughTheCallback() {
        NdkAdapter pending = w.adapter(Map.of("pend", "always"));
        NdkPd p = w.pd(pending);
        NdkSrq srq = w.track(Kit.<NdkSrq>create((cc, c, o) -> p.createSrq(8, 1, 0, null, null, null, cc, c, o)));
        java.util.concurrent.CompletableFuture<Integer> f = new java.util.concurrent.CompletableFuture<>();
        assertThat(st(srq.modifySrq(16, 0, (c, s) -> f.complete(s), "ctx"))).isEqualTo(st(NtStatus.STATUS_PENDING));
        assertThat(Kit.await(f)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    // ---- NdkCloseSrq --------------------------------------------------------------------------

    @Test
    void closeSrqPendsWhileQpsUseIt() {
        NdkSrq srq = srq(8, 1, 0);
        NdkCq cq = w.cq(b, 8);
        NdkQp qp = w.track(Kit.<NdkQp>create((cc, c, o) -> pd.createQpWithSrq(cq, cq, srq, "q", 4, 1, 0, cc, c, o)));
        Queues.postSrqReceives(srq, "r", 2);
        w.untrack(srq);
        w.untrack(qp);
        Queues.Closing closing = Queues.startClose(srq);
        assertThat(st(closing.status())).isEqualTo(st(NtStatus.STATUS_PENDING));
        assertThat(closing.done()).isNotDone();
        Kit.close(qp);
        Kit.await(closing.done());
        assertThat(closing.completions().get()).isEqualTo(1);
        // receives still queued in a closed SRQ are discarded without completions
        Kit.assertEmpty(cq);
    }
}
