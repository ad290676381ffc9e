package io.jndk.provider;

import io.jndk.api.NtStatus;
import io.jndk.api.RequestCompletion;

/**
 * A connector's pending request (Connect, Accept): parked when it returns {@code STATUS_PENDING}, completed once
 * through the adapter's dispatcher. While one is parked or its completion runs, the connector's close waits
 * ({@link #none()}).
 */
final class PendingRequest {
    private final SoftObject owner;
    private RequestCompletion rc;
    private Object ctx;
    /** A request is parked and not yet taken for completion. */
    private boolean parked;
    /** Parked or being delivered; written under this, read without it by the owner's close check. */
    private volatile int count;

    PendingRequest(SoftObject owner) {
        this.owner = owner;
    }

    /** Parks a request; returns STATUS_PENDING. */
    synchronized int park(RequestCompletion completion, Object context) {
        rc = completion;
        ctx = context;
        parked = true;
        count++;
        return NtStatus.STATUS_PENDING;
    }

    /** Forgets the parked request without completing it (its outcome is returned inline instead). */
    void unpark() {
        synchronized (this) {
            if (!parked) {
                return;
            }
            parked = false;
            rc = null;
            ctx = null;
            count--;
        }
        owner.recheckClose();
    }

    /** Completes the parked request (if any) with {@code status}, through the dispatcher. */
    void complete(int status) {
        RequestCompletion c;
        Object x;
        synchronized (this) {
            if (!parked) {
                return;
            }
            parked = false;
            c = rc;
            x = ctx;
            rc = null;
            ctx = null;
        }
        owner.adapter.dispatcher().run(() -> {
            try {
                if (c != null) {
                    c.onCompleted(x, status);
                }
            } finally {
                synchronized (this) {
                    count--;
                }
                owner.recheckClose();
            }
        });
    }

    /** No request is parked or being delivered (safe to read under any lock). */
    boolean none() {
        return count == 0;
    }
}
