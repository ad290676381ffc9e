package io.jndk.conformance.roce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The roce transport over IPv6 (::1): GIDs are the IPv6 addresses themselves, and the ICRC covers every header field
 * it names exactly (no identification field), in both directions.
 */
class RoceIpv6Test {
    @Test
    void aConnectionOverIpv6CarriesDataBothWays() throws IOException {
        InetAddress v6 = InetAddress.getByName("::1");
        int port;
        try (DatagramChannel c = DatagramChannel.open().bind(new InetSocketAddress(v6, 0))) {
            port = ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
        NdkOpenParameters p = NdkOpenParameters.of("roce", v6).withOptions(Map.of("udp.port", "" + port));
        NdkAdapter a = Ndk.open(p);
        NdkAdapter b = Ndk.open(p);
        World w = new World(new Mode("roce", false)); // its objects close first, then the adapters
        try {
            Conn.Peer pa = Conn.peer(w, a, "qpA");
            Conn.Peer pb = Conn.peer(w, b, "qpB");
            Conn.Listening l = Conn.listen(w, b, new InetSocketAddress(v6, 0));
            Conn.establishFrom(w, pa, new InetSocketAddress(v6, 0), l, pb, new byte[] {6});
            Conn.sendAndVerify(w, pa, pb, 20_000, 3);
            Conn.sendAndVerify(w, pb, pa, 10, 4);
        } finally {
            w.close();
            a.close();
            b.close();
        }
    }
}
