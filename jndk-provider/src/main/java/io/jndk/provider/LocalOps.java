package io.jndk.provider;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NtStatus;
import io.jndk.provider.events.RegistrationEvent;
import io.jndk.provider.spi.Term;

/**
 * The local initiator operations (bind, fast-register, invalidate), executed in queue order by whichever
 * engine runs the QP. Each returns {@code STATUS_SUCCESS} or the completion status of the failure.
 */
final class LocalOps {
    private LocalOps() {}

    static int bind(SoftQp qp, WorkRequest w) {
        SoftMr mr = w.mr;
        SoftMw mw = w.mw;
        TokenTable.Binding mb = mr.entry.binding;
        if (mb == null || !mw.isOpen()) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        long off = w.va - mb.baseVa();
        if (off < 0 || off >= mb.length() || w.length > mb.length() - off) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        int rights = (NdkOpFlags.remoteRead(w.flags) ? TokenTable.RIGHT_REMOTE_READ : 0)
                | (NdkOpFlags.remoteWrite(w.flags) ? TokenTable.RIGHT_REMOTE_WRITE : 0);
        mw.bindTo(mr, new TokenTable.Binding(w.newKey, w.va, w.length, rights, Region.slice(mb.region(), off, w.length)));
        qp.adapter.count(NdkCounter.BINDS);
        return NtStatus.STATUS_SUCCESS;
    }

    static int fastRegister(SoftQp qp, WorkRequest w) {
        SoftMr mr = w.mr;
        if (mr.entry.binding != null || !mr.isOpen()) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        PageMap.Page[] pages = new PageMap.Page[w.pages.length];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = qp.adapter.pageMap().page(w.pages[i]);
            if (pages[i] == null) {
                return NtStatus.STATUS_ACCESS_VIOLATION;
            }
        }
        int rights = (NdkOpFlags.localWrite(w.flags) ? TokenTable.RIGHT_LOCAL_WRITE : 0)
                | (NdkOpFlags.remoteRead(w.flags) ? TokenTable.RIGHT_REMOTE_READ : 0)
                | (NdkOpFlags.remoteWrite(w.flags) ? TokenTable.RIGHT_REMOTE_WRITE : 0)
                | ((w.flags & NdkOpFlags.RDMA_READ_SINK) != 0 ? TokenTable.RIGHT_READ_SINK : 0);
        mr.entry.binding = new TokenTable.Binding(w.newKey, w.va, w.length, rights, PageMap.region(pages, w.fbo, w.length));
        qp.adapter.count(NdkCounter.FAST_REGISTERS);
        RegistrationEvent.emit(RegistrationEvent.FAST_REGISTER, w.length, mr.getRemoteToken());
        return NtStatus.STATUS_SUCCESS;
    }

    static int invalidate(SoftQp qp, WorkRequest w) {
        int token = 0;
        if (w.target instanceof SoftMw mw) {
            if (mw.entry.binding == null) {
                return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
            }
            token = mw.getRemoteToken();
            mw.unbind();
        } else if (w.target instanceof SoftMr mr) {
            if (mr.entry.binding == null) {
                return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
            }
            token = mr.getRemoteToken();
            mr.entry.binding = null;
        }
        invalidated(qp, token);
        return NtStatus.STATUS_SUCCESS;
    }

    /**
     * Remote invalidation by an incoming send-and-invalidate: only fast-registered MRs and windows of the
     * receiving QP's PD qualify. Returns 0 or the Terminate code to answer with.
     */
    static int remoteInvalidate(SoftQp qp, int token) {
        TokenTable.Entry e = qp.adapter.tokens().lookup(token);
        TokenTable.Binding bnd = e == null ? null : e.binding;
        if (e == null || e.pd != qp.pd || (e.kind != TokenTable.KIND_FRMR && e.kind != TokenTable.KIND_MW) || bnd == null
                || bnd.key() != (token & 0xFF)) {
            return Term.RDMAP_INVALID_STAG;
        }
        if (e.kind == TokenTable.KIND_MW) {
            ((SoftMw) e.owner).unbind();
        } else {
            e.binding = null;
        }
        invalidated(qp, token);
        return 0;
    }

    /** Read with local invalidate: invalidates a fast-registered first sink token (other tokens are left alone). */
    static void readLocalInvalidate(SoftQp qp, WorkRequest w) {
        if ((w.flags & NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE) != 0 && qp.readLocalInvalidate() && w.nSge > 0) {
            TokenTable.Entry e = qp.adapter.tokens().lookup(w.token[0]);
            if (e != null && e.pd == qp.pd && e.kind == TokenTable.KIND_FRMR) {
                e.binding = null;
                invalidated(qp, w.token[0]);
            }
        }
    }

    /** Counts an invalidation and records its {@link RegistrationEvent}. */
    private static void invalidated(SoftQp qp, int token) {
        qp.adapter.count(NdkCounter.INVALIDATIONS);
        RegistrationEvent.emit(RegistrationEvent.INVALIDATE, -1, token);
    }

    static int ddpTagged(int r) {
        return switch (r) {
            case TokenTable.BASE_BOUNDS -> Term.DDP_TAGGED_BASE_BOUNDS;
            case TokenTable.NOT_ASSOCIATED -> Term.DDP_TAGGED_NOT_ASSOCIATED;
            default -> Term.DDP_TAGGED_INVALID_STAG; // siw reports access-right violations as invalid STag
        };
    }

    static int rdmapProtection(int r) {
        return switch (r) {
            case TokenTable.BASE_BOUNDS -> Term.RDMAP_BASE_BOUNDS;
            case TokenTable.ACCESS -> Term.RDMAP_ACCESS_RIGHTS;
            case TokenTable.NOT_ASSOCIATED -> Term.RDMAP_STAG_NOT_ASSOCIATED;
            default -> Term.RDMAP_INVALID_STAG;
        };
    }
}
