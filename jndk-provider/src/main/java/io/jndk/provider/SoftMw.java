package io.jndk.provider;

import io.jndk.api.NdkMw;
import io.jndk.api.NdkObjectType;

/** A memory window: a remotely accessible sub-range of an MR, valid after a Bind work request executes. */
final class SoftMw extends SoftObject implements NdkMw {
    final SoftPd pd;
    final TokenTable.Entry entry;
    /** The region the window is bound to (antecedent while bound). */
    SoftMr boundTo;

    SoftMw(SoftPd pd, TokenTable.Entry entry) {
        super(pd.adapter, NdkObjectType.MW);
        this.pd = pd;
        this.entry = entry;
    }

    int issueKey() {
        int key = adapter.tokens().newKey(entry.issuedKey);
        entry.issuedKey = key;
        return key;
    }

    @Override
    public int getRemoteToken() {
        return entry.token(entry.issuedKey);
    }

    /** Unbinds (invalidates) the window and releases its region. */
    synchronized void unbind() {
        entry.binding = null;
        SoftMr mr = boundTo;
        boundTo = null;
        if (mr != null) {
            synchronized (mr) {
                mr.boundWindows--;
            }
            mr.dropSuccessor(this);
        }
    }

    /** Binds the window (engine, when the Bind request executes). */
    synchronized void bindTo(SoftMr mr, TokenTable.Binding b) {
        if (boundTo != mr) {
            unbind();
            synchronized (mr) {
                mr.boundWindows++;
            }
            mr.addSuccessor(this);
            boundTo = mr;
        }
        entry.binding = b;
    }

    @Override
    void onClose() {
        unbind();
    }

    @Override
    void onClosed() {
        adapter.tokens().release(entry);
    }
}
