package io.jndk.provider.spi;

/**
 * What the active side offers.
 *
 * @param privateData consumer private data
 * @param inboundReadLimit IRD after local capping
 * @param outboundReadLimit ORD after local capping
 * @param crc ask for CRC
 * @param timeoutMillis bound on connection setup until the reply
 */
public record ConnectRequest(byte[] privateData, int inboundReadLimit, int outboundReadLimit, boolean crc, long timeoutMillis) {}
