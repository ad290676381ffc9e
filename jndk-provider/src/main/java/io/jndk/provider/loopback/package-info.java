/**
 * The in-JVM {@code loopback} transport: a transport like the others behind {@link io.jndk.provider.spi} (this package
 * imports only {@code io.jndk.api} and the SPI, which a test pins). Connection setup goes through a JVM-wide fabric of
 * listeners ({@code LoopbackFabric}); data runs on the posting thread against the peer QP's port, so the provider's
 * one responder checks and places every byte.
 */
package io.jndk.provider.loopback;
