package io.jndk.iwarp.fault;

/** The direction of a forwarded byte stream, seen from the side that connected to the proxy. */
public enum FaultDirection {
    /** From the connecting side (the iWARP initiator) to the target (the listener). */
    TO_TARGET,
    /** From the target back to the connecting side. */
    TO_CLIENT
}
