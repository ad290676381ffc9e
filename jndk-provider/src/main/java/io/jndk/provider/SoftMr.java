package io.jndk.provider;

import io.jndk.api.Mdl;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NtStatus;
import io.jndk.api.RequestCompletion;
import io.jndk.provider.events.RegistrationEvent;
import java.lang.foreign.MemorySegment;

/**
 * A memory region, normal or fast-register (fixed at creation). Its token-table entry carries the current
 * binding; the MR's remote token equals its local token (one STag per registration).
 */
final class SoftMr extends SoftObject implements NdkMr {
    final SoftPd pd;
    final boolean fastRegister;
    final TokenTable.Entry entry;
    private boolean registered;
    private long registeredLength;
    volatile boolean initialized;
    volatile int frPageCount;
    volatile boolean frRemoteAccess;
    /** Windows currently bound to this region. */
    int boundWindows;

    SoftMr(SoftPd pd, boolean fastRegister, TokenTable.Entry entry) {
        super(pd.adapter, NdkObjectType.MR);
        this.pd = pd;
        this.fastRegister = fastRegister;
        this.entry = entry;
    }

    @Override
    public int registerMr(Mdl mdl, long length, int flags, RequestCompletion rc, Object ctx) {
        if (fastRegister) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        if (mdl == null || (flags & ~NdkMrFlags.VALID_MASK) != 0 || length == 0 // Length is a SIZE_T
                || Long.compareUnsigned(length, mdl.byteCount()) > 0
                || Long.compareUnsigned(length, adapter.infoInternal().maxRegistrationSize()) > 0 || mdl.virtualAddress() == 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!mdl.isVirtuallyContiguous(length)) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        synchronized (this) {
            if (registered) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            if (!adapter.pin(length)) {
                return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
            }
            registeredLength = length;
            int rights = (NdkMrFlags.localWrite(flags) ? TokenTable.RIGHT_LOCAL_WRITE : 0)
                    | (NdkMrFlags.remoteRead(flags) ? TokenTable.RIGHT_REMOTE_READ : 0)
                    | (NdkMrFlags.remoteWrite(flags) ? TokenTable.RIGHT_REMOTE_WRITE : 0)
                    | ((flags & NdkMrFlags.RDMA_READ_SINK) != 0 ? TokenTable.RIGHT_READ_SINK : 0);
            int key = adapter.tokens().newKey(entry.issuedKey);
            entry.issuedKey = key;
            Region region = Region.ofSegments(mdl.segments().toArray(new MemorySegment[0]), length);
            entry.binding = new TokenTable.Binding(key, mdl.virtualAddress(), length, rights, region);
            registered = true;
        }
        adapter.count(NdkCounter.REGISTRATIONS);
        RegistrationEvent.emit(RegistrationEvent.REGISTER, length, getRemoteToken());
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    @Override
    public int deregisterMr(RequestCompletion rc, Object ctx) {
        synchronized (this) {
            if (fastRegister || !registered) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            if (boundWindows > 0) {
                return NtStatus.STATUS_DEVICE_BUSY;
            }
            entry.binding = null;
            registered = false;
            adapter.unpin(registeredLength);
            RegistrationEvent.emit(RegistrationEvent.DEREGISTER, registeredLength, getRemoteToken());
            registeredLength = 0;
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    @Override
    public int initializeFastRegisterMr(int pageCount, boolean remoteAccess, RequestCompletion rc, Object ctx) {
        if (!fastRegister) {
            return NtStatus.STATUS_INVALID_DEVICE_REQUEST;
        }
        if (pageCount == 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (Integer.toUnsignedLong(pageCount) > adapter.infoInternal().maxRegistrationSize() / PageMap.PAGE) { // ULONG
            return NtStatus.STATUS_IMPLEMENTATION_LIMIT;
        }
        synchronized (this) {
            if (entry.binding != null) {
                return NtStatus.STATUS_INVALID_DEVICE_STATE;
            }
            frPageCount = pageCount;
            frRemoteAccess = remoteAccess;
            initialized = true;
        }
        return adapter.completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    /** Draws the key of the next fast-register; the remote token changes as soon as the post returns. */
    int issueKey() {
        int key = adapter.tokens().newKey(entry.issuedKey);
        entry.issuedKey = key;
        return key;
    }

    @Override
    public int getRemoteToken() {
        return entry.token(entry.issuedKey);
    }

    @Override
    public int getLocalToken() {
        return entry.token(entry.issuedKey);
    }

    @Override
    void onClose() {
        // implicit deregistration: no access through the tokens from now on
        entry.binding = null;
        synchronized (this) {
            if (registered) {
                registered = false;
                adapter.unpin(registeredLength);
                registeredLength = 0;
            }
        }
    }

    @Override
    void onClosed() {
        adapter.tokens().release(entry);
    }
}
