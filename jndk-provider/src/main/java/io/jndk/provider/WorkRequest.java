package io.jndk.provider;

import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.lang.foreign.MemorySegment;

/** A preallocated slot of an initiator or receive queue; reused, never allocated per request. */
final class WorkRequest {
    /**
     * What a slot holds. Send-and-invalidate is a kind of its own (it completes as a Send, and the peer
     * invalidates {@link #remoteToken}); {@link #resultType} is the {@code NdkOperationType} its completion reports.
     */
    enum Op {
        SEND(NdkOperationType.SEND),
        SEND_INVALIDATE(NdkOperationType.SEND),
        WRITE(NdkOperationType.WRITE),
        READ(NdkOperationType.READ),
        BIND(NdkOperationType.BIND),
        FAST_REGISTER(NdkOperationType.FAST_REGISTER),
        INVALIDATE(NdkOperationType.INVALIDATE),
        RECEIVE(NdkOperationType.RECEIVE);

        /** The {@code NdkOperationType} of this request's completion. */
        final int resultType;

        Op(int resultType) {
            this.resultType = resultType;
        }

        /** Whether the provider executes it in queue order without the transport (bind, fast-register, invalidate). */
        boolean local() {
            return this == BIND || this == FAST_REGISTER || this == INVALIDATE;
        }
    }

    /**
     * Where an initiator request is (siw's {@code siw_wr_state}): posted and not yet taken by the transport, taken
     * (on the wire or executing), or finished and waiting to complete in posting order behind older requests.
     */
    enum State { QUEUED, STARTED, FINISHED }

    /** The request, or null for a free slot. */
    Op op;
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
    /** Initiator requests: see {@link State}; the outcome of a finished one waits here for its turn to complete. */
    State state = State.QUEUED;
    int finishedStatus;
    int finishedBytes;
    int finishedProviderError;
    /** This slot's checked SGE cursor (created on first use). */
    CheckedCursor.Sgl cursor;

    WorkRequest(int maxSge, int inlineSize) {
        int n = Math.max(1, maxSge);
        addr = new long[n];
        len = new int[n];
        token = new int[n];
        inline = inlineSize > 0 ? MemorySegment.ofArray(new byte[inlineSize]) : null;
    }

    /**
     * Post-time checks of a receive's SGE list: more SGEs than the queue takes → DATA_OVERRUN (nSge is a ULONG: 2^31 and
     * above are counts that large), a malformed list → INVALID_PARAMETER, more bytes than MaxTransferLength →
     * BUFFER_OVERFLOW; else SUCCESS.
     */
    static int checkReceive(NdkSge[] sgl, int nSge, int maxSge, int maxTransferLength) {
        if (Integer.compareUnsigned(nSge, maxSge) > 0) {
            return NtStatus.STATUS_DATA_OVERRUN;
        }
        if (nSge > 0 && (sgl == null || sgl.length < nSge)) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        long total = 0;
        for (int i = 0; i < nSge; i++) {
            if (sgl[i] == null) {
                return NtStatus.STATUS_INVALID_PARAMETER;
            }
            total += Integer.toUnsignedLong(sgl[i].length);
        }
        return total > Integer.toUnsignedLong(maxTransferLength) ? NtStatus.STATUS_BUFFER_OVERFLOW
                : NtStatus.STATUS_SUCCESS;
    }

    /**
     * Post-time checks and copy of an initiator request's SGE list (or, with {@code INLINE}, of the bytes it names:
     * the caller's buffers may be reused at once). More SGEs than {@code maxSge} is DATA_OVERRUN (nSge is a ULONG:
     * 2^31 and above are counts that large; inline SGEs are not limited by it), a malformed list or inline data
     * beyond {@code inlineSize} INVALID_PARAMETER, more bytes than {@code maxTransferLength} BUFFER_OVERFLOW; else
     * SUCCESS.
     */
    int setSgl(NdkSge[] sgl, int nSge, int maxSge, int flags, int inlineSize, int maxTransferLength) {
        boolean inlineData = (flags & NdkOpFlags.INLINE) != 0;
        if (!inlineData && Integer.compareUnsigned(nSge, maxSge) > 0) {
            return NtStatus.STATUS_DATA_OVERRUN;
        }
        if (nSge != 0 && (sgl == null || Integer.toUnsignedLong(sgl.length) < Integer.toUnsignedLong(nSge))) {
            return NtStatus.STATUS_INVALID_PARAMETER; // an inline list of 2^31 SGEs or more cannot fit InlineDataSize either
        }
        long total = 0;
        if (inlineData) {
            for (int i = 0; i < nSge; i++) {
                NdkSge s = sgl[i];
                if (s == null) {
                    return NtStatus.STATUS_INVALID_PARAMETER;
                }
                total += Integer.toUnsignedLong(s.length);
            }
            if (total > inlineSize) {
                return NtStatus.STATUS_INVALID_PARAMETER;
            }
            int pos = 0;
            for (int i = 0; i < nSge; i++) {
                NdkSge s = sgl[i];
                if (s.length == 0) {
                    continue;
                }
                if (s.inlineSource == null || s.inlineSource.byteSize() < Integer.toUnsignedLong(s.length)) {
                    return NtStatus.STATUS_INVALID_PARAMETER;
                }
                MemorySegment.copy(s.inlineSource, 0, inline, pos, s.length);
                pos += s.length;
            }
            inlineLen = pos;
            this.nSge = 0;
            return NtStatus.STATUS_SUCCESS;
        }
        for (int i = 0; i < nSge; i++) {
            NdkSge s = sgl[i];
            if (s == null) {
                return NtStatus.STATUS_INVALID_PARAMETER;
            }
            addr[i] = s.address;
            len[i] = s.length;
            token[i] = s.token;
            total += Integer.toUnsignedLong(s.length);
        }
        if (total > Integer.toUnsignedLong(maxTransferLength)) {
            return NtStatus.STATUS_BUFFER_OVERFLOW;
        }
        this.nSge = nSge;
        inlineLen = 0;
        return NtStatus.STATUS_SUCCESS;
    }

    /** Copies a receive's context and SGE list into this slot (the caller's array may be reused at once). */
    void setReceive(Object ctx, NdkSge[] sgl, int nSge) {
        context = ctx;
        this.nSge = nSge;
        for (int i = 0; i < nSge; i++) {
            addr[i] = sgl[i].address;
            len[i] = sgl[i].length;
            token[i] = sgl[i].token;
        }
    }

    boolean isInline() {
        return (flags & NdkOpFlags.INLINE) != 0;
    }

    /** Frees the slot for reuse (state, kind and references). */
    void free() {
        state = State.QUEUED;
        op = null;
        clearRefs();
    }

    void clearRefs() {
        context = null;
        mr = null;
        mw = null;
        target = null;
        pages = null;
    }
}
