package io.jndk.iwarp.cm;

/**
 * Receives each valid MPA Request that an {@link MpaListener} read. Called on the connection's own
 * virtual thread; it may decide at once ({@link PendingMpaConnection#accept},
 * {@link PendingMpaConnection#reject}) or keep the pending connection and decide later from any
 * thread. If it throws, the connection is closed without an answer.
 */
@FunctionalInterface
public interface RequestHandler {

    /**
     * @param request what the initiator asked for
     * @param connection the connection waiting for an answer
     */
    void onRequest(MpaRequest request, PendingMpaConnection connection);
}
