package io.jndk.api;

/** {@code NDK_FN_DISCONNECT_EVENT_CALLBACK}: the peer disconnected (at most once per connection). */
@FunctionalInterface
public interface DisconnectEventCallback {
    /** @param disconnectEventContext the context given to CompleteConnect or Accept */
    void onDisconnect(Object disconnectEventContext);
}
