package io.jndk.iwarp.cm;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;

/**
 * TCP socket buffer sizes for iWARP connections (adapter options {@code tcp.sndbuf}, {@code tcp.rcvbuf}). Set before
 * a connection exists (on the connecting socket before its connect, on the listening socket before its bind, whose
 * accepted sockets inherit them), so that the receive window is scaled for the size from the first segment on. A
 * size set explicitly turns the kernel's auto-tuning off for that buffer; 0 leaves the system's choice.
 *
 * @param send {@code SO_SNDBUF} in bytes, 0 for the system's auto-tuned size
 * @param receive {@code SO_RCVBUF} in bytes, 0 likewise
 */
public record SocketBuffers(int send, int receive) {
    /** The system's sizes (auto-tuned). */
    public static final SocketBuffers SYSTEM = new SocketBuffers(0, 0);

    public SocketBuffers {
        if (send < 0 || receive < 0) {
            throw new IllegalArgumentException("socket buffer sizes must not be negative: " + send + ", " + receive);
        }
    }

    /** Sets the sizes that are not 0 on {@code channel} (a connecting or a listening socket). */
    void apply(NetworkChannel channel) throws IOException {
        if (send > 0 && channel.supportedOptions().contains(StandardSocketOptions.SO_SNDBUF)) { // not a listener's
            channel.setOption(StandardSocketOptions.SO_SNDBUF, send);
        }
        if (receive > 0) {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, receive);
        }
    }

    /**
     * An accepted socket: its receive size came from the listening socket; a listening socket has no send buffer
     * to pass on, so the send size is set here.
     */
    void applyAccepted(NetworkChannel channel) throws IOException {
        if (send > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, send);
        }
    }
}
