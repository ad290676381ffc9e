package io.jndk.provider;

import io.jndk.api.CreateCompletion;
import io.jndk.api.GroupAffinity;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.SrqNotificationCallback;

/** A protection domain: scopes MRs, MWs, SRQs and QPs and owns the privileged token. */
final class SoftPd extends SoftObject implements NdkPd {
    private final TokenTable.Entry privileged;

    SoftPd(SoftAdapter adapter) {
        super(adapter, NdkObjectType.PD);
        this.privileged = adapter.tokens().allocate(TokenTable.KIND_PRIVILEGED, this, this);
    }

    boolean hasPrivilegedToken() {
        return privileged != null;
    }

    @Override
    public int getPrivilegedMemoryRegionToken() {
        return privileged.token(privileged.issuedKey);
    }

    @Override
    public int createMr(boolean fastRegister, CreateCompletion cc, Object ctx, Ref<NdkMr> out) {
        if (!isOpen() || !adapter.reserve(NdkObjectType.MR)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        TokenTable.Entry e = adapter.tokens().allocate(fastRegister ? TokenTable.KIND_FRMR : TokenTable.KIND_MR, this, null);
        if (e == null) {
            adapter.unreserve(NdkObjectType.MR);
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftMr mr = new SoftMr(this, fastRegister, e);
        e.owner = mr;
        addSuccessor(mr);
        return adapter.completeCreate(mr, cc, ctx, out);
    }

    @Override
    public int createMw(CreateCompletion cc, Object ctx, Ref<NdkMw> out) {
        if (!isOpen() || !adapter.reserve(NdkObjectType.MW)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        TokenTable.Entry e = adapter.tokens().allocate(TokenTable.KIND_MW, this, null);
        if (e == null) {
            adapter.unreserve(NdkObjectType.MW);
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftMw mw = new SoftMw(this, e);
        e.owner = mw;
        addSuccessor(mw);
        return adapter.completeCreate(mw, cc, ctx, out);
    }

    @Override
    public int createSrq(int depth, int maxSge, int threshold, SrqNotificationCallback cb, Object cbCtx,
            GroupAffinity affinity, CreateCompletion cc, Object ctx, Ref<NdkSrq> out) {
        var info = adapter.infoInternal();
        if (info.maxSrqDepth() == 0) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        if (depth == 0 || Integer.compareUnsigned(depth, info.maxSrqDepth()) > 0
                || Integer.compareUnsigned(maxSge, info.maxReceiveRequestSge()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!isOpen() || !adapter.reserve(NdkObjectType.SRQ)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftSrq srq = new SoftSrq(this, depth, maxSge, threshold, cb, cbCtx);
        addSuccessor(srq);
        return adapter.completeCreate(srq, cc, ctx, out);
    }

    @Override
    public int createQp(NdkCq rcq, NdkCq icq, Object qpContext, int rqDepth, int iqDepth, int maxRecvSge, int maxInitSge,
            int inlineSize, CreateCompletion cc, Object ctx, Ref<NdkQp> out) {
        var info = adapter.infoInternal();
        if (Integer.compareUnsigned(rqDepth, info.maxReceiveQueueDepth()) > 0
                || Integer.compareUnsigned(iqDepth, info.maxInitiatorQueueDepth()) > 0
                || Integer.compareUnsigned(maxRecvSge, info.maxReceiveRequestSge()) > 0
                || Integer.compareUnsigned(maxInitSge, info.maxInitiatorRequestSge()) > 0
                || Integer.compareUnsigned(inlineSize, info.maxInlineDataSize()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        return newQp(rcq, icq, null, qpContext, rqDepth, iqDepth, maxRecvSge, maxInitSge, inlineSize, cc, ctx, out);
    }

    @Override
    public int createQpWithSrq(NdkCq rcq, NdkCq icq, NdkSrq srq, Object qpContext, int iqDepth, int maxInitSge,
            int inlineSize, CreateCompletion cc, Object ctx, Ref<NdkQp> out) {
        var info = adapter.infoInternal();
        if (Integer.compareUnsigned(iqDepth, info.maxInitiatorQueueDepth()) > 0
                || Integer.compareUnsigned(maxInitSge, info.maxInitiatorRequestSge()) > 0
                || Integer.compareUnsigned(inlineSize, info.maxInlineDataSize()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!(srq instanceof SoftSrq s) || s.pd != this) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        return newQp(rcq, icq, s, qpContext, 0, iqDepth, 0, maxInitSge, inlineSize, cc, ctx, out);
    }

    private int newQp(NdkCq rcq, NdkCq icq, SoftSrq srq, Object qpContext, int rqDepth, int iqDepth, int maxRecvSge,
            int maxInitSge, int inlineSize, CreateCompletion cc, Object ctx, Ref<NdkQp> out) {
        if (!(rcq instanceof SoftCq r) || !(icq instanceof SoftCq i) || r.adapter != adapter || i.adapter != adapter) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!isOpen() || !adapter.reserve(NdkObjectType.QP)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftQp qp = new SoftQp(this, r, i, srq, qpContext, rqDepth, iqDepth, maxRecvSge, maxInitSge, inlineSize);
        addSuccessor(qp);
        r.addSuccessor(qp);
        if (i != r) {
            i.addSuccessor(qp);
        }
        if (srq != null) {
            srq.addSuccessor(qp);
        }
        return adapter.completeCreate(qp, cc, ctx, out);
    }

    @Override
    void onClose() {}

    @Override
    void onClosed() {
        adapter.tokens().release(privileged);
    }
}
