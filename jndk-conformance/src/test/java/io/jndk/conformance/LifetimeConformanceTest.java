package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.Queues.Closing;
import io.jndk.conformance.support.Queues.End;
import io.jndk.conformance.support.Queues.Shape;
import io.jndk.conformance.support.World;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Object lifetime through {@code NdkCloseObject} ({@code NdkClosePd}, {@code NdkCloseCq}, {@code NdkCloseQp},
 * {@code NdkCloseMr}, {@code NdkCloseMw}, {@code NdkCloseListener}, {@code NdkCloseConnector}) and the
 * {@code NdkCloseCompletion} rules: an antecedent closed before its successors pends and completes exactly once
 * after the last successor closed; the close completion is the object's last callback; a close may be
 * requested from inside a callback; no callbacks after a close.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class LifetimeConformanceTest {
    @Parameter
    Mode mode;

    World w;
    NdkAdapter a;
    NdkPd pd;

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

    /** Starts closing {@code antecedent} and checks it pends until {@code successor} is closed. */
    private void closePendsUntilSuccessorCloses(io.jndk.api.NdkClosable antecedent, io.jndk.api.NdkClosable... successors) {
        w.untrack(antecedent);
        for (io.jndk.api.NdkClosable s : successors) {
            w.untrack(s);
        }
        Closing closing = Queues.startClose(antecedent);
        assertThat(NtStatus.name(closing.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_PENDING));
        for (io.jndk.api.NdkClosable s : successors) {
            assertThat(closing.done()).as("%s close waits for %s", antecedent.objectType(), s.objectType()).isNotDone();
            Kit.close(s);
        }
        Kit.await(closing.done());
        assertThat(closing.completions().get()).as("close completions").isEqualTo(1);
    }

    @Test
    void closingPdWithMrPendsUntilTheMrCloses() {
        NdkMr mr = w.mr(pd, false);
        closePendsUntilSuccessorCloses(pd, mr);
    }

    @Test
    void closingPdWithRegisteredMrAndQpPendsUntilBothClose() {
        Buffer b = w.buffer(4096);
        NdkMr mr = w.registerAll(pd, b);
        NdkCq cq = w.cq(a, 8);
        NdkQp qp = w.qp(pd, cq, "q");
        closePendsUntilSuccessorCloses(pd, mr, qp);
    }

    @Test
    void closingCqWithQpPendsUntilTheQpCloses() {
        NdkCq cq = w.cq(a, 8);
        NdkQp qp = w.qp(pd, cq, "q");
        closePendsUntilSuccessorCloses(cq, qp);
    }

    @Test
    void closingCqUsedAsInitiatorCqOnlyPendsUntilTheQpCloses() {
        NdkCq rcq = w.cq(a, 8);
        NdkCq icq = w.cq(a, 8);
        NdkQp qp = w.qp(pd, rcq, icq, "q", 4, 4, 1, 1, 0);
        closePendsUntilSuccessorCloses(icq, qp);
    }

    @Test
    void closingListenerWithAcceptedConnectorPendsUntilTheConnectorCloses() {
        World.Pair p = w.connect();
        closePendsUntilSuccessorCloses(p.listener, p.b.connector);
    }

    @Test
    void closingMrWithBoundMwPendsUntilTheMwCloses() {
        End[] e = Queues.connect(w, Map.of(), Shape.standard());
        Buffer b = w.buffer(8192);
        NdkMr mr = w.registerAll(e[0].pd, b);
        NdkMw mw = w.track(Kit.<NdkMw>create(e[0].pd::createMw));
        assertThat(e[0].qp.bind("bind", mr, mw, b.address(), 4096, NdkOpFlags.ALLOW_REMOTE_READ)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(e[0].icq).status).isEqualTo(NtStatus.STATUS_SUCCESS);
        closePendsUntilSuccessorCloses(mr, mw);
    }

    @Test
    void closeWithoutSuccessorsCompletesExactlyOnce() {
        NdkCq cq = w.cq(a, 8);
        w.untrack(cq);
        Closing c = Queues.startClose(cq);
        Kit.await(c.done());
        if (c.status() == NtStatus.STATUS_SUCCESS) {
            assertThat(c.completions().get()).as("an inline close has no completion").isZero();
        } else {
            assertThat(c.completions().get()).isEqualTo(1);
        }
    }

    @Test
    void closeCompletionIsTheLastCallbackAfterARunningNotificationReturns() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        NdkCq cq = Kit.create((cc, c, o) -> a.createCq(8, (ctx, st) -> {
            events.add("notify-start");
            inside.countDown();
            try {
                release.await(Kit.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            events.add("notify-end");
        }, null, null, cc, c, o));
        NdkQp qp = Kit.create((cc, c, o) -> pd.createQp(cq, cq, "q", 4, 4, 1, 1, 0, cc, c, o));
        qp.flush();
        cq.armCq(NdkCqNotifyType.ANY);
        assertThat(qp.receive("r", new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(inside.await(Kit.WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("notification running").isTrue();
        // the QP close may need a callback queued behind the running notification: do not wait for it here
        Closing qpClose = Queues.startClose(qp);
        CompletableFuture<Void> done = new CompletableFuture<>();
        int s = cq.close(ctx -> {
            events.add("closed");
            done.complete(null);
        }, "cctx");
        assertThat(NtStatus.name(s)).as("close during a running notification pends").isEqualTo(NtStatus.name(NtStatus.STATUS_PENDING));
        assertThat(done).isNotDone();
        release.countDown();
        Kit.await(qpClose.done());
        Kit.await(done);
        assertThat(events).containsExactly("notify-start", "notify-end", "closed");
    }

    @Test
    void closeFromInsideACallbackWorksAndNoCallbacksFollow() {
        List<String> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        NdkCq[] self = new NdkCq[1];
        NdkCq cq = Kit.create((cc, c, o) -> a.createCq(8, (ctx, st) -> {
            events.add("notify");
            int r = self[0].close(x -> {
                events.add("closed");
                closed.complete(null);
            }, null);
            events.add("close-returned-" + NtStatus.name(r));
            if (r == NtStatus.STATUS_SUCCESS) {
                closed.complete(null);
            }
        }, null, null, cc, c, o));
        self[0] = cq;
        NdkQp qp = Kit.create((cc, c, o) -> pd.createQp(cq, cq, "q", 8, 4, 1, 1, 0, cc, c, o));
        qp.flush();
        cq.armCq(NdkCqNotifyType.ANY);
        assertThat(qp.receive("r0", new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("notified", () -> !events.isEmpty());
        // the CQ is closing: further completions and arms must not call back any more
        assertThat(qp.receive("r1", new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.close(qp); // the QP was the CQ's successor: now the CQ close can complete
        Kit.await(closed);
        assertThat(events.get(0)).isEqualTo("notify");
        assertThat(events).containsOnlyOnce("notify");
        assertThat(events.get(events.size() - 1)).as("the close completion is the last callback").isIn("closed",
                "close-returned-STATUS_SUCCESS");
    }

    @Test
    void closeOfAQpFromInsideItsCqNotificationWorks() {
        CompletableFuture<Void> qpClosed = new CompletableFuture<>();
        NdkQp[] qp = new NdkQp[1];
        NdkCq cq = w.track(Kit.<NdkCq>create((cc, c, o) -> a.createCq(8, (ctx, st) -> {
            int r = qp[0].close(x -> qpClosed.complete(null), null);
            if (r == NtStatus.STATUS_SUCCESS) {
                qpClosed.complete(null);
            }
        }, null, null, cc, c, o)));
        qp[0] = Kit.create((cc, c, o) -> pd.createQp(cq, cq, "q", 8, 4, 1, 1, 0, cc, c, o));
        qp[0].flush();
        cq.armCq(NdkCqNotifyType.ANY);
        assertThat(qp[0].receive("r0", new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.await(qpClosed);
    }

    @Test
    void adapterCloseReturnsOnlyAfterEveryObjectIsClosed() {
        NdkAdapter own = io.jndk.api.Ndk.open(mode.params(Map.of()));
        NdkCq cq = Kit.create((cc, c, o) -> own.createCq(8, null, null, null, cc, c, o));
        CompletableFuture<Void> adapterClosed = CompletableFuture.runAsync(own::close);
        assertThat(adapterClosed).as("the adapter close blocks while a CQ is open").isNotDone();
        Kit.close(cq);
        Kit.await(adapterClosed);
    }
}
