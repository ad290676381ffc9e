/**
 * Fault injection at the transport seam: {@link io.jndk.iwarp.fault.FaultProxy} is a real TCP proxy on
 * 127.0.0.1 that forwards each byte stream through a {@link io.jndk.iwarp.fault.FaultPlan}, which may split,
 * delay, corrupt, drop or reset it. A connector that connects to the proxy instead of the listener runs its
 * connection through the faults; nothing in the transport changes, so the fault path costs nothing when unused.
 */
package io.jndk.iwarp.fault;
