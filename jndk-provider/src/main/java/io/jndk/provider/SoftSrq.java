package io.jndk.provider;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.api.RequestCompletion;
import io.jndk.api.SrqNotificationCallback;

/** A shared receive queue: a ring of receive slots consumed by any QP created with it, plus threshold notification. */
final class SoftSrq extends SoftObject implements NdkSrq {
    final SoftPd pd;
    private final int maxSge;
    private final SrqNotificationCallback callback;
    private final Object callbackContext;
    private Ring ring;
    private int threshold;
    private boolean armed;

    SoftSrq(SoftPd pd, int depth, int maxSge, int threshold, SrqNotificationCallback cb, Object ctx) {
        super(pd.adapter, NdkObjectType.SRQ);
        this.pd = pd;
        this.maxSge = maxSge;
        this.callback = cb;
        this.callbackContext = ctx;
        this.ring = new Ring(depth, maxSge, 0);
        this.threshold = threshold;
        this.armed = threshold != 0 && cb != null; // a ULONG: any non-zero threshold arms
    }

    @Override
    public int modifySrq(int depth, int notifyThreshold, RequestCompletion rc, Object ctx) {
        if (Integer.compareUnsigned(depth, adapter.infoInternal().maxSrqDepth()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        boolean fire = false;
        synchronized (this) {
            if (depth != 0) {
                if (depth < ring.size()) {
                    return NtStatus.STATUS_BUFFER_OVERFLOW;
                }
                Ring n = new Ring(depth, maxSge, 0);
                WorkRequest w;
                while ((w = ring.poll()) != null) {
                    SoftQp.copyRecv(w, n.tail());
                    n.commit();
                }
                ring = n;
            }
            if (notifyThreshold != 0) {
                threshold = notifyThreshold;
                armed = callback != null;
                if (armed && below()) {
                    armed = false;
                    fire = true;
                }
            }
        }
        if (fire) {
            notifyConsumer(NtStatus.STATUS_SUCCESS);
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    @Override
    public int srqReceive(Object ctx, NdkSge[] sgl, int nSge) {
        int s = WorkRequest.checkReceive(sgl, nSge, maxSge, adapter.infoInternal().maxTransferLength());
        if (s != NtStatus.STATUS_SUCCESS) {
            return s;
        }
        synchronized (this) {
            if (ring.full()) {
                return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
            }
            WorkRequest w = ring.tail();
            w.setReceive(ctx, sgl, nSge);
            ring.commit();
        }
        adapter.count(NdkCounter.WORK_REQUESTS);
        return NtStatus.STATUS_SUCCESS;
    }

    /** Takes the oldest receive; evaluates the threshold after the consumption. */
    boolean take(WorkRequest into) {
        boolean fire = false;
        synchronized (this) {
            WorkRequest w = ring.poll();
            if (w == null) {
                return false;
            }
            SoftQp.copyRecv(w, into);
            w.context = null;
            if (armed && below()) {
                armed = false;
                fire = true;
            }
        }
        if (fire) {
            notifyConsumer(NtStatus.STATUS_SUCCESS);
        }
        return true;
    }

    /** Under this: fewer receives queued than the threshold (a ULONG: 2^31 and above are large, not negative). */
    private boolean below() {
        return Integer.compareUnsigned(ring.size(), threshold) < 0;
    }

    synchronized int queued() {
        return ring.size();
    }

    private void notifyConsumer(int st) {
        if (callback == null) {
            return;
        }
        adapter.dispatcher().run(() -> {
            if (life() != Life.OPEN || !enterCallback()) {
                return;
            }
            try {
                callback.onNotification(callbackContext, st);
            } finally {
                exitCallback();
            }
        });
    }

    @Override
    void onClose() {
        synchronized (this) {
            armed = false;
        }
    }

    @Override
    void onClosed() {
        synchronized (this) {
            // receives still queued are discarded without completions (no QP or CQ to report them to)
            while (ring.poll() != null) {
                // drop
            }
        }
    }
}
