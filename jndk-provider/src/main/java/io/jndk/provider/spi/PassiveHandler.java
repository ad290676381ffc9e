package io.jndk.provider.spi;

/** Outcome of an accepted request (exactly one call). */
public interface PassiveHandler {
    /** The requester completed the connection (its first frame arrived). */
    void onEstablished(WireConnection connection);

    /** The requester abandoned it ({@code STATUS_CONNECTION_ABORTED}) or never completed ({@code STATUS_IO_TIMEOUT}). */
    void onFailed(int status);
}
