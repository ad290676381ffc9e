package io.jndk.provider.spi;

import java.net.InetSocketAddress;

/** Outcome of an active connection attempt (exactly one call). */
public interface ActiveHandler {
    /** The peer accepted; the connection waits for {@link WireConnection#start} or {@link WireConnection#reject}. */
    void onReply(WireConnection connection, InetSocketAddress local, byte[] privateData, int peerInboundReadLimit,
            int peerOutboundReadLimit);

    /** The peer rejected with private data. */
    void onRejected(byte[] privateData);

    /** The attempt failed with an NTSTATUS (refused, unreachable, timeout, address in use). */
    void onFailed(int status);
}
