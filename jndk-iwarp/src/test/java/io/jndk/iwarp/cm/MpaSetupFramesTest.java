package io.jndk.iwarp.cm;

import static io.jndk.iwarp.cm.CmTestSupport.ANY_LOOPBACK;
import static io.jndk.iwarp.cm.CmTestSupport.bytes;
import static io.jndk.iwarp.cm.CmTestSupport.listen;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Both sides of an accepted setup report the same Request and Reply octets, exactly as framed. */
@Timeout(30)
class MpaSetupFramesTest {

    @Test
    void bothSidesReportTheExchangedRequestAndReply() throws Exception {
        byte[] clientData = "client".getBytes(StandardCharsets.US_ASCII);
        byte[] serverData = "server!".getBytes(StandardCharsets.US_ASCII);
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, serverData));
        try (MpaListener l = listen(handler)) {
            MpaOutcome o = MpaInitiator.connect(ANY_LOOPBACK, l.localAddress(), MpaParams.of(1, 1, clientData)
                .withCrc(true));
            assertThat(o).isInstanceOf(MpaOutcome.Accepted.class);
            MpaOutcome.Accepted client = (MpaOutcome.Accepted) o;
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                assertThat(cc.isOpen() && sc.isOpen()).isTrue();
                byte[] request = bytes(client.setup().request());
                byte[] reply = bytes(client.setup().reply());
                assertThat(client.setup().known()).isTrue();
                assertThat(bytes(server.setup().request())).isEqualTo(request);
                assertThat(bytes(server.setup().reply())).isEqualTo(reply);
                assertThat(new String(request, 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Req Frame");
                assertThat(new String(reply, 0, 16, StandardCharsets.US_ASCII)).isEqualTo("MPA ID Rep Frame");
                // header 20, IRD/ORD word 4, then the ULP private data; C set in both
                assertThat(request).hasSize(20 + 4 + clientData.length);
                assertThat(reply).hasSize(20 + 4 + serverData.length);
                assertThat(Arrays.copyOfRange(request, 24, request.length)).isEqualTo(clientData);
                assertThat(Arrays.copyOfRange(reply, 24, reply.length)).isEqualTo(serverData);
                assertThat(request[16] & 0x40).isNotZero();
                assertThat(reply[16] & 0x40).isNotZero();
                assertThat(client.setup().request().isReadOnly()).isTrue();
            }
        }
    }

    @Test
    void anOutcomeBuiltWithoutFramesHasNone() {
        assertThat(MpaSetupFrames.NONE.known()).isFalse();
        assertThat(MpaSetupFrames.NONE.request().remaining()).isZero();
    }
}
