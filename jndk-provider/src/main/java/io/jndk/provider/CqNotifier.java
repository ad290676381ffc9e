package io.jndk.provider;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.EngineThread;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A CQ's notifications (NDKPI §5.3, §7.4): the arm state, what arrived since the last notification, the CQ's error
 * state (overrun), interrupt moderation with its timer, and serialized delivery of the callback, on the engine thread
 * that completed the request ({@code notify=inline}) or on the adapter's dispatcher.
 *
 * <p>Every method but {@link #deliver} runs under the CQ's monitor (the moderation timer takes it too); a callback
 * always runs after that monitor is released, never two of one CQ at once.
 */
final class CqNotifier {
    private static final Logger LOG = Logger.getLogger(SoftCq.class.getName());
    private static final int NOT_ARMED = -1;
    private final SoftCq cq;
    private final CompletionRing ring;
    private final CqNotificationCallback callback;
    private final Object callbackContext;

    // ---- under the CQ's monitor ---------------------------------------------------------------
    private int armed = NOT_ARMED;
    private int newSinceNotify;
    private int solicitedSinceNotify;
    private int errorStatus = NtStatus.STATUS_SUCCESS;
    private boolean errorReported;
    private int moderationInterval;
    private int moderationCount;
    private int moderationAccumulated;
    private boolean notificationOwed;
    private ScheduledFuture<?> moderationTimer;

    // ---- delivery (any thread) ----------------------------------------------------------------
    /** {@link #deliver} as the task an engine thread runs for {@code notify=inline}. */
    private final EngineThread.Task deliverTask = this::deliver;
    /** A successful notification as the dispatcher's callback: one object for the CQ's life, none per notification. */
    private final Runnable deliverSuccess = () -> deliver(NtStatus.STATUS_SUCCESS);
    /** Deliveries owed; whoever raises it from 0 runs them all, so callbacks of this CQ never overlap. */
    private final AtomicInteger deliveries = new AtomicInteger();
    /** A non-success CQ status owed to the next delivery (overrun, fatal error). */
    private volatile int owedStatus;

    CqNotifier(SoftCq cq, CompletionRing ring, CqNotificationCallback cb, Object ctx) {
        this.cq = cq;
        this.ring = ring;
        this.callback = cb;
        this.callbackContext = ctx;
    }

    /** Whether the CQ is in error (overrun): nothing more is queued. */
    boolean inError() {
        return errorStatus != NtStatus.STATUS_SUCCESS;
    }

    /** The ring overflowed: the CQ is in error; an armed CQ is told at once ({@code STATUS_BUFFER_OVERFLOW}). */
    void overrun() {
        errorStatus = NtStatus.STATUS_BUFFER_OVERFLOW;
        if (!errorReported && armed != NOT_ARMED) {
            errorReported = true;
            armed = NOT_ARMED;
            scheduleNotify(errorStatus);
        }
    }

    /** An entry was queued; {@code solicited}: it matches a SOLICITED arm (a solicited Send, or any failure). */
    void queued(boolean solicited) {
        newSinceNotify++;
        if (solicited) {
            solicitedSinceNotify++;
        }
        boolean fire = armed == NdkCqNotifyType.ANY || (armed == NdkCqNotifyType.SOLICITED && solicited);
        if (fire || notificationOwed) {
            if (fire) {
                armed = NOT_ARMED;
                notificationOwed = true;
            }
            moderate();
        }
    }

    /** {@code NdkArmCq}: the stronger of the old and new arm; fires at once for entries that already match. */
    void arm(int type) {
        if (inError()) {
            if (!errorReported) {
                errorReported = true;
                armed = NOT_ARMED;
                scheduleNotify(errorStatus);
            }
            return;
        }
        armed = stronger(armed, type);
        if (ring.count() > 0 && ((armed == NdkCqNotifyType.ANY && newSinceNotify > 0)
                || (armed == NdkCqNotifyType.SOLICITED && solicitedSinceNotify > 0))) {
            armed = NOT_ARMED;
            fireOwed();
        }
    }

    /** ANY beats SOLICITED beats ERRORS. */
    static int stronger(int a, int b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(int t) {
        return switch (t) {
            case NdkCqNotifyType.ANY -> 3;
            case NdkCqNotifyType.SOLICITED -> 2;
            case NdkCqNotifyType.ERRORS -> 1;
            default -> 0;
        };
    }

    /** {@code NdkControlCqInterruptModeration}; returns its status. */
    int moderation(int interval, int count) {
        if (interval == -1 && (count == -1 || Integer.compareUnsigned(count, ring.depth()) > 0)) {
            return NtStatus.STATUS_INVALID_PARAMETER_MIX;
        }
        moderationInterval = interval;
        moderationCount = count;
        if (notificationOwed) {
            // the newest settings win: re-evaluate a notification held by the previous settings
            cancelTimer();
            moderationAccumulated = Math.max(0, moderationAccumulated - 1);
            moderate();
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** The CQ closes: no arm, no timer. */
    void close() {
        armed = NOT_ARMED;
        cancelTimer();
    }

    /** Fires an owed notification now, or after moderation. */
    private void moderate() {
        // ModerationCount is a ULONG: MAXULONG (-1 here) means "only the interval governs"
        boolean moderated = moderationInterval != 0 && Integer.compareUnsigned(moderationCount, 1) > 0;
        if (!moderated) {
            fireOwed();
            return;
        }
        moderationAccumulated++;
        boolean countRules = moderationCount != -1 && Integer.compareUnsigned(moderationCount, ring.depth()) <= 0;
        if (countRules && moderationAccumulated >= moderationCount) {
            fireOwed();
            return;
        }
        if (moderationTimer == null && moderationInterval != -1) {
            moderationTimer = cq.adapter.dispatcher().schedule(() -> {
                synchronized (cq) {
                    moderationTimer = null;
                    if (notificationOwed) {
                        fireOwed();
                    }
                }
            }, Integer.toUnsignedLong(moderationInterval), TimeUnit.MICROSECONDS);
        }
    }

    private void fireOwed() {
        notificationOwed = false;
        moderationAccumulated = 0;
        newSinceNotify = 0;
        solicitedSinceNotify = 0;
        cancelTimer();
        scheduleNotify(NtStatus.STATUS_SUCCESS);
    }

    private void cancelTimer() {
        if (moderationTimer != null) {
            cq.adapter.dispatcher().cancel(moderationTimer);
            moderationTimer = null;
        }
    }

    /**
     * A notification is due. It is delivered after the CQ's monitor is released: on the engine thread that completed
     * the request when the adapter delivers inline ({@code notify=inline}) and this is an engine thread, else on the
     * adapter's dispatcher.
     */
    private void scheduleNotify(int cqStatus) {
        if (callback == null) {
            return;
        }
        if (cq.adapter.inlineNotify() && EngineThread.defer(deliverTask, cqStatus)) {
            return;
        }
        cq.adapter.dispatcher().run(cqStatus == NtStatus.STATUS_SUCCESS ? deliverSuccess : () -> deliver(cqStatus));
    }

    /** Calls the notification callback, serialized per CQ whichever thread delivers (NDKPI.md 7.4). */
    private void deliver(int cqStatus) {
        if (cqStatus != NtStatus.STATUS_SUCCESS) {
            owedStatus = cqStatus;
        }
        if (deliveries.getAndIncrement() != 0) {
            return; // the thread delivering now runs this one after its own
        }
        do {
            int st = owedStatus;
            if (st != 0) {
                owedStatus = 0;
            } else {
                st = NtStatus.STATUS_SUCCESS;
            }
            if (cq.life() == SoftObject.Life.OPEN && cq.enterCallback()) {
                try {
                    callback.onNotification(callbackContext, st);
                } catch (RuntimeException | Error e) {
                    LOG.log(Level.WARNING, "consumer CQ notification callback threw; the provider continues", e);
                } finally {
                    cq.exitCallback();
                }
            }
        } while (deliveries.decrementAndGet() != 0);
    }
}
