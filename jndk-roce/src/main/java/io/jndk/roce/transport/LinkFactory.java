package io.jndk.roce.transport;

import java.io.IOException;
import java.net.InetAddress;

/** Opens the link an adapter option {@code link} names (other than {@code udp}). */
final class LinkFactory {
    private LinkFactory() {}

    /**
     * @param spec the option's value: {@code dgram:LOCALPORT:REMOTEPORT[:MAC]} ({@link FrameLink})
     * @param address the device's address
     * @return the open link
     * @throws IllegalArgumentException when no link has that name or its specification is not usable
     * @throws IOException when the link's socket cannot be opened
     */
    static RoceLink open(String spec, InetAddress address) throws IOException {
        if (spec.startsWith(FrameLink.DGRAM + ":")) {
            return FrameLink.open(spec, address);
        }
        throw new IllegalArgumentException("adapter option link=" + spec + ": not udp or dgram:LOCALPORT:REMOTEPORT[:MAC]");
    }
}
