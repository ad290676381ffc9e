package io.jndk.iwarp.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connect from a local port to that same port, where nothing listens, is TCP's simultaneous open with itself: the
 * kernel completes it. Nobody is there, so it is refused (before: the initiator read its own MPA Request as the
 * Reply and failed the attempt as a peer that closed, or as a malformed Reply). The kernel picks such a source port
 * on its own now and then for a connect to a free local port in the ephemeral range; binding it makes it certain.
 */
@Timeout(30)
class SelfConnectTest {

    @Test
    void aConnectToItsOwnPortIsRefused() throws Exception {
        InetSocketAddress self;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            self = new InetSocketAddress(InetAddress.getLoopbackAddress(), probe.getLocalPort());
        } // closed: nothing listens at self
        MpaOutcome o = MpaInitiator.connect(self, self, MpaParams.of(1, 1, null));
        assertThat(o).isInstanceOf(MpaOutcome.Failed.class);
        MpaOutcome.Failed f = (MpaOutcome.Failed) o;
        assertThat(f.reason()).isEqualTo(MpaFailure.REFUSED);
        assertThat(f.detail()).contains("nothing listens there", "self-connection");
    }
}
