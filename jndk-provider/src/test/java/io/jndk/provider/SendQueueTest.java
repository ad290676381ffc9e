package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The initiator queue's own rules: deferral, taking in order, completing in posting order, flushing. */
class SendQueueTest {
    private final Objects o = new Objects();
    private final SoftCq cq = o.cq(64, null);
    private final SoftQp qp = o.qp(cq, 4);
    private final SendQueue sq = qp.sq;

    @AfterEach
    void close() {
        o.close();
    }

    /** Posts a Write with {@code flags} and request context {@code ctx}, as a post does (under the QP lock). */
    private WorkRequest post(String ctx, int flags) {
        synchronized (qp.lock) {
            WorkRequest w = sq.tail();
            w.op = WorkRequest.Op.WRITE;
            w.flags = flags;
            w.context = ctx;
            sq.commit(flags);
            return w;
        }
    }

    private WorkRequest start() {
        synchronized (qp.lock) {
            WorkRequest w = sq.peekNext();
            assertThat(w).as("a released request").isNotNull();
            sq.start(w);
            return w;
        }
    }

    private void finish(WorkRequest w, int status) {
        synchronized (qp.lock) {
            sq.finish(w, status, 0, 0);
        }
    }

    private List<Object> completed() {
        return Objects.drain(cq).stream().map(r -> r.requestContext).toList();
    }

    @Test
    void deferredRequestsWaitForAPostThatIsNotDeferred() {
        post("a", NdkOpFlags.DEFER);
        post("b", NdkOpFlags.DEFER);
        synchronized (qp.lock) {
            assertThat(sq.released()).isZero();
            assertThat(sq.peekNext()).isNull();
            assertThat(sq.takeKick()).isFalse();
        }
        post("c", 0);
        synchronized (qp.lock) {
            assertThat(sq.released()).isEqualTo(3);
            assertThat(sq.takeKick()).isTrue();
            assertThat(sq.takeKick()).as("a kick is owed once").isFalse();
        }
    }

    @Test
    void anInlineFailureReleasesWhatWasDeferred() {
        post("a", NdkOpFlags.DEFER);
        synchronized (qp.lock) {
            sq.releaseOnFailure();
            assertThat(sq.released()).isEqualTo(1);
            assertThat(sq.takeKick()).isTrue();
        }
    }

    @Test
    void requestsAreTakenInPostingOrderAndCompleteInPostingOrder() {
        post("a", 0);
        post("b", 0);
        post("c", 0);
        WorkRequest a = start();
        WorkRequest b = start();
        WorkRequest c = start();
        assertThat(List.of(a.context, b.context, c.context)).containsExactly("a", "b", "c");
        finish(b, NtStatus.STATUS_SUCCESS);
        assertThat(completed()).as("b waits for a").isEmpty();
        finish(a, NtStatus.STATUS_SUCCESS);
        assertThat(completed()).containsExactly("a", "b");
        finish(c, NtStatus.STATUS_SUCCESS);
        assertThat(completed()).containsExactly("c");
        synchronized (qp.lock) {
            assertThat(sq.size()).isZero();
        }
    }

    @Test
    void aFinishedRequestIsNoLongerStarted() {
        post("a", 0);
        WorkRequest a = start();
        synchronized (qp.lock) {
            assertThat(sq.isStarted(a)).isTrue();
        }
        finish(a, NtStatus.STATUS_SUCCESS);
        synchronized (qp.lock) {
            assertThat(sq.isStarted(a)).as("a late report of a completed request is ignored").isFalse();
        }
    }

