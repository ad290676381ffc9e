package io.jndk.provider.spi;

/**
 * What the active side offers (transport choices such as MPA CRC are the transport's own options).
 *
 * @param privateData consumer private data
 * @param inboundReadLimit IRD after local capping
 * @param outboundReadLimit ORD after local capping
 * @param timeoutMillis bound on connection setup until the reply
 */
public record ConnectRequest(byte[] privateData, int inboundReadLimit, int outboundReadLimit, long timeoutMillis) {}
