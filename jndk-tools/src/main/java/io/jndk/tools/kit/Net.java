package io.jndk.tools.kit;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;

/** Local addresses for clients. */
public final class Net {
    private Net() {}

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
