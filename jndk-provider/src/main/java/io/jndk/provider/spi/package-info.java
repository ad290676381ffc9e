/**
 * The transport seam: what a wire transport (iWARP) implements ({@link io.jndk.provider.spi.WireTransport},
 * {@link io.jndk.provider.spi.WireConnection}) and what the verbs engine offers it for one connected QP
 * ({@link io.jndk.provider.spi.QpPort}). A transport sees buffers only after the provider's access check,
 * as {@link io.jndk.provider.spi.BufferCursor}s; it never sees NDK objects.
 */
package io.jndk.provider.spi;