    @Test
    void aConnectionFailureFinishesTheOldestRequestOnTheWire() {
        post("a", 0);
        post("b", 0);
        post("c", 0);
        WorkRequest a = start();
        start();
        finish(a, NtStatus.STATUS_SUCCESS);
        assertThat(completed()).containsExactly("a");
        synchronized (qp.lock) {
            sq.failOldestStarted(NtStatus.STATUS_REMOTE_RESOURCES, 0x1100);
        }
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).requestContext).isEqualTo("b");
        assertThat(r.get(0).status).isEqualTo(NtStatus.STATUS_REMOTE_RESOURCES);
        assertThat(r.get(0).providerErrorCode).isEqualTo(0x1100);
        assertThat(r.get(0).type).isEqualTo(NdkOperationType.WRITE);
    }

    private List<Integer> statuses(List<NdkResultEx> r) {
        return r.stream().map(x -> x.status).toList();
    }

    @Test
    void aFlushCancelsEveryRequestLeftEvenOneThatFinishedBehindAnUnfinishedHead() {
        post("a", 0);
        post("b", 0);
        post("c", NdkOpFlags.DEFER);
        start();
        WorkRequest b = start();
        finish(b, NtStatus.STATUS_SUCCESS); // handed to the wire, waits behind a
        int cancelled;
        synchronized (qp.lock) {
            cancelled = sq.flush();
            assertThat(sq.size()).isZero();
            assertThat(sq.released()).isZero();
        }
        assertThat(cancelled).isEqualTo(3);
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r.stream().map(x -> x.requestContext)).containsExactly("a", "b", "c");
        assertThat(statuses(r)).as("nothing behind a cancelled request reports success")
                .containsOnly(NtStatus.STATUS_CANCELLED);
    }

    @Test
    void requestsThatFinishedBehindARequestThatFailsCompleteCancelled() {
        post("read", 0);
        post("send0", 0);
        post("send1", 0);
        post("later", 0);
        start();
        finish(start(), NtStatus.STATUS_SUCCESS);
        finish(start(), NtStatus.STATUS_SUCCESS);
        WorkRequest later = start();
        assertThat(completed()).as("the sends wait behind the read").isEmpty();
        synchronized (qp.lock) {
            sq.failOldestStarted(NtStatus.STATUS_REMOTE_RESOURCES, 0x1100);
        }
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r.stream().map(x -> x.requestContext)).containsExactly("read", "send0", "send1");
        assertThat(statuses(r)).containsExactly(NtStatus.STATUS_REMOTE_RESOURCES, NtStatus.STATUS_CANCELLED,
                NtStatus.STATUS_CANCELLED);
        assertThat(r.stream().map(x -> x.providerErrorCode)).containsExactly(0x1100, 0, 0);
        assertThat(o.adapter.counters().get(io.jndk.api.NdkCounter.FLUSHED_REQUESTS)).isEqualTo(2);
        // a request the transport reports done after the error was reported is flushed too
        finish(later, NtStatus.STATUS_SUCCESS);
        List<NdkResultEx> l = Objects.drain(cq);
        assertThat(l.stream().map(x -> x.requestContext)).containsExactly("later");
        assertThat(statuses(l)).containsExactly(NtStatus.STATUS_CANCELLED);
        assertThat(o.adapter.counters().get(io.jndk.api.NdkCounter.FLUSHED_REQUESTS)).isEqualTo(3);
    }

    @Test
    void aSilentSuccessBehindAFailureProducesItsCancelledEntry() {
        post("read", 0);
        post("quiet", NdkOpFlags.SILENT_SUCCESS);
        WorkRequest read = start();
        finish(start(), NtStatus.STATUS_SUCCESS);
        finish(read, NtStatus.STATUS_ACCESS_VIOLATION);
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r.stream().map(x -> x.requestContext)).containsExactly("read", "quiet");
        assertThat(statuses(r)).containsExactly(NtStatus.STATUS_ACCESS_VIOLATION, NtStatus.STATUS_CANCELLED);
    }

    @Test
    void aLocalFailureBehindAnOutstandingReadKeepsItsErrorAndTheRestIsCancelled() {
        post("read", 0);
        post("send", 0);
        post("invalidate", 0);
        post("after", 0);
        start();
        finish(start(), NtStatus.STATUS_SUCCESS);
        finish(start(), NtStatus.STATUS_INVALID_DEVICE_REQUEST); // SoftQpPort.localFailure, then the QP flushes
        assertThat(completed()).isEmpty();
        int cancelled;
        synchronized (qp.lock) {
            cancelled = sq.flush();
        }
        assertThat(cancelled).isEqualTo(3);
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r.stream().map(x -> x.requestContext)).containsExactly("read", "send", "invalidate", "after");
        assertThat(statuses(r)).containsExactly(NtStatus.STATUS_CANCELLED, NtStatus.STATUS_CANCELLED,
                NtStatus.STATUS_INVALID_DEVICE_REQUEST, NtStatus.STATUS_CANCELLED);
    }

    @Test
    void aConnectionFailureWithTheTransportsOwnStatusKeepsTheCauseOfALocalFailureBehindIt() {
        post("read", 0);
        post("invalidate", 0);
        post("after", 0);
        start();
        finish(start(), NtStatus.STATUS_INVALID_DEVICE_REQUEST);
        synchronized (qp.lock) {
            sq.failOldestStarted(NtStatus.STATUS_CANCELLED, 0); // the transport aborts after the local failure
            sq.flush();
        }
        List<NdkResultEx> r = Objects.drain(cq);
        assertThat(r.stream().map(x -> x.requestContext)).containsExactly("read", "invalidate", "after");
        assertThat(statuses(r)).containsExactly(NtStatus.STATUS_CANCELLED, NtStatus.STATUS_INVALID_DEVICE_REQUEST,
                NtStatus.STATUS_CANCELLED);
    }

    @Test
    void aSilentSuccessProducesNoEntryButAFailureDoes() {
        post("quiet", NdkOpFlags.SILENT_SUCCESS);
        post("loud", NdkOpFlags.SILENT_SUCCESS);
        finish(start(), NtStatus.STATUS_SUCCESS);
        finish(start(), NtStatus.STATUS_ACCESS_VIOLATION);
        assertThat(completed()).containsExactly("loud");
    }

    @Test
    void theQueueHoldsItsDepth() {
        for (int i = 0; i < 4; i++) {
            post("w" + i, 0);
        }
        synchronized (qp.lock) {
            assertThat(sq.full()).isTrue();
        }
        finish(start(), NtStatus.STATUS_SUCCESS);
        synchronized (qp.lock) {
            assertThat(sq.full()).isFalse();
        }
    }

    @Test
    void slotsAreReusedAndFreedAfterCompletion() {
        for (int round = 0; round < 3; round++) {
            post("r" + round, 0);
            WorkRequest w = start();
            finish(w, NtStatus.STATUS_SUCCESS);
            assertThat(w.op).as("freed slot").isNull();
            assertThat(w.context).isNull();
            assertThat(w.state).isEqualTo(WorkRequest.State.QUEUED);
        }
        assertThat(completed()).containsExactly("r0", "r1", "r2");
    }
}
