package io.jndk.provider;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkResult;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.RequestCompletion;
import io.jndk.provider.spi.WireConnection;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A completion queue: a ring of preallocated entries (parallel arrays, no allocation per completion), the
 * arm state, notification through the adapter's dispatcher, overrun detection and interrupt moderation.
 */
final class SoftCq extends SoftObject implements NdkCq {
    private static final int NOT_ARMED = -1;
    private final CqNotificationCallback callback;
    private final Object callbackContext;
    private int depth;
    private int[] status;
    private int[] bytes;
    private Object[] qpCtx;
    private Object[] reqCtx;
    private int[] type;
    private int[] perr;
    private long[] tso;
    private int head;
    private int count;
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
    /** {@link #deliver} as the task an engine thread runs for {@code notify=inline}. */
    private final io.jndk.provider.spi.EngineThread.Task deliverTask = this::deliver;
    /** Deliveries owed; whoever raises it from 0 runs them all, so callbacks of this CQ never overlap. */
    private final java.util.concurrent.atomic.AtomicInteger deliveries = new java.util.concurrent.atomic.AtomicInteger();
    /** A non-success CQ status owed to the next delivery (overrun, fatal error). */
    private volatile int owedStatus;
    private static final WireConnection[] NO_POLLERS = {};
    /** Connections whose receive side a poll of this CQ drives (polling engine mode); copy on write. */
    private volatile WireConnection[] pollers = NO_POLLERS;
    /** Guards changes of {@link #pollers} (not the CQ's monitor: a poll never waits for completions to queue). */
    private final Object pollersLock = new Object();
    /** Where the next poll starts among {@link #pollers} (racy by design: any start is fair enough). */
    private int pollCursor;
    /** Connections one poll drives at most, round-robin across polls. */
    static final int POLLERS_PER_POLL = 4;

    SoftCq(SoftAdapter adapter, int depth, CqNotificationCallback cb, Object ctx) {
        super(adapter, NdkObjectType.CQ);
        this.callback = cb;
        this.callbackContext = ctx;
        allocate(depth);
    }

    private void allocate(int d) {
        depth = d;
        status = new int[d];
        bytes = new int[d];
        qpCtx = new Object[d];
        reqCtx = new Object[d];
        type = new int[d];
        perr = new int[d];
        tso = new long[d];
        head = 0;
    }

    /**
     * Queues a completion. Returns false on overrun (the CQ is then in error and reports
     * {@code STATUS_BUFFER_OVERFLOW}); the caller's QP must go to error.
     */
    boolean push(int st, int n, Object qc, Object rc, int t, int pe, long out, boolean solicited) {
        boolean fire;
        int fireStatus;
        synchronized (this) {
            if (errorStatus != NtStatus.STATUS_SUCCESS) {
                return false;
            }
            if (count == depth) {
                errorStatus = NtStatus.STATUS_BUFFER_OVERFLOW;
                fire = !errorReported && armed != NOT_ARMED;
                if (fire) {
                    errorReported = true;
                    armed = NOT_ARMED;
                }
                fireStatus = errorStatus;
                if (fire) {
                    scheduleNotify(fireStatus);
                }
                return false;
            }
            int i = (head + count) % depth;
            status[i] = st;
            bytes[i] = n;
            qpCtx[i] = qc;
            reqCtx[i] = rc;
            type[i] = t;
            perr[i] = st == NtStatus.STATUS_SUCCESS ? 0 : pe;
            tso[i] = out;
            count++;
            newSinceNotify++;
            boolean matchesSolicited = solicited || st != NtStatus.STATUS_SUCCESS;
            if (matchesSolicited) {
                solicitedSinceNotify++;
            }
            fire = armed == NdkCqNotifyType.ANY || (armed == NdkCqNotifyType.SOLICITED && matchesSolicited);
            if (fire || notificationOwed) {
                if (fire) {
                    armed = NOT_ARMED;
                    notificationOwed = true;
                }
                moderate();
            }
        }
        adapter.count(NdkCounter.COMPLETIONS);
        return true;
    }

