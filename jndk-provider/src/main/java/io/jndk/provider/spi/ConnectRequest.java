package io.jndk.provider.spi;

/**
 * What the active side offers (transport choices such as MPA CRC are the transport's own options).
 *
 * @param privateData consumer private data
 * @param inboundReadLimit IRD after local capping
 * @param outboundReadLimit ORD after local capping
 * @param timeoutMillis bound on connection setup until the reply
 * @param outOfBand a connection without the transport's connection manager (jndk's out-of-band extension), or null
 */
public record ConnectRequest(byte[] privateData, int inboundReadLimit, int outboundReadLimit, long timeoutMillis,
        OutOfBand outOfBand) {
    /** A request through the transport's connection manager. */
    public ConnectRequest(byte[] privateData, int inboundReadLimit, int outboundReadLimit, long timeoutMillis) {
        this(privateData, inboundReadLimit, outboundReadLimit, timeoutMillis, null);
    }

    /**
     * What a connection without a connection manager is built from: this side's reserved numbers
     * ({@link WireTransport#reserveOutOfBand}) and the peer's, learnt out of band.
     *
     * @param localQpn the reserved QP number
     * @param sendPsn the PSN this side sends its first request with (its reserved one)
     * @param remoteQpn the peer's QP number
     * @param receivePsn the PSN this side expects first (the peer's)
     * @param mtu the path MTU (the smaller of both sides' offers)
     */
    public record OutOfBand(int localQpn, int sendPsn, int remoteQpn, int receivePsn, int mtu) {}
}
