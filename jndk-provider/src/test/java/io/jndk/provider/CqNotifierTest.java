package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.EngineThread;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A CQ's arming and notification rules (NDKPI §5.3), through {@link SoftCq} and its {@link CqNotifier}. Notifications
 * run on the adapter's dispatcher; "no notification" is checked once the dispatcher has run everything given to it.
 */
class CqNotifierTest {
    private final Objects o = new Objects();
    private final List<Integer> notes = new CopyOnWriteArrayList<>();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final CqNotificationCallback cb = (ctx, status) -> {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        notes.add(status);
        inside.decrementAndGet();
    };

    @AfterEach
    void close() {
        o.close();
    }

    private static void complete(SoftCq cq, int status, boolean solicited) {
        assertThat(cq.push(status, 0, "qp", "r", 1, 0, 0, solicited)).isTrue();
    }

    private List<Integer> notesNow() throws InterruptedException {
        o.awaitDispatcher();
        return List.copyOf(notes);
    }

    @Test
    void anUnarmedCqDoesNotNotify() throws InterruptedException {
        SoftCq cq = o.cq(8, cb);
        complete(cq, NtStatus.STATUS_SUCCESS, true);
        assertThat(notesNow()).isEmpty();
    }

    @Test
    void armAnyFiresOnceForTheNextCompletion() throws InterruptedException {
        SoftCq cq = o.cq(8, cb);
        cq.armCq(NdkCqNotifyType.ANY);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void armSolicitedWaitsForASolicitedCompletionOrAFailure() throws InterruptedException {
        SoftCq cq = o.cq(8, cb);
        cq.armCq(NdkCqNotifyType.SOLICITED);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(notesNow()).isEmpty();
        complete(cq, NtStatus.STATUS_CANCELLED, false);
        assertThat(notesNow()).hasSize(1);
        cq.armCq(NdkCqNotifyType.SOLICITED);
        complete(cq, NtStatus.STATUS_SUCCESS, true);
        assertThat(notesNow()).hasSize(2);
    }

    @Test
    void armingWithMatchingEntriesAlreadyQueuedFiresAtOnce() throws InterruptedException {
        SoftCq cq = o.cq(8, cb);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        cq.armCq(NdkCqNotifyType.SOLICITED);
        assertThat(notesNow()).as("an unsolicited entry does not match SOLICITED").isEmpty();
        cq.armCq(NdkCqNotifyType.ANY);
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void theStrongerArmWins() {
        assertThat(CqNotifier.stronger(NdkCqNotifyType.ERRORS, NdkCqNotifyType.SOLICITED)).isEqualTo(NdkCqNotifyType.SOLICITED);
        assertThat(CqNotifier.stronger(NdkCqNotifyType.ANY, NdkCqNotifyType.SOLICITED)).isEqualTo(NdkCqNotifyType.ANY);
        assertThat(CqNotifier.stronger(-1, NdkCqNotifyType.ERRORS)).isEqualTo(NdkCqNotifyType.ERRORS);
    }

    @Test
    void anOverrunPutsTheCqInErrorAndAnArmedCqLearnsItAsBufferOverflow() throws InterruptedException {
        SoftCq cq = o.cq(2, cb);
        cq.armCq(NdkCqNotifyType.ERRORS);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(notesNow()).as("ERRORS ignores completions").isEmpty();
        assertThat(cq.push(NtStatus.STATUS_SUCCESS, 0, "qp", "r", 1, 0, 0, false)).isFalse();
        assertThat(cq.push(NtStatus.STATUS_SUCCESS, 0, "qp", "r", 1, 0, 0, false)).as("in error").isFalse();
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_BUFFER_OVERFLOW);
    }

    @Test
    void anOverrunWithoutAnArmIsReportedAtTheNextArmOnce() throws InterruptedException {
        SoftCq cq = o.cq(1, cb);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(cq.push(NtStatus.STATUS_SUCCESS, 0, "qp", "r", 1, 0, 0, false)).isFalse();
        assertThat(notesNow()).isEmpty();
        cq.armCq(NdkCqNotifyType.ANY);
        cq.armCq(NdkCqNotifyType.ANY);
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_BUFFER_OVERFLOW);
    }

    @Test
    void moderationByCountHoldsTheNotificationUntilEnoughCompletions() throws InterruptedException {
        SoftCq cq = o.cq(16, cb);
        assertThat(cq.controlCqInterruptModeration(-1, 3)).isEqualTo(NtStatus.STATUS_SUCCESS);
        cq.armCq(NdkCqNotifyType.ANY);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(notesNow()).isEmpty();
        complete(cq, NtStatus.STATUS_SUCCESS, false);
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void moderationRefusesAnIntervalOfForeverWithoutAUsableCount() {
        SoftCq cq = o.cq(4, cb);
        assertThat(cq.controlCqInterruptModeration(-1, -1)).isEqualTo(NtStatus.STATUS_INVALID_PARAMETER_MIX);
        assertThat(cq.controlCqInterruptModeration(-1, 5)).isEqualTo(NtStatus.STATUS_INVALID_PARAMETER_MIX);
        assertThat(cq.controlCqInterruptModeration(-1, 4)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void callbacksOfOneCqNeverOverlap() throws InterruptedException {
        SoftCq cq = o.cq(4096, cb);
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 500; i++) {
                    cq.armCq(NdkCqNotifyType.ANY);
                    complete(cq, NtStatus.STATUS_SUCCESS, false);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join(Objects.WAIT_SECONDS * 1000);
        }
        assertThat(notesNow()).isNotEmpty();
        assertThat(overlaps.get()).isZero();
    }

    /**
     * On a thread that takes the dispatcher hand-offs it makes (a shared engine loop), a notification found under
     * the CQ's monitor wakes the dispatcher only when the thread makes its hand-offs, in order; on any other thread,
     * at once (the other tests).
     */
    @Test
    void anEngineLoopHandsTheNotificationOverWhenItHoldsNoMonitor() throws Exception {
        SoftCq cq = o.cq(8, cb);
        CountDownLatch completed = new CountDownLatch(1);
        CountDownLatch handOff = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread loop = Thread.ofPlatform().start(() -> {
            try {
                EngineThread engine = EngineThread.enterDeferringHandOffs();
                cq.armCq(NdkCqNotifyType.ANY);
                complete(cq, NtStatus.STATUS_SUCCESS, false);
                cq.armCq(NdkCqNotifyType.ANY);
                complete(cq, NtStatus.STATUS_SUCCESS, false); // a second notification, kept behind the first
                completed.countDown();
                if (handOff.await(10, TimeUnit.SECONDS)) {
                    engine.runHandOffs();
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        assertThat(completed.await(10, TimeUnit.SECONDS)).isTrue();
        // the dispatcher has run everything it was given (this thread is no engine thread: its marker goes at once)
        assertThat(notesNow()).as("before the loop thread hands off").isEmpty();
        handOff.countDown();
        loop.join(20_000);
        assertThat(loop.isAlive()).isFalse();
        assertThat(failed.get()).isNull();
        assertThat(notesNow()).containsExactly(NtStatus.STATUS_SUCCESS, NtStatus.STATUS_SUCCESS);
        assertThat(overlaps.get()).isZero();
    }
}
