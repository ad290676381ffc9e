package io.jndk.provider;

import io.jndk.api.NdkResult;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;

/**
 * The entries of a completion queue: a ring of preallocated parallel arrays, so that a completion allocates nothing.
 * It has no lock of its own: its CQ calls it under the CQ's monitor.
 */
final class CompletionRing {
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

    CompletionRing(int depth) {
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

    int depth() {
        return depth;
    }

    /** Entries queued. */
    int count() {
        return count;
    }

    /**
     * Queues one entry (a successful one carries no provider error code).
     *
     * @return false when the ring is full (nothing queued)
     */
    boolean push(int st, int n, Object qc, Object rc, int t, int pe, long out) {
        if (count == depth) {
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
        return true;
    }

    /** Moves up to {@code n} oldest entries into {@code results} (the extended fields too for {@link NdkResultEx}). */
    int take(NdkResult[] results, int n) {
        int k = Math.min(Math.min(n, results.length), count);
        for (int j = 0; j < k; j++) {
            int i = head;
            NdkResult r = results[j];
            if (r == null) {
                return j; // the caller's array ends at its first missing element: the entry stays queued
            }
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

    /**
     * Changes the depth, keeping the queued entries in order.
     *
     * @return false when more entries are queued than {@code newDepth} holds (nothing changes)
     */
    boolean resize(int newDepth) {
        if (newDepth < count) {
            return false;
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
        return true;
    }
}
