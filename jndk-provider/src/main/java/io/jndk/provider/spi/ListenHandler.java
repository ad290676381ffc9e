package io.jndk.provider.spi;

/** Receives incoming connection requests of a listening address. */
public interface ListenHandler {
    /** A complete, valid connection request; the handler must eventually accept, reject or refuse it. */
    void onRequest(IncomingRequest request);
}
