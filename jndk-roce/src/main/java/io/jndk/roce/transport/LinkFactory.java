package io.jndk.roce.transport;

import java.io.IOException;
import java.net.InetAddress;

/** Opens the link an adapter option {@code link} names (other than {@code udp}). */
final class LinkFactory {
    private LinkFactory() {}

    static RoceLink open(String spec, InetAddress address) throws IOException {
        throw new IllegalArgumentException("adapter option link=" + spec + ": not udp");
    }
}
