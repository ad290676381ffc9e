package io.jndk.iwarp.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A responder whose initiator asked for the client-server model (no ready-to-receive frame: siw's default) holds its
 * output until the initiator's first FPDU, as RFC 5044 asks, but only for {@code mpa.hold.ms}: a server that speaks
 * first (perftest's {@code ib_write_lat}) then speaks, as siw's responder does at once. Before, such a server's Send
 * stayed queued until the initiator sent something, so an initiator that waited for it waited for ever.
 */
@Timeout(60)
class OutputHoldTest {

    @Test
    void aServerThatSpeaksFirstIsHeardWithoutTheInitiatorSendingAnything() throws Exception {
        try (HostileKit kit = new HostileKit(Map.of("mpa.hold.ms", "100"))) {
            HostileKit.Guarded text = kit.register("text", kit.pd, 64, HostileKit.ALL);
            HostileKit.Accepting a = kit.prepare(1);
            try (RawPeer peer = RawPeer.establishClientServer(kit.address)) {
                assertThat(NtStatus.name(HostileKit.join(a.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
                NdkSge sge = new NdkSge(text.base(), 16, text.mr().getLocalToken());
                assertThat(NtStatus.name(a.qp.send("first", new NdkSge[] {sge}, 1, 0))).isEqualTo("STATUS_SUCCESS");
                byte[] fpdu = peer.readFpdu(); // the peer has sent nothing since the Request
                assertThat(fpdu[3] & 0x0F).as("the server's Send").isEqualTo(RdmapOpcode.SEND.code());
            }
        }
    }
}
