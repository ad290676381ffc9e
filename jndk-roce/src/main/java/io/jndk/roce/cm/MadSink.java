package io.jndk.roce.cm;

import java.nio.ByteBuffer;

/**
 * Where a {@link CmAgent} puts the MADs it sends. The transport wraps each in a GSI datagram (BTH, DETH with Q_Key
 * 0x80010000 and source QP 1, the MAD, ICRC: {@link io.jndk.roce.mad.GsiPacket}) to the peer's QP1.
 */
@FunctionalInterface
public interface MadSink {

    /**
     * Sends one MAD. The buffer is the agent's: it holds the 256-octet MAD from index 0, is valid only during the
     * call, and must not be modified.
     *
     * @param destination the peer's GID
     * @param mad the MAD
     */
    void send(Gid destination, ByteBuffer mad);
}
