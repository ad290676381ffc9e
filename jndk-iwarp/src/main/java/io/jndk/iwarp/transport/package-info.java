/**
 * The iWARP wire transport: {@link io.jndk.iwarp.transport.IwarpTransport} (listen/connect over MPA) and
 * {@link io.jndk.iwarp.transport.IwarpConnection} (the RDMAP/DDP/MPA stream engine of one connection), the
 * implementation of the provider's transport SPI.
 */
package io.jndk.iwarp.transport;
