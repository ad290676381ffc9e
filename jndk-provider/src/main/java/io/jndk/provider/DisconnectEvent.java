package io.jndk.provider;

import io.jndk.api.DisconnectEventCallback;
import io.jndk.api.DisconnectEventCallbackEx;
import io.jndk.api.DisconnectReason;
import io.jndk.provider.events.ConnectionStateEvent;

/**
 * A connector's disconnect event (NDKPI §5.8, {@code NdkCompleteConnect}/{@code NdkAccept}'s callback): indicated at
 * most once per connection, never after the consumer started closing the connector, and delivered on the adapter's
 * dispatcher while the connector counts the callback in progress.
 */
final class DisconnectEvent {
    private final SoftConnector owner;
    private DisconnectEventCallback callback;
    private DisconnectEventCallbackEx callbackEx;
    private Object context;
    private boolean indicated;

    DisconnectEvent(SoftConnector owner) {
        this.owner = owner;
    }

    /** The consumer's callback (one of the two forms, or none) and its context. */
    synchronized void set(DisconnectEventCallback cb, DisconnectEventCallbackEx cbx, Object ctx) {
        callback = cb;
        callbackEx = cbx;
        context = ctx;
    }

    /** Indicates the disconnect with {@code reason} (a {@link DisconnectReason}), once. */
    void indicate(int reason) {
        DisconnectEventCallback cb;
        DisconnectEventCallbackEx cbx;
        Object ctx;
        // isOpen() takes the lifetime lock: read it before this object's lock (the close path takes them the other
        // way round).
        boolean open = owner.isOpen();
        synchronized (this) {
            if (indicated || !open) {
                return;
            }
            indicated = true;
            cb = callback;
            cbx = callbackEx;
            ctx = context;
        }
        owner.event(ConnectionStateEvent.DISCONNECTED, DisconnectReason.name(reason));
        if (cb == null && cbx == null) {
            return;
        }
        owner.adapter.dispatcher().run(() -> {
            if (owner.life() != SoftObject.Life.OPEN || !owner.enterCallback()) {
                return;
            }
            try {
                if (cbx != null) {
                    cbx.onDisconnect(ctx, reason);
                } else {
                    cb.onDisconnect(ctx);
                }
            } finally {
                owner.exitCallback();
            }
        });
    }
}
