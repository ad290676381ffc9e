package io.jndk.tools.kit;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Names and local addresses for clients and servers. */
public final class Net {
    private Net() {}

    /**
     * {@code name} (a host name or an IP address) as an address; a name that does not resolve is one failure class for
     * every tool, {@link Failure.Kind#UNREACHABLE}: "unknown host NAME (check the name, or give an IP address)".
     */
    public static InetAddress resolve(String name) {
        try {
            return InetAddress.getByName(name);
        } catch (UnknownHostException e) {
            throw new Failure(Failure.Kind.UNREACHABLE, "unknown host " + name + " (check the name, or give an IP address)");
        }
    }

    /** The local address the route to {@code peer} leaves from (a connected UDP socket sends nothing). */
    public static InetAddress localAddressFor(InetAddress peer) throws IOException {
        if (peer.isLoopbackAddress()) {
            return peer;
        }
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(peer, 9);
            InetAddress a = s.getLocalAddress();
            if (a == null || a.isAnyLocalAddress()) {
                throw new IOException("no route");
            }
            return a;
        }
    }
}
