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
