package io.jndk.api;

/** jndk's {@code ProviderDisconnectReason} codes for {@link DisconnectEventCallbackEx}. */
public final class DisconnectReason {
    private DisconnectReason() {}

    public static final int NONE = 0;
    public static final int PEER_GRACEFUL_CLOSE = 1;
    public static final int CONNECTION_RESET = 2;
    public static final int TERMINATE_RECEIVED = 3;
    public static final int TERMINATE_SENT = 4;
    public static final int TIMEOUT = 5;
}
