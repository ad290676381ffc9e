package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResult;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.Queues.End;
import io.jndk.conformance.support.Queues.Notes;
import io.jndk.conformance.support.Queues.Shape;
import io.jndk.conformance.support.World;
import java.util.ArrayList;
import java.util.List;
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
 * Completion queues: {@code NdkCreateCq}, {@code NdkGetCqResults}, {@code NdkGetCqResultsEx}, {@code NdkArmCq}
 * with the {@code NdkCqNotificationCallback} rules (one notification per arm, arm strength, serialization,
 * re-entry), CQ overrun, {@code NdkResizeCq}, {@code NdkControlCqInterruptModeration} and {@code NdkCloseCq}
 * (pending while QPs use the CQ).
 *
 * <p>Local completions are produced without a connection: a QP is flushed, after which every receive posted
 * to it is accepted and completed at once with {@code STATUS_CANCELLED} (an error completion). Successful
 * completions come from zero-byte writes on a connected pair.
 *
 * <p>Where a test asserts that a notification did <em>not</em> happen, it waits for a later notification
 * that must happen on the same CQ; notifications of one CQ are serialized and delivered in order, so an
 * unwanted earlier one would have been recorded first.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class CqConformanceTest {
    @Parameter
    Mode mode;

    World w;
    NdkAdapter a;
    NdkPd pd;
    final Notes notes = new Notes();

    @BeforeEach
    void setUp() {
        w = new World(mode);
        a = w.adapter();
        pd = w.pd(a);
    }

    /** A class-level timeout does not cover lifecycle methods; the world close blocks while objects leak. */
    @AfterEach
    @Timeout(60)
    void tearDown() {
        w.close();
    }

    private NdkCq cq(int depth) {
        return w.track(Kit.<NdkCq>create((cc, c, o) -> a.createCq(depth, notes, "cqctx", null, cc, c, o)));
    }

    /** A flushed, never-connected QP on {@code cq}: each receive posted to it completes at once, cancelled. */
    private NdkQp flushedQp(NdkCq cq, int rqDepth) {
        NdkQp qp = w.qp(pd, cq, cq, "local", rqDepth, 1, 1, 1, 0);
        qp.flush();
        return qp;
    }

    private static void cancelOne(NdkQp qp, Object ctx) {
        assertThat(qp.receive(ctx, new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    // ---- NdkCreateCq --------------------------------------------------------------------------

    @Test
    void createCqWithDepthZeroIsInvalidParameter() {
        Kit.Created<NdkCq> c = Kit.tryCreate((cc, x, o) -> a.createCq(0, null, null, null, cc, x, o));
        assertThat(NtStatus.name(c.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createCqDeeperThanMaxCqDepthIsInvalidParameter() {
        int max = a.info().maxCqDepth();
        Kit.Created<NdkCq> c = Kit.tryCreate((cc, x, o) -> a.createCq(max + 1, null, null, null, cc, x, o));
        assertThat(NtStatus.name(c.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER));
        Kit.Created<NdkCq> huge = Kit.tryCreate((cc, x, o) -> a.createCq(-1, null, null, null, cc, x, o));
        assertThat(NtStatus.name(huge.status())).as("depth 0xFFFFFFFF").isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createCqAtMaxCqDepthSucceeds() {
        int max = a.info().maxCqDepth();
        w.track(Kit.<NdkCq>create((cc, x, o) -> a.createCq(max, null, null, null, cc, x, o)));
    }

    // ---- NdkGetCqResults(Ex) ------------------------------------------------------------------

    @Test
    void getCqResultsOnEmptyCqReturnsZero() {
        NdkCq cq = cq(8);
        assertThat(cq.getCqResults(new NdkResult[] {new NdkResult()}, 1)).isZero();
        assertThat(cq.getCqResultsEx(new NdkResultEx[] {new NdkResultEx()}, 1)).isZero();
    }

    @Test
    void getCqResultsReturnsOldestFirstAndTheCount() {
        NdkCq cq = cq(8);
        NdkQp qp = flushedQp(cq, 8);
        for (int i = 0; i < 5; i++) {
            cancelOne(qp, "r" + i);
        }
        NdkResult[] r = {new NdkResult(), new NdkResult(), new NdkResult()};
        assertThat(cq.getCqResults(r, 3)).isEqualTo(3);
        assertThat(List.of(r[0].requestContext, r[1].requestContext, r[2].requestContext)).containsExactly("r0", "r1", "r2");
        assertThat(r[0].status).isEqualTo(NtStatus.STATUS_CANCELLED);
        assertThat(r[0].qpContext).isEqualTo("local");
        NdkResultEx[] x = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};
        assertThat(cq.getCqResultsEx(x, 3)).as("only two left").isEqualTo(2);
        assertThat(x[0].requestContext).isEqualTo("r3");
        assertThat(x[1].requestContext).isEqualTo("r4");
        assertThat(x[0].type).isEqualTo(NdkOperationType.RECEIVE);
        assertThat(x[0].status).isEqualTo(NtStatus.STATUS_CANCELLED);
        assertThat(cq.getCqResultsEx(x, 3)).isZero();
    }

    @Test
    void getCqResultsTakesAtMostN() {
        NdkCq cq = cq(8);
        NdkQp qp = flushedQp(cq, 8);
        cancelOne(qp, "r0");
        cancelOne(qp, "r1");
        NdkResultEx[] x = {new NdkResultEx(), new NdkResultEx()};
        assertThat(cq.getCqResultsEx(x, 1)).isEqualTo(1);
        assertThat(x[0].requestContext).isEqualTo("r0");
        assertThat(x[1].requestContext).as("second slot untouched").isNull();
        assertThat(cq.getCqResultsEx(x, 2)).isEqualTo(1);
        assertThat(x[0].requestContext).isEqualTo("r1");
    }

    /** A null element ends the caller's array: nothing is taken into it or past it, no completion is lost. */
    @Test
    void getCqResultsStopsAtANullElementAndLosesNothing() {
        NdkCq cq = cq(8);
        NdkQp qp = flushedQp(cq, 8);
        cancelOne(qp, "r0");
        cancelOne(qp, "r1");
        cancelOne(qp, "r2");
        NdkResultEx[] x = {new NdkResultEx(), null, new NdkResultEx()};
        assertThat(cq.getCqResultsEx(x, 3)).isEqualTo(1);
        assertThat(x[0].requestContext).isEqualTo("r0");
        assertThat(x[2].requestContext).as("past the null element: untouched").isNull();
        assertThat(cq.getCqResults(new NdkResult[] {null}, 1)).isZero();
        NdkResultEx[] all = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};
        assertThat(cq.getCqResultsEx(all, 3)).as("the rest, in order").isEqualTo(2);
        assertThat(all[0].requestContext).isEqualTo("r1");
        assertThat(all[1].requestContext).isEqualTo("r2");
    }

    // ---- NdkArmCq -----------------------------------------------------------------------------

    @Test
    void noNotificationWithoutAnArm() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        cancelOne(qp, "unarmed");
        // arming now must fire at once (the completion is new); an earlier spontaneous notification would come first
        cq.armCq(NdkCqNotifyType.ANY);
        notes.await(1);
        Queues.drain(cq);
        cancelOne(qp, "unarmed-again");
        cq.armCq(NdkCqNotifyType.ANY);
        notes.await(2);
        assertThat(notes.count()).isEqualTo(2);
    }

    @Test
    void armAnyNotifiesOnceOnTheNextCompletionWithTheContext() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "c1");
        notes.await(1);
        assertThat(notes.statuses.get(0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(notes.contexts.get(0)).isEqualTo("cqctx");
        cancelOne(qp, "c2");
        cancelOne(qp, "c3");
        // one notification per arm: the two completions above must not notify; the re-arm below must
        Queues.drain(cq);
        cancelOne(qp, "c4");
        cq.armCq(NdkCqNotifyType.ANY);
        notes.await(2);
        assertThat(notes.count()).isEqualTo(2);
    }

    @Test
    void armingWithNewCompletionsAlreadyQueuedNotifiesAtOnce() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        cancelOne(qp, "queued");
        cq.armCq(NdkCqNotifyType.ANY);
        notes.await(1);
        assertThat(Queues.drain(cq)).hasSize(1);
    }

    @Test
    void armSolicitedIgnoresUnsolicitedSuccessAndFiresOnSolicitedReceive() {
        End[] e = Queues.connect(w, Map.of(), Shape.standard());
        End sender = e[0];
        End receiver = e[1];
        Notes rn = new Notes();
        NdkCq rcq = w.track(Kit.<NdkCq>create((cc, c, o) -> receiver.adapter.createCq(64, rn, "rcq", null, cc, c, o)));
        NdkQp rqp = w.qp(receiver.pd, rcq, rcq, "rqp", 8, 8, 1, 1, 0);
        // reconnect a fresh pair whose receive CQ is the notified one
        End s2 = new End();
        s2.adapter = sender.adapter;
        s2.pd = sender.pd;
        s2.rcq = sender.rcq;
        s2.icq = sender.icq;
        s2.qp = w.qp(sender.pd, sender.rcq, sender.rcq, "sqp", 8, 8, 1, 1, 0);
        End r2 = new End();
        r2.adapter = receiver.adapter;
        r2.pd = receiver.pd;
        r2.rcq = rcq;
        r2.icq = rcq;
        r2.qp = rqp;
        Queues.connect(w, s2, r2);
        Queues.postReceives(rqp, "rx", 3);
        rcq.armCq(NdkCqNotifyType.SOLICITED);
        assertThat(s2.qp.send("plain", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx first = Kit.poll(rcq);
        assertThat(first.requestContext).isEqualTo("rx0");
        assertThat(first.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(s2.qp.send("solicited", new NdkSge[0], 0, NdkOpFlags.SEND_AND_SOLICIT_EVENT)).isEqualTo(NtStatus.STATUS_SUCCESS);
        rn.await(1);
        NdkResultEx second = Kit.poll(rcq);
        assertThat(second.requestContext).isEqualTo("rx1");
        assertThat(rn.count()).as("the unsolicited receive did not satisfy the solicited arm").isEqualTo(1);
        assertThat(rn.statuses.get(0)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void armSolicitedIsSatisfiedByAnErrorCompletion() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        cq.armCq(NdkCqNotifyType.SOLICITED);
        cancelOne(qp, "cancelled");
        notes.await(1);
        assertThat(notes.statuses.get(0)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void armErrorsIgnoresCompletionsAndFiresOnOverrunWithBufferOverflow() {
        NdkCq cq = cq(2);
        NdkQp qp = w.qp(pd, cq, cq, "local", 8, 1, 1, 1, 0);
        Queues.postReceives(qp, "r", 3);
        cq.armCq(NdkCqNotifyType.ERRORS);
        qp.flush(); // three cancelled completions into a CQ of depth two: overrun
        notes.await(1);
        assertThat(notes.statuses).containsExactly(NtStatus.STATUS_BUFFER_OVERFLOW);
    }

    @Test
    void strongerArmWinsWhenReArmed() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        // ERRORS then SOLICITED = SOLICITED: an error completion fires it
        cq.armCq(NdkCqNotifyType.ERRORS);
        cq.armCq(NdkCqNotifyType.SOLICITED);
        cancelOne(qp, "e1");
        notes.await(1);
        Queues.drain(cq);
        // ANY then ERRORS = ANY (checked with a successful completion below)
        End[] e = Queues.connect(w, Map.of(), Shape.standard());
        Notes an = new Notes();
        NdkCq acq = w.track(Kit.<NdkCq>create((cc, c, o) -> e[0].adapter.createCq(64, an, null, null, cc, c, o)));
        End s = new End();
        s.adapter = e[0].adapter;
        s.pd = e[0].pd;
        s.qp = w.qp(e[0].pd, acq, acq, "s", 8, 8, 1, 1, 0);
        End r = new End();
        r.adapter = e[1].adapter;
        r.pd = e[1].pd;
        r.qp = w.qp(e[1].pd, e[1].rcq, e[1].rcq, "r", 8, 8, 1, 1, 0);
        Queues.connect(w, s, r);
        acq.armCq(NdkCqNotifyType.ANY);
        acq.armCq(NdkCqNotifyType.ERRORS);
        assertThat(s.qp.write("w1", new NdkSge[0], 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        an.await(1);
        assertThat(Kit.poll(acq).status).isEqualTo(NtStatus.STATUS_SUCCESS);
        // SOLICITED then ANY = ANY: a successful write completion fires it
        acq.armCq(NdkCqNotifyType.SOLICITED);
        acq.armCq(NdkCqNotifyType.ANY);
        assertThat(s.qp.write("w2", new NdkSge[0], 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        an.await(2);
        assertThat(Kit.poll(acq).requestContext).isEqualTo("w2");
        assertThat(an.count()).isEqualTo(2);
    }

    @Test
    void notificationCallbackMayPollAndReArm() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        List<Object> polled = new java.util.concurrent.CopyOnWriteArrayList<>();
        notes.hook = st -> {
            for (NdkResultEx r : Queues.drain(cq)) {
                polled.add(r.requestContext);
            }
            if (notes.count() < 3) {
                cq.armCq(NdkCqNotifyType.ANY);
            }
        };
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "n1");
        Kit.awaitTrue("first polled", () -> polled.contains("n1"));
        cancelOne(qp, "n2");
        Kit.awaitTrue("second polled", () -> polled.contains("n2"));
        cancelOne(qp, "n3");
        notes.await(3);
        Kit.awaitTrue("third polled", () -> polled.contains("n3"));
        assertThat(polled).containsExactly("n1", "n2", "n3");
    }

    @Test
    void notificationCallbacksOfOneCqNeverOverlap() {
        NdkCq cq = cq(64);
        NdkQp qp = flushedQp(cq, 64);
        AtomicInteger seq = new AtomicInteger();
        notes.hook = st -> {
            Queues.drain(cq);
            int n = seq.incrementAndGet();
            if (n < 20) {
                // re-arm and satisfy the arm while still inside the callback: the next callback must wait
                cq.armCq(NdkCqNotifyType.ANY);
                cancelOne(qp, "chain" + n);
                assertThat(notes.inside.get()).isEqualTo(1);
            }
        };
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "chain0");
        notes.await(20);
        assertThat(notes.maxInside.get()).as("concurrent notification callbacks").isEqualTo(1);
    }

    // ---- overrun ------------------------------------------------------------------------------

    @Test
    void overrunNotifiesBufferOverflowAndPutsTheQpInError() {
        End[] e = Queues.connect(w, Map.of(), Shape.standard());
        Notes on = new Notes();
        NdkCq small = w.track(Kit.<NdkCq>create((cc, c, o) -> e[0].adapter.createCq(2, on, null, null, cc, c, o)));
        End s = new End();
        s.adapter = e[0].adapter;
        s.pd = e[0].pd;
        s.qp = w.qp(e[0].pd, small, small, "s", 8, 8, 1, 1, 0);
        End r = new End();
        r.adapter = e[1].adapter;
        r.pd = e[1].pd;
        r.qp = w.qp(e[1].pd, e[1].rcq, e[1].rcq, "r", 8, 8, 1, 1, 0);
        Queues.connect(w, s, r);
        small.armCq(NdkCqNotifyType.ERRORS);
        for (int i = 0; i < 3; i++) {
            assertThat(s.qp.write("w" + i, new NdkSge[0], 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        on.await(1);
        assertThat(on.statuses).containsExactly(NtStatus.STATUS_BUFFER_OVERFLOW);
        Kit.awaitTrue("QP in error after the overrun",
                () -> s.qp.write(null, new NdkSge[0], 0, 0, 0, 0) == NtStatus.STATUS_CONNECTION_INVALID);
    }

    @Test
    void overrunWithoutAnArmIsReportedAtTheNextArm() {
        NdkCq cq = cq(2);
        NdkQp qp = w.qp(pd, cq, cq, "local", 8, 1, 1, 1, 0);
        Queues.postReceives(qp, "r", 3);
        qp.flush();
        cq.armCq(NdkCqNotifyType.ERRORS);
        notes.await(1);
        assertThat(notes.statuses).containsExactly(NtStatus.STATUS_BUFFER_OVERFLOW);
    }

    // ---- NdkResizeCq --------------------------------------------------------------------------

    @Test
    void resizeCqGrowingKeepsQueuedEntriesInOrder() {
        NdkCq cq = cq(4);
        NdkQp qp = flushedQp(cq, 16);
        for (int i = 0; i < 3; i++) {
            cancelOne(qp, "k" + i);
        }
        assertThat(Kit.request((rc, c) -> cq.resizeCq(16, rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        for (int i = 3; i < 10; i++) {
            cancelOne(qp, "k" + i);
        }
        List<Object> got = new ArrayList<>();
        for (NdkResultEx r : Queues.drain(cq)) {
            got.add(r.requestContext);
        }
        assertThat(got).containsExactly("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9");
    }

    @Test
    void resizeCqShrinkingToOccupancyKeepsEntries() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        for (int i = 0; i < 3; i++) {
            cancelOne(qp, "k" + i);
        }
        assertThat(Kit.request((rc, c) -> cq.resizeCq(3, rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Queues.drain(cq)).extracting(r -> r.requestContext).containsExactly("k0", "k1", "k2");
    }

    @Test
    void resizeCqBelowOccupancyIsBufferOverflow() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        for (int i = 0; i < 3; i++) {
            cancelOne(qp, "k" + i);
        }
        int s = Kit.request((rc, c) -> cq.resizeCq(2, rc, c));
        assertThat(NtStatus.name(s)).isEqualTo(NtStatus.name(NtStatus.STATUS_BUFFER_OVERFLOW));
        assertThat(Queues.drain(cq)).as("CQ unchanged").hasSize(3);
    }

    @Test
    void resizeCqAboveMaxCqDepthIsInvalidParameter() {
        NdkCq cq = cq(16);
        int max = a.info().maxCqDepth();
        int s = Kit.request((rc, c) -> cq.resizeCq(max + 1, rc, c));
        assertThat(NtStatus.name(s)).isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void resizeCqWithoutTheResizeFlagIsNotSupported() {
        NdkAdapter plain = w.adapter(Map.of("adapterFlags", String.valueOf(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED)));
        NdkCq cq = w.cq(plain, 8);
        int s = Kit.request((rc, c) -> cq.resizeCq(16, rc, c));
        assertThat(NtStatus.name(s)).isEqualTo(NtStatus.name(NtStatus.STATUS_NOT_SUPPORTED));
    }

    @Test
    void resizeCqOnThePendingPathCompletesThroughTheCallback() {
        NdkAdapter pending = w.adapter(Map.of("pend", "always"));
        NdkCq cq = w.cq(pending, 8);
        java.util.concurrent.CompletableFuture<Integer> f = new java.util.concurrent.CompletableFuture<>();
        int s = cq.resizeCq(32, (c, st) -> f.complete(st), "ctx");
        assertThat(NtStatus.name(s)).isEqualTo(NtStatus.name(NtStatus.STATUS_PENDING));
        assertThat(Kit.await(f)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    // ---- NdkControlCqInterruptModeration ------------------------------------------------------

    @Test
    void moderationWithMaxIntervalAndMaxCountIsInvalidParameterMix() {
        NdkCq cq = cq(16);
        assertThat(NtStatus.name(cq.controlCqInterruptModeration(0xFFFFFFFF, 0xFFFFFFFF)))
                .isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER_MIX));
        assertThat(NtStatus.name(cq.controlCqInterruptModeration(0xFFFFFFFF, 17))).as("count above the CQ depth")
                .isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_PARAMETER_MIX));
    }

    @Test
    void moderationAcceptsEveryOtherCombination() {
        NdkCq cq = cq(16);
        int[][] ok = {{0, 0}, {0, 0xFFFFFFFF}, {100, 0}, {100, 1}, {100, 8}, {0xFFFFFFFF, 8}, {0xFFFFFFFF, 16},
            {1000, 0xFFFFFFFF}};
        for (int[] c : ok) {
            assertThat(cq.controlCqInterruptModeration(c[0], c[1])).as("interval %d count %d", c[0], c[1])
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
        }
    }

    @Test
    void moderationWithoutTheAdapterFlagIsNotSupported() {
        NdkAdapter plain = w.adapter(Map.of("adapterFlags", String.valueOf(NdkAdapterFlags.CQ_RESIZE_SUPPORTED)));
        NdkCq cq = w.cq(plain, 8);
        assertThat(NtStatus.name(cq.controlCqInterruptModeration(10, 4))).isEqualTo(NtStatus.name(NtStatus.STATUS_NOT_SUPPORTED));
    }

    @Test
    void moderationByCountDelaysTheNotificationUntilCountCompletions() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        // interval MAXULONG: only the count governs
        assertThat(cq.controlCqInterruptModeration(0xFFFFFFFF, 3)).isEqualTo(NtStatus.STATUS_SUCCESS);
        List<Integer> drained = new java.util.concurrent.CopyOnWriteArrayList<>();
        notes.hook = st -> drained.add(Queues.drain(cq).size());
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "m1");
        cancelOne(qp, "m2");
        cancelOne(qp, "m3");
        notes.await(1);
        Kit.awaitTrue("drained", () -> !drained.isEmpty());
        assertThat(drained.get(0)).as("completions present at the moderated notification").isEqualTo(3);
    }

    @Test
    void moderationOffAgainNotifiesOnTheFirstCompletion() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        assertThat(cq.controlCqInterruptModeration(0xFFFFFFFF, 8)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(cq.controlCqInterruptModeration(0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "only");
        notes.await(1);
    }

    @Test
    void moderationTurnedOffReleasesANotificationHeldByTheCount() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        assertThat(cq.controlCqInterruptModeration(0xFFFFFFFF, 8)).isEqualTo(NtStatus.STATUS_SUCCESS);
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "held");
        // the newest settings win and take effect "not indefinitely" later: the held notification must come
        assertThat(cq.controlCqInterruptModeration(0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        notes.await(1);
    }

    @Test
    void moderationWithMaxCountIsGovernedByTheInterval() {
        NdkCq cq = cq(16);
        NdkQp qp = flushedQp(cq, 16);
        // count MAXULONG: only the interval (here 1 ms) governs, so the notification arrives without more completions
        assertThat(cq.controlCqInterruptModeration(1000, 0xFFFFFFFF)).isEqualTo(NtStatus.STATUS_SUCCESS);
        cq.armCq(NdkCqNotifyType.ANY);
        cancelOne(qp, "timed");
        notes.await(1);
        assertThat(notes.count()).isEqualTo(1);
    }

    // ---- NdkCloseCq ---------------------------------------------------------------------------

    @Test
    void closeCqWithQpsPendsUntilTheQpsClose() {
        NdkCq cq = w.cq(a, 8);
        NdkQp qp = w.qp(pd, cq, cq, "q", 4, 4, 1, 1, 0);
        w.untrack(cq);
        w.untrack(qp);
        Queues.Closing closing = Queues.startClose(cq);
        assertThat(NtStatus.name(closing.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_PENDING));
        assertThat(closing.done()).as("CQ close must wait for its QP").isNotDone();
        Kit.close(qp);
        Kit.await(closing.done());
        assertThat(closing.completions().get()).isEqualTo(1);
    }
}