    /** Under the lock: fires an owed notification now, or after moderation. */
    private void moderate() {
        // ModerationCount is a ULONG: MAXULONG (-1 here) means "only the interval governs"
        boolean moderated = moderationInterval != 0 && Integer.compareUnsigned(moderationCount, 1) > 0;
        if (!moderated) {
            fireOwed();
            return;
        }
        moderationAccumulated++;
        boolean countRules = moderationCount != -1 && Integer.compareUnsigned(moderationCount, depth) <= 0;
        if (countRules && moderationAccumulated >= moderationCount) {
            fireOwed();
            return;
        }
        if (moderationTimer == null && moderationInterval != -1) {
            moderationTimer = adapter.dispatcher().schedule(() -> {
                synchronized (this) {
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
        if (moderationTimer != null) {
            adapter.dispatcher().cancel(moderationTimer);
            moderationTimer = null;
        }
        scheduleNotify(NtStatus.STATUS_SUCCESS);
    }

    /**
     * Under the lock: a notification is due. It is delivered after the lock is released: on the engine thread that
     * completed the request when the adapter delivers inline ({@code notify=inline}) and this is an engine thread,
     * else on the adapter's dispatcher.
     */
    private void scheduleNotify(int cqStatus) {
        if (callback == null) {
            return;
        }
        if (adapter.inlineNotify() && io.jndk.provider.spi.EngineThread.defer(deliverTask, cqStatus)) {
            return;
        }
        adapter.dispatcher().run(() -> deliver(cqStatus));
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
            if (life() == Life.OPEN && enterCallback()) {
                try {
                    callback.onNotification(callbackContext, st);
                } catch (RuntimeException | Error e) {
                    java.util.logging.Logger.getLogger(SoftCq.class.getName()).log(java.util.logging.Level.WARNING,
                        "consumer CQ notification callback threw; the provider continues", e);
                } finally {
                    exitCallback();
                }
            }
        } while (deliveries.decrementAndGet() != 0);
    }

    @Override
    public void armCq(int t) {
        if (t != NdkCqNotifyType.ERRORS && t != NdkCqNotifyType.ANY && t != NdkCqNotifyType.SOLICITED) {
            return;
        }
        for (WireConnection c : pollers) {
            c.consumerArmed();
        }
        synchronized (this) {
            if (errorStatus != NtStatus.STATUS_SUCCESS) {
                if (!errorReported) {
                    errorReported = true;
                    armed = NOT_ARMED;
                    scheduleNotify(errorStatus);
                }
                return;
            }
            armed = stronger(armed, t);
            if (count > 0 && ((armed == NdkCqNotifyType.ANY && newSinceNotify > 0)
                    || (armed == NdkCqNotifyType.SOLICITED && solicitedSinceNotify > 0))) {
                armed = NOT_ARMED;
                fireOwed();
            }
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

    @Override
    public int getCqResults(NdkResult[] results, int n) {
        return take(results, n, false);
    }

    @Override
    public int getCqResultsEx(NdkResultEx[] results, int n) {
        return take(results, n, true);
    }

    private int take(NdkResult[] results, int n, boolean ex) {
        if (results == null || n <= 0) {
            return 0;
        }
        WireConnection[] p = pollers;
        if (p.length > 0) {
            progress(p);
        }
        synchronized (this) {
            int k = Math.min(Math.min(n, results.length), count);
            for (int j = 0; j < k; j++) {
                int i = head;
                NdkResult r = results[j];
                r.status = status[i];
                r.bytesTransferred = bytes[i];
                r.qpContext = qpCtx[i];
                r.requestContext = reqCtx[i];
                if (r instanceof NdkResultEx x) {
                    x.type = type[i];
                    x.providerErrorCode = perr[i];
                    x.typeSpecificCompletionOutput = tso[i];
                }
                qpCtx[i] = null;
                reqCtx[i] = null;
                head = (head + 1) % depth;
                count--;
            }
            return k;
        }
    }

    /**
     * Consumer-driven receive (polling engine mode): before results are taken, up to {@link #POLLERS_PER_POLL}
     * connections of this CQ's QPs read and place what has arrived, on the polling thread. Outside every lock.
     */
    private void progress(WireConnection[] p) {
        int start = pollCursor;
        int k = Math.min(p.length, POLLERS_PER_POLL);
        for (int j = 0; j < k; j++) {
            WireConnection c = p[(start + j) % p.length];
            if (c.progress() == WireConnection.PROGRESS_CLOSED) {
                removePoller(c);
            }
        }
        pollCursor = (start + k) % p.length;
    }

    /** Polls of this CQ drive {@code c}'s receive side from now on (a QP using this CQ joined it). */
    void addPoller(WireConnection c) {
        synchronized (pollersLock) {
            WireConnection[] p = pollers;
            for (WireConnection x : p) {
                if (x == c) {
                    return;
                }
            }
            WireConnection[] q = java.util.Arrays.copyOf(p, p.length + 1);
            q[p.length] = c;
            pollers = q;
        }
    }

    /** {@code c} no longer carries data (down, closed): polls forget it. */
    void removePoller(WireConnection c) {
        synchronized (pollersLock) {
            WireConnection[] p = pollers;
            for (int i = 0; i < p.length; i++) {
                if (p[i] == c) {
                    WireConnection[] q = new WireConnection[p.length - 1];
                    System.arraycopy(p, 0, q, 0, i);
                    System.arraycopy(p, i + 1, q, i, p.length - i - 1);
                    pollers = q;
                    return;
                }
            }
        }
    }

    @Override
    public int resizeCq(int newDepth, RequestCompletion rc, Object ctx) {
        if (!adapter.infoInternal().hasFlag(NdkAdapterFlags.CQ_RESIZE_SUPPORTED)) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        if (newDepth == 0 || Integer.compareUnsigned(newDepth, adapter.infoInternal().maxCqDepth()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        synchronized (this) {
            if (newDepth < count) {
                return NtStatus.STATUS_BUFFER_OVERFLOW;
            }
            int[] s = status, b = bytes, t = type, p = perr;
            Object[] q = qpCtx, r = reqCtx;
            long[] o = tso;
            int h = head, oldDepth = depth;
            allocate(newDepth);
            for (int j = 0; j < count; j++) {
                int i = (h + j) % oldDepth;
                status[j] = s[i];
                bytes[j] = b[i];
                type[j] = t[i];
                perr[j] = p[i];
                qpCtx[j] = q[i];
                reqCtx[j] = r[i];
                tso[j] = o[i];
            }
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    @Override
    public int controlCqInterruptModeration(int interval, int cnt) {
        if (!adapter.infoInternal().hasFlag(NdkAdapterFlags.CQ_INTERRUPT_MODERATION_SUPPORTED)) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        synchronized (this) {
            if (interval == -1 && (cnt == -1 || Integer.compareUnsigned(cnt, depth) > 0)) {
                return NtStatus.STATUS_INVALID_PARAMETER_MIX;
            }
            moderationInterval = interval;
            moderationCount = cnt;
            if (notificationOwed) {
                // the newest settings win: re-evaluate a notification held by the previous settings
                if (moderationTimer != null) {
                    adapter.dispatcher().cancel(moderationTimer);
                    moderationTimer = null;
                }
                moderationAccumulated = Math.max(0, moderationAccumulated - 1);
                moderate();
            }
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** Entries currently queued (diagnostics and tests). */
    synchronized int queued() {
        return count;
    }

    synchronized int depth() {
        return depth;
    }

    @Override
    void onClose() {
        synchronized (this) {
            armed = NOT_ARMED;
            if (moderationTimer != null) {
                adapter.dispatcher().cancel(moderationTimer);
                moderationTimer = null;
            }
        }
    }
}
