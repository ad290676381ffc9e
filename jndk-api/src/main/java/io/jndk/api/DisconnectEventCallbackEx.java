package io.jndk.api;

/** {@code NDK_FN_DISCONNECT_EVENT_CALLBACK_EX} (2.1): the peer disconnected, with a provider reason. */
@FunctionalInterface
public interface DisconnectEventCallbackEx {
    /**
     * @param disconnectEventContext the context given to CompleteConnectEx or AcceptEx
     * @param providerDisconnectReason a {@link DisconnectReason} code (0 = none)
     */
    void onDisconnect(Object disconnectEventContext, int providerDisconnectReason);
}
