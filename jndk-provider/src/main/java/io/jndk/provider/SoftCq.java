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

/**
 * A completion queue, the {@code NDK_CQ} object: its entries ({@link CompletionRing}), its arm state, moderation and
 * callback delivery ({@link CqNotifier}), and, in a polling engine mode, the connections its polls drive
 * ({@link CqPollers}). The ring and the notifier are guarded by this object's monitor; the pollers have their own.
 */
final class SoftCq extends SoftObject implements NdkCq {
    private final CompletionRing ring;
    private final CqNotifier notifier;
    private final CqPollers pollers = new CqPollers();

    SoftCq(SoftAdapter adapter, int depth, CqNotificationCallback cb, Object ctx) {
        super(adapter, NdkObjectType.CQ);
        this.ring = new CompletionRing(depth);
        this.notifier = new CqNotifier(this, ring, cb, ctx);
    }

    /**
     * Queues a completion. Returns false on overrun (the CQ is then in error and reports
     * {@code STATUS_BUFFER_OVERFLOW}); the caller's QP must go to error.
     */
    boolean push(int st, int n, Object qc, Object rc, int t, int pe, long out, boolean solicited) {
        synchronized (this) {
            if (notifier.inError()) {
                return false;
            }
            if (!ring.push(st, n, qc, rc, t, pe, out)) {
                notifier.overrun();
                return false;
            }
            notifier.queued(solicited || st != NtStatus.STATUS_SUCCESS);
        }
        adapter.count(NdkCounter.COMPLETIONS);
        return true;
    }

    /** The connections polls of this CQ drive (polling engine mode). */
    CqPollers pollers() {
        return pollers;
    }

    @Override
    public void armCq(int t) {
        if (t != NdkCqNotifyType.ERRORS && t != NdkCqNotifyType.ANY && t != NdkCqNotifyType.SOLICITED) {
            return;
        }
        pollers.armed();
        synchronized (this) {
            notifier.arm(t);
        }
    }

    @Override
    public int getCqResults(NdkResult[] results, int n) {
        return take(results, n);
    }

    @Override
    public int getCqResultsEx(NdkResultEx[] results, int n) {
        return take(results, n);
    }

    private int take(NdkResult[] results, int n) {
        if (results == null || n == 0) {
            return 0;
        }
        int room = Integer.compareUnsigned(n, results.length) > 0 ? results.length : n; // nResults is a ULONG
        pollers.progress();
        synchronized (this) {
            return ring.take(results, room);
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
            if (!ring.resize(newDepth)) {
                return NtStatus.STATUS_BUFFER_OVERFLOW;
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
            return notifier.moderation(interval, cnt);
        }
    }

    /**
     * Whether entries wait to be polled, read without the monitor: a hint that may be stale by the time it is used
     * ({@link SoftQpPort#postedAlone}); a plain read of an int is never torn, and nothing relies on it beyond a
     * choice of path.
     */
    boolean holdsEntriesHint() {
        return ring.count() != 0;
    }

    /** Entries currently queued (diagnostics and tests). */
    synchronized int queued() {
        return ring.count();
    }

    synchronized int depth() {
        return ring.depth();
    }

    @Override
    void onClose() {
        synchronized (this) {
            notifier.close();
        }
    }
}
