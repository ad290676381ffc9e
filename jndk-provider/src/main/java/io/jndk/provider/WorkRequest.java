package io.jndk.provider;

import java.lang.foreign.MemorySegment;

/** A preallocated slot of an initiator or receive queue; reused, never allocated per request. */
final class WorkRequest {
    int op;
    int flags;
    Object context;
    int nSge;
    final long[] addr;
    final int[] len;
    final int[] token;
    final MemorySegment inline;
    int inlineLen;
    long remoteAddress;
    int remoteToken;
    SoftMr mr;
    SoftMw mw;
    SoftObject target;
    long va;
    long length;
    long[] pages;
    int fbo;
    int newKey;
    /** Wire engines: 0 queued, 1 handed to the transport, 2 finished (waiting to complete in order). */
    int wireState;
    int wireStatus;
    int wireBytes;
    int wirePerr;
    /** Wire engines: this slot's checked SGE cursor (created on first use). */
    CheckedCursor.Sgl cursor;

    WorkRequest(int maxSge, int inlineSize) {
        int n = Math.max(1, maxSge);
        addr = new long[n];
        len = new int[n];
        token = new int[n];
        inline = inlineSize > 0 ? MemorySegment.ofArray(new byte[inlineSize]) : null;
    }

    /**
     * Post-time checks of a receive's SGE list: a malformed list → INVALID_PARAMETER, more SGEs than the queue takes
     * → DATA_OVERRUN, more bytes than MaxTransferLength → BUFFER_OVERFLOW; else SUCCESS.
     */
    static int checkReceive(io.jndk.api.NdkSge[] sgl, int nSge, int maxSge, int maxTransferLength) {
        if (nSge < 0 || (nSge > 0 && (sgl == null || sgl.length < nSge))) {
            return io.jndk.api.NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (nSge > maxSge) {
            return io.jndk.api.NtStatus.STATUS_DATA_OVERRUN;
        }
        long total = 0;
        for (int i = 0; i < nSge; i++) {
            if (sgl[i] == null) {
                return io.jndk.api.NtStatus.STATUS_INVALID_PARAMETER;
            }
            total += Integer.toUnsignedLong(sgl[i].length);
        }
        return total > Integer.toUnsignedLong(maxTransferLength) ? io.jndk.api.NtStatus.STATUS_BUFFER_OVERFLOW
                : io.jndk.api.NtStatus.STATUS_SUCCESS;
    }

    /** Copies a receive's context and SGE list into this slot (the caller's array may be reused at once). */
    void setReceive(Object ctx, io.jndk.api.NdkSge[] sgl, int nSge) {
        context = ctx;
        this.nSge = nSge;
        for (int i = 0; i < nSge; i++) {
            addr[i] = sgl[i].address;
            len[i] = sgl[i].length;
            token[i] = sgl[i].token;
        }
    }

    boolean isInline() {
        return (flags & io.jndk.api.NdkOpFlags.INLINE) != 0;
    }

    void clearRefs() {
        context = null;
        mr = null;
        mw = null;
        target = null;
        pages = null;
    }
}
