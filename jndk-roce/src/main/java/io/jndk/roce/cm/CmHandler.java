package io.jndk.roce.cm;

/**
 * Receives the outcomes of one connection (active side) or of every connection of a listener (passive side). Called
 * on the thread that drives the {@link CmAgent}, after the connection's state changed; it may call back into the
 * connection or the agent.
 */
@FunctionalInterface
public interface CmHandler {

    /**
     * @param event what happened
     */
    void onEvent(CmEvent event);
}
