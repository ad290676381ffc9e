package io.jndk.iwarp.cm;

import static io.jndk.iwarp.cm.CmTestSupport.GUARD_MS;
import static io.jndk.iwarp.cm.CmTestSupport.bytes;
import static io.jndk.iwarp.cm.CmTestSupport.hex;
import static io.jndk.iwarp.cm.CmTestSupport.rawClient;
import static io.jndk.iwarp.cm.CmTestSupport.readExactly;
import static io.jndk.iwarp.cm.CmTestSupport.readUntilClose;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The exact octets jndk puts on the wire during setup, compared with IWARP.md 10.2 and with what
 * real siw sent (the test resources' {@code testdata/siw}).
 */
@Timeout(30)
class MpaWireBytesTest {

    private static final String REQ_KEY = "4d504120494420526571204672616d65";
    private static final String REP_KEY = "4d504120494420526570204672616d65";

    /** Captures the Request a jndk initiator sends to a raw listener that then closes. */
    private static byte[] requestBytes(MpaParams params) throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                () -> MpaInitiator.connect(null, to, params), r -> Thread.ofVirtual().start(r));
            byte[] request;
            try (Socket s = raw.accept()) {
                s.setSoTimeout(GUARD_MS);
                int expected = 24 + params.privateData().length;
                request = readExactly(s, expected);
            }
            // the raw listener closed without answering: like siw against hostpeer's listen-raw
            MpaOutcome o = client.get(GUARD_MS, TimeUnit.MILLISECONDS);
            assertThat(o).isInstanceOf(MpaOutcome.Failed.class);
            assertThat(((MpaOutcome.Failed) o).reason()).isEqualTo(MpaFailure.PEER_CLOSED);
            return request;
        }
    }

    /** Sends {@code request} to a jndk listener that accepts with {@code params}; returns the Reply octets. */
    private static byte[] replyBytes(byte[] request, MpaParams params) throws Exception {
        return replyBytes(request, params, 24 + params.privateData().length);
    }

    private static byte[] replyBytes(byte[] request, MpaParams params, int replyLength) throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(params);
        try (MpaListener l = CmTestSupport.listen(handler); Socket s = rawClient(l.localAddress())) {
            s.getOutputStream().write(request);
            MpaOutcome.Accepted a = handler.next();
            try (var channel = a.channel()) {
                assertThat(channel.isOpen()).isTrue();
                return readExactly(s, replyLength);
            }
        }
    }

    private static byte[] siwFile(String name) throws IOException {
        return Files.readAllBytes(CmTestSupport.siwTestdata().resolve(name));
    }

    @Test
    void clientServerRequestEqualsWhatSiwSends() throws Exception {
        byte[] jndk = requestBytes(MpaParams.of(1, 1, null).withRtr(Set.of()));
        assertThat(hex(jndk)).isEqualTo(REQ_KEY + "10020004" + "00010001");
        assertThat(jndk).isEqualTo(siwFile("siw-mpa-request.bin"));
    }

    @Test
    void crcRequestMatchesSpecVector() throws Exception {
        assertThat(hex(requestBytes(MpaParams.of(1, 1, null).withRtr(Set.of()).withCrc(true))))
            .isEqualTo(REQ_KEY + "50020004" + "00010001");
    }

    @Test
    void peerToPeerRequestsSetAAndTheOfferedRtrBits() throws Exception {
        // jndk's default: Write RTR only (C bit of the ORD half)
        assertThat(hex(requestBytes(MpaParams.of(1, 1, null)))).isEqualTo(REQ_KEY + "10020004" + "80018001");
        // siw's offer in rping_p2p.pcap and IWARP.md 10.2: Write and Read
        assertThat(hex(requestBytes(MpaParams.of(1, 1, null).withRtr(EnumSet.of(RtrType.WRITE, RtrType.READ)))))
            .isEqualTo(REQ_KEY + "10020004" + "8001c001");
        // Send RTR is the B bit of the IRD half
        assertThat(hex(requestBytes(MpaParams.of(2, 3, null).withRtr(EnumSet.of(RtrType.SEND)))))
            .isEqualTo(REQ_KEY + "10020004" + "c0020003");
    }

    @Test
    void privateDataFollowsTheWord() throws Exception {
        byte[] ulp = hex("0102030405");
        assertThat(hex(requestBytes(MpaParams.of(0, 0, ulp).withRtr(Set.of()))))
            .isEqualTo(REQ_KEY + "10020009" + "00000000" + "0102030405");
        byte[] max = new byte[MpaParams.MAX_PRIVATE_DATA];
        byte[] request = requestBytes(MpaParams.of(0, 0, max).withRtr(Set.of()));
        assertThat(hex(request).substring(32, 40)).as("PD_Length stays at siw's 256").isEqualTo("10020100");
    }

    @Test
    void replyToSiwsRequestEqualsSiwsReply() throws Exception {
        byte[] siwRequest = siwFile("siw-mpa-request.bin");
        byte[] jndk = replyBytes(siwRequest, MpaParams.of(1, 1, null));
        assertThat(hex(jndk)).isEqualTo(REP_KEY + "10020004" + "00010001");
        assertThat(jndk).isEqualTo(siwFile("host-mpa-initiator-vs-passive-siw.bin"));
    }

    @Test
    void replyEchoesCrc() throws Exception {
        assertThat(hex(replyBytes(hex(REQ_KEY + "50020004 00010001"), MpaParams.of(1, 1, null))))
            .isEqualTo(REP_KEY + "50020004" + "00010001");
    }

    @Test
    void replyToAPeerToPeerOfferSelectsWriteLikeSiw() throws Exception {
        assertThat(hex(replyBytes(hex(REQ_KEY + "10020004 8001c001"), MpaParams.of(1, 1, null))))
            .isEqualTo(REP_KEY + "10020004" + "80018001");
    }

    @Test
    void replyToARevisionOneRequestIsRevisionOneWithoutWord() throws Exception {
        assertThat(hex(replyBytes(hex(REQ_KEY + "00010002 abcd"), MpaParams.of(1, 1, null), 20)))
            .isEqualTo(REP_KEY + "00010000");
    }

    @Test
    void rejectEqualsSpecVector() throws Exception {
        try (MpaListener l = CmTestSupport.listen((r, c) -> c.reject(null)); Socket s = rawClient(l.localAddress())) {
            s.getOutputStream().write(siwFile("siw-mpa-request.bin"));
            assertThat(hex(readUntilClose(s))).isEqualTo(REP_KEY + "30020004" + "00000000");
        }
    }

    @Test
    void writeRtrEqualsSiwsRtr() {
        // rping_p2p.pcap: 00 0e c1 40 00000001 0000000000000000 00000000
        assertThat(hex(bytes(Rtr.frame(RtrType.WRITE, false)))).isEqualTo("000e" + "c140" + "00000001"
            + "0000000000000000" + "00000000");
        assertThat(hex(bytes(Rtr.frame(RtrType.READ, false)))).isEqualTo("002e" + "4141" + "00000000" + "00000001"
            + "00000001" + "00000000" + "00000000" + "0000000000000000" + "00000000" + "00000001" + "0000000000000000"
            + "00000000");
        assertThat(hex(bytes(Rtr.frame(RtrType.SEND, false)))).isEqualTo("0012" + "4143" + "00000000" + "00000000"
            + "00000001" + "00000000" + "00000000");
        assertThat(bytes(Rtr.frame(RtrType.WRITE, true))).hasSize(20).isNotEqualTo(bytes(Rtr.frame(RtrType.WRITE, false)));
    }
}
