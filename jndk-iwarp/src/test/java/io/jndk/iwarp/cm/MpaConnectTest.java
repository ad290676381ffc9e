package io.jndk.iwarp.cm;

import static io.jndk.iwarp.cm.CmTestSupport.ANY_LOOPBACK;
import static io.jndk.iwarp.cm.CmTestSupport.GUARD_MS;
import static io.jndk.iwarp.cm.CmTestSupport.bytes;
import static io.jndk.iwarp.cm.CmTestSupport.hex;
import static io.jndk.iwarp.cm.CmTestSupport.listen;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** jndk initiator against jndk listener (and against raw TCP peers) over 127.0.0.1. */
@Timeout(30)
class MpaConnectTest {

    private static final byte[] CLIENT_DATA = "hello from the initiator".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_DATA = "welcome, initiator".getBytes(StandardCharsets.US_ASCII);

    private static MpaOutcome connect(MpaListener l, MpaParams params) {
        return MpaInitiator.connect(ANY_LOOPBACK, l.localAddress(), params);
    }

    private static MpaOutcome.Accepted accepted(MpaOutcome o) {
        assertThat(o).isInstanceOf(MpaOutcome.Accepted.class);
        return (MpaOutcome.Accepted) o;
    }

    private static MpaOutcome.Failed failed(MpaOutcome o) {
        assertThat(o).isInstanceOf(MpaOutcome.Failed.class);
        return (MpaOutcome.Failed) o;
    }

    @Test
    void privateDataBothWaysAndWriteRtr() throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, SERVER_DATA));
        try (MpaListener l = listen(handler)) {
            MpaOutcome.Accepted client = accepted(connect(l, MpaParams.of(1, 1, CLIENT_DATA)));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                MpaRequest request = handler.requests.take();
                assertThat(request.privateData()).isEqualTo(CLIENT_DATA);
                assertThat(request.revision()).isEqualTo(2);
                assertThat(request.enhanced()).isTrue();
                assertThat(request.peerToPeer()).isTrue();
                assertThat(request.rtrOffered()).containsExactly(RtrType.WRITE);
                assertThat(request.remoteAddress()).isEqualTo(cc.getLocalAddress());

                MpaNegotiated c = client.negotiated();
                MpaNegotiated s = server.negotiated();
                assertThat(c.peerPrivateData()).isEqualTo(SERVER_DATA);
                assertThat(s.peerPrivateData()).isEqualTo(CLIENT_DATA);
                assertThat(c.role()).isEqualTo(MpaRole.INITIATOR);
                assertThat(s.role()).isEqualTo(MpaRole.RESPONDER);
                assertThat(c.crc()).isFalse();
                assertThat(s.crc()).isFalse();
                assertThat(c.revision()).isEqualTo(2);
                assertThat(c.rtr()).contains(RtrType.WRITE);
                assertThat(s.rtr()).contains(RtrType.WRITE);
                assertThat(c.mustSendRtr()).isTrue();
                assertThat(s.expectsRtr()).isTrue();
                assertThat(c.localAddress()).isEqualTo(s.remoteAddress());
                assertThat(client.surplus().remaining()).isZero();

                assertThat(Rtr.send(cc, c)).isTrue();
                assertThat(Rtr.await(sc, s, Duration.ofMillis(GUARD_MS))).isEqualTo(Rtr.Check.RECEIVED);
                assertThat(Rtr.await(cc, c, Duration.ofMillis(GUARD_MS))).isEqualTo(Rtr.Check.NOT_EXPECTED);

                // the streams now carry FPDUs both ways
                assertThat(sendAndReceive(sc, cc, false)).isEqualTo(CrcVerdict.NOT_CHECKED);
                assertThat(sendAndReceive(cc, sc, false)).isEqualTo(CrcVerdict.NOT_CHECKED);
            }
        }
    }

    /** Writes one Send FPDU on {@code from}, decodes it from {@code to}, returns its CRC verdict. */
    private static CrcVerdict sendAndReceive(java.nio.channels.SocketChannel from, java.nio.channels.SocketChannel to,
                                             boolean crc) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(128);
        byte[] payload = "ping".getBytes(StandardCharsets.US_ASCII);
        int n = new FpduEncoder(crc).untagged(out, 0, RdmapOpcode.SEND, true, 0, 0, 1, 0, ByteBuffer.wrap(payload), 0, 4);
        out.limit(n);
        while (out.hasRemaining()) {
            from.write(out);
        }
        ByteBuffer in = ByteBuffer.allocate(n);
        CmTestSupport.readExactly(to, in);
        in.flip();
        List<CrcVerdict> verdicts = new ArrayList<>();
        FpduDecoder d = new FpduDecoder(new Collecting(verdicts), crc);
        assertThat(d.feed(in)).isEqualTo(FpduError.NONE);
        assertThat(verdicts).hasSize(1);
        return verdicts.get(0);
    }

    private record Collecting(List<CrcVerdict> verdicts) implements FpduListener {
        @Override
        public void onHeader(FpduHeaderView header) {
        }

        @Override
        public void onPayload(ByteBuffer buffer, int index, int length) {
        }

        @Override
        public void onFrameEnd(FpduHeaderView header, CrcVerdict verdict) {
            verdicts.add(verdict);
        }
    }

    @Test
    void irdOrdNegotiatedOverTheWire() throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 8, null));
        try (MpaListener l = listen(handler)) {
            MpaOutcome.Accepted client = accepted(connect(l, MpaParams.of(4, 2, null)));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                assertThat(cc.isConnected() && sc.isConnected()).isTrue();
                MpaNegotiated s = server.negotiated();
                MpaNegotiated c = client.negotiated();
                assertThat(s.peerIrd()).isEqualTo(4);
                assertThat(s.peerOrd()).isEqualTo(2);
                assertThat(s.ord()).as("responder ORD <= initiator IRD").isEqualTo(4);
                assertThat(s.ird()).as("responder IRD lowered to the initiator ORD, never above its grant 1").isEqualTo(1);
                assertThat(c.peerIrd()).isEqualTo(1);
                assertThat(c.peerOrd()).isEqualTo(4);
                assertThat(c.ird()).as("initiator IRD >= responder ORD").isEqualTo(4);
                assertThat(c.ord()).as("initiator ORD <= responder IRD").isEqualTo(1);
            }
        }
    }

    @Test
    void crcRequestedByTheInitiatorOnly() throws Exception {
        crcCase(true, false);
    }

    @Test
    void crcRequestedByTheResponderOnly() throws Exception {
        crcCase(false, true);
    }

    private static void crcCase(boolean initiatorCrc, boolean responderCrc) throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, null).withCrc(responderCrc));
        try (MpaListener l = listen(handler)) {
            MpaOutcome.Accepted client = accepted(connect(l, MpaParams.of(1, 1, null).withCrc(initiatorCrc)));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                assertThat(handler.requests.take().crc()).isEqualTo(initiatorCrc);
                assertThat(client.negotiated().crc()).isTrue();
                assertThat(server.negotiated().crc()).isTrue();
                assertThat(Rtr.send(cc, client.negotiated())).isTrue();
                assertThat(Rtr.await(sc, server.negotiated(), Duration.ofMillis(GUARD_MS))).isEqualTo(Rtr.Check.RECEIVED);
                assertThat(sendAndReceive(cc, sc, true)).isEqualTo(CrcVerdict.VALID);
                assertThat(sendAndReceive(sc, cc, true)).isEqualTo(CrcVerdict.VALID);
            }
        }
    }

    @Test
    void clientServerModelHasNoRtr() throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, null));
        try (MpaListener l = listen(handler)) {
            MpaOutcome.Accepted client = accepted(connect(l, MpaParams.of(1, 1, null).withRtr(Set.of())));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                assertThat(client.negotiated().rtr()).isEmpty();
                assertThat(server.negotiated().rtr()).isEmpty();
                assertThat(Rtr.send(cc, client.negotiated())).isFalse();
                assertThat(Rtr.await(sc, server.negotiated(), Duration.ofSeconds(1))).isEqualTo(Rtr.Check.NOT_EXPECTED);
            }
        }
    }

    @Test
    void readRtrWhenTheResponderPrefersIt() throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(0, 1, null).withRtr(Set.of(RtrType.READ)));
        try (MpaListener l = listen(handler)) {
            MpaParams offersBoth = MpaParams.of(1, 1, null).withRtr(EnumSet.of(RtrType.WRITE, RtrType.READ));
            MpaOutcome.Accepted client = accepted(connect(l, offersBoth));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                assertThat(client.negotiated().rtr()).contains(RtrType.READ);
                assertThat(server.negotiated().ird()).isEqualTo(1);
                assertThat(Rtr.send(cc, client.negotiated())).isTrue();
                assertThat(Rtr.await(sc, server.negotiated(), Duration.ofMillis(GUARD_MS))).isEqualTo(Rtr.Check.RECEIVED);
            }
        }
    }

    @Test
    void wrongFirstFrameIsNotAnRtr() throws Exception {
        CmTestSupport.Accepting handler = new CmTestSupport.Accepting(MpaParams.of(1, 1, null));
        try (MpaListener l = listen(handler)) {
            MpaOutcome.Accepted client = accepted(connect(l, MpaParams.of(1, 1, null)));
            MpaOutcome.Accepted server = handler.next();
            try (var cc = client.channel(); var sc = server.channel()) {
                cc.write(Rtr.frame(RtrType.SEND, false));
                assertThat(Rtr.await(sc, server.negotiated(), Duration.ofMillis(GUARD_MS))).isEqualTo(Rtr.Check.UNEXPECTED_FRAME);
            }
        }
    }

    @Test
    void rejectCarriesPrivateData() throws Exception {
        BlockingQueue<Boolean> written = new LinkedBlockingQueue<>();
        BlockingQueue<PendingMpaConnection> seen = new LinkedBlockingQueue<>();
        byte[] reason = "no room at the inn".getBytes(StandardCharsets.US_ASCII);
        try (MpaListener l = listen((request, connection) -> {
            seen.add(connection);
            written.add(connection.reject(reason));
        })) {
            MpaOutcome o = connect(l, MpaParams.of(1, 1, CLIENT_DATA));
            assertThat(o).isInstanceOf(MpaOutcome.Rejected.class);
            MpaOutcome.Rejected r = (MpaOutcome.Rejected) o;
            assertThat(r.privateData()).isEqualTo(reason);
            assertThat(r.negotiated().rejected()).isTrue();
            assertThat(r.negotiated().mustSendRtr()).isFalse();
            assertThat(written.poll(GUARD_MS, TimeUnit.MILLISECONDS)).isTrue();
            PendingMpaConnection p = seen.take();
            assertThat(p.state()).isEqualTo(PendingMpaConnection.State.REJECTED);
            assertThat(p.accept(MpaParams.of(1, 1, null))).isInstanceOf(MpaOutcome.Failed.class)
                .extracting(f -> ((MpaOutcome.Failed) f).reason()).isEqualTo(MpaFailure.INVALID_STATE);
            assertThat(p.reject(null)).isFalse();
            assertThat(l.pendingCount()).isZero();
        }
    }

    @Test
    void decisionCanComeLaterFromAnotherThread() throws Exception {
        BlockingQueue<PendingMpaConnection> seen = new LinkedBlockingQueue<>();
        try (MpaListener l = listen((request, connection) -> seen.add(connection))) {
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                () -> connect(l, MpaParams.of(1, 1, CLIENT_DATA)), r -> Thread.ofVirtual().start(r));
            PendingMpaConnection p = seen.poll(GUARD_MS, TimeUnit.MILLISECONDS);
            assertThat(p).isNotNull();
            assertThat(p.state()).isEqualTo(PendingMpaConnection.State.PENDING);
            assertThat(l.pendingCount()).isEqualTo(1);
            MpaOutcome.Accepted server = accepted(p.accept(MpaParams.of(1, 1, SERVER_DATA)));
            MpaOutcome.Accepted c = accepted(client.get(GUARD_MS, TimeUnit.MILLISECONDS));
            assertThat(c.negotiated().peerPrivateData()).isEqualTo(SERVER_DATA);
            assertThat(l.pendingCount()).isZero();
            c.channel().close();
            server.channel().close();
        }
    }

    @Test
    void closingTheListenerClosesPendingConnections() throws Exception {
        BlockingQueue<PendingMpaConnection> seen = new LinkedBlockingQueue<>();
        MpaListener l = listen((request, connection) -> seen.add(connection));
        CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
            () -> connect(l, MpaParams.of(1, 1, null)), r -> Thread.ofVirtual().start(r));
        PendingMpaConnection p = seen.poll(GUARD_MS, TimeUnit.MILLISECONDS);
        assertThat(p).isNotNull();
        l.close();
        assertThat(l.isOpen()).isFalse();
        assertThat(p.state()).isEqualTo(PendingMpaConnection.State.CLOSED);
        assertThat(failed(client.get(GUARD_MS, TimeUnit.MILLISECONDS)).reason()).isEqualTo(MpaFailure.PEER_CLOSED);
        assertThat(failed(connect(l, MpaParams.of(1, 1, null))).reason()).isEqualTo(MpaFailure.REFUSED);
    }

    @Test
    void nothingListeningIsRefused() throws Exception {
        InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", CmTestSupport.unusedPort());
        MpaOutcome.Failed f = failed(MpaInitiator.connect(ANY_LOOPBACK, nobody, MpaParams.of(1, 1, null)));
        assertThat(f.reason()).isEqualTo(MpaFailure.REFUSED);
    }

    @Test
    void silentResponderTimesOut() throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(() -> MpaInitiator.connect(null, to,
                MpaParams.of(1, 1, null), Duration.ofSeconds(10), Duration.ofMillis(300)), r -> Thread.ofVirtual().start(r));
            try (Socket s = raw.accept()) {
                s.setSoTimeout(GUARD_MS);
                CmTestSupport.readExactly(s, 24); // the Request, never answered
                assertThat(failed(client.get(GUARD_MS, TimeUnit.MILLISECONDS)).reason()).isEqualTo(MpaFailure.TIMEOUT);
                assertThat(s.getInputStream().read()).as("the initiator closed its socket").isEqualTo(-1);
            }
        }
    }

    @Test
    void peerClosingDuringSetupIsPeerClosed() throws Exception {
        MpaOutcome.Failed f = rawResponder(new byte[0]).outcome;
        assertThat(f.reason()).isEqualTo(MpaFailure.PEER_CLOSED);
        assertThat(f.detail()).contains("closed the TCP connection before its MPA Reply");
    }

    @Test
    void malformedRepliesAreRefused() throws Exception {
        String key = "4d504120494420526570204672616d65";
        // wrong key (the Request key): siw sends Terminate LLP/MPA 0x04, so does jndk
        RawResult badKey = rawResponder(hex("4d504120494420526571204672616d65 10020004 00010001"));
        assertThat(badKey.outcome.reason()).isEqualTo(MpaFailure.BAD_FRAME);
        assertThat(badKey.outcome.detail()).contains("wrong key", "MPA ID Req Frame");
        assertThat(hex(badKey.afterRequest)).isEqualTo("0016" + "4147" + "00000000" + "00000002" + "00000001" + "00000000"
            + "20040000" + "00000000");
        MpaOutcome.Failed rev3 = rawResponder(hex(key + "10030004 00010001")).outcome;
        assertThat(rev3.reason()).isEqualTo(MpaFailure.BAD_REVISION);
        assertThat(rev3.detail()).contains("revision 3");
        MpaOutcome.Failed markers = rawResponder(hex(key + "90020004 00010001")).outcome;
        assertThat(markers.reason()).isEqualTo(MpaFailure.MARKERS);
        assertThat(markers.detail()).contains("markers");
        byte[] tooLong = new byte[20 + 300];
        System.arraycopy(hex(key + "1002012c"), 0, tooLong, 0, 20);
        MpaOutcome.Failed longPd = rawResponder(tooLong).outcome;
        assertThat(longPd.reason()).isEqualTo(MpaFailure.PRIVATE_DATA_TOO_LONG);
        assertThat(longPd.detail()).contains("300");
        MpaOutcome.Failed rev1 = rawResponder(hex(key + "00010000")).outcome;
        assertThat(rev1.reason()).isEqualTo(MpaFailure.BAD_REVISION);
        assertThat(rev1.detail()).contains("revision 1");
        MpaOutcome.Failed plain = rawResponder(hex(key + "00020000")).outcome;
        assertThat(plain.reason()).isEqualTo(MpaFailure.BAD_FRAME);
        assertThat(plain.detail()).contains("not enhanced");
        // reply selects Read RTR although only Write was offered: Terminate 2/0/7
        RawResult noRtr = rawResponder(hex(key + "10020004 80014001"));
        assertThat(noRtr.outcome.reason()).isEqualTo(MpaFailure.NO_MATCHING_RTR);
        assertThat(hex(noRtr.afterRequest)).contains("20070000");
        // responder ORD above what this side can take: Terminate 2/0/6
        RawResult ird = rawResponder(hex(key + "10020004 80018081"));
        assertThat(ird.outcome.reason()).isEqualTo(MpaFailure.INSUFFICIENT_RESOURCES);
        assertThat(hex(ird.afterRequest)).contains("20060000");
    }

    /**
     * The Terminate of a failed setup reaches a responder that sends FPDUs right behind its Reply and reads only once
     * the initiator has given up: the initiator half-closes and drains them before it closes (a close with them unread
     * would be a reset), 20 times back to back.
     */
    @Test
    void theTerminateOfAFailedSetupReachesAResponderThatKeepsSending() throws Exception {
        String key = "4d504120494420526570204672616d65";
        byte[] behind = new byte[256 * 1024];
        for (int i = 0; i < 20; i++) {
            try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
                InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
                CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                    () -> MpaInitiator.connect(null, to, MpaParams.of(1, 1, null)), r -> Thread.ofVirtual().start(r));
                try (Socket s = raw.accept()) {
                    s.setSoTimeout(GUARD_MS);
                    CmTestSupport.readExactly(s, 24);
                    // a Reply selecting a Read RTR although only Write was offered, then a stream of octets
                    s.getOutputStream().write(hex(key + "10020004 80014001"));
                    assertThat(failed(client.get(GUARD_MS, TimeUnit.MILLISECONDS)).reason())
                        .isEqualTo(MpaFailure.NO_MATCHING_RTR);
                    s.getOutputStream().write(behind);
                    s.shutdownOutput();
                    byte[] got = s.getInputStream().readAllBytes(); // a reset would throw
                    assertThat(hex(got)).as("run %d: the Terminate, then an orderly close", i).contains("20070000");
                }
            }
        }
    }

    private record RawResult(MpaOutcome.Failed outcome, byte[] afterRequest) {
    }

    /** A raw responder that reads the Request, answers {@code reply}, closes after the initiator does. */
    private static RawResult rawResponder(byte[] reply) throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                () -> MpaInitiator.connect(null, to, MpaParams.of(1, 1, null)), r -> Thread.ofVirtual().start(r));
            if (reply.length == 0) {
                try (Socket s = raw.accept()) {
                    s.setSoTimeout(GUARD_MS);
                    CmTestSupport.readExactly(s, 24);
                }
                return new RawResult(failed(client.get(GUARD_MS, TimeUnit.MILLISECONDS)), new byte[0]);
            }
            try (Socket s = raw.accept()) {
                s.setSoTimeout(GUARD_MS);
                CmTestSupport.readExactly(s, 24);
                s.getOutputStream().write(reply);
                MpaOutcome.Failed f = failed(client.get(GUARD_MS, TimeUnit.MILLISECONDS));
                return new RawResult(f, CmTestSupport.readUntilClose(s));
            }
        }
    }

    /** A Terminate where the Reply should be is the peer's error, named, and not answered with a Terminate. */
    @Test
    void aTerminateInPlaceOfTheReplyIsThePeersError() throws Exception {
        // MPA length 22, untagged last DDP v1, RDMAP v1 Terminate, QN 2, MSN 1, MO 0, control LLP/MPA 0x07, CRC 0
        RawResult t = rawResponder(hex("0016" + "4147" + "00000000" + "00000002" + "00000001" + "00000000"
            + "20070000" + "00000000"));
        assertThat(t.outcome.reason()).isEqualTo(MpaFailure.TERMINATED);
        assertThat(t.outcome.detail()).contains("Terminate", "LLP_NO_MATCHING_RTR", "layer 2, type 0, code 0x07");
        assertThat(t.afterRequest).as("nothing sent back").isEmpty();
    }

    /**
     * A reject whose C differs from the Request's is a CRC policy refusal (siw with mpa_crc_strict); a consumer's reject
     * echoes C.
     */
    @Test
    void aRejectThatChangesTheCrcFlagIsACrcPolicyRefusal() throws Exception {
        String key = "4d504120494420526570204672616d65";
        for (boolean crc : new boolean[] {false, true}) {
            try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
                InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
                CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                    () -> MpaInitiator.connect(null, to, MpaParams.of(1, 1, null).withCrc(crc)),
                    r -> Thread.ofVirtual().start(r));
                try (Socket s = raw.accept()) {
                    s.setSoTimeout(GUARD_MS);
                    CmTestSupport.readExactly(s, 24);
                    // R = 1, S = 1, C the opposite of the Request's
                    s.getOutputStream().write(hex(key + (crc ? "30" : "70") + "020004 00010001"));
                    MpaOutcome o = client.get(GUARD_MS, TimeUnit.MILLISECONDS);
                    assertThat(o).isInstanceOf(MpaOutcome.Rejected.class);
                    assertThat(((MpaOutcome.Rejected) o).crcPolicy()).as("crc " + crc).isTrue();
                }
            }
        }
        try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                () -> MpaInitiator.connect(null, to, MpaParams.of(1, 1, null).withCrc(false)),
                r -> Thread.ofVirtual().start(r));
            try (Socket s = raw.accept()) {
                s.setSoTimeout(GUARD_MS);
                CmTestSupport.readExactly(s, 24);
                s.getOutputStream().write(hex(key + "30020006 00010001 6e6f"));
                MpaOutcome o = client.get(GUARD_MS, TimeUnit.MILLISECONDS);
                assertThat(o).isInstanceOf(MpaOutcome.Rejected.class);
                assertThat(((MpaOutcome.Rejected) o).crcPolicy()).as("C echoed").isFalse();
                assertThat(((MpaOutcome.Rejected) o).privateData()).containsExactly((byte) 'n', (byte) 'o');
            }
        }
    }

    @Test
    void fpdusRightBehindTheReplyAreHandedOver() throws Exception {
        ByteBuffer fpdus = ByteBuffer.allocate(256);
        FpduEncoder enc = new FpduEncoder(false);
        int n = enc.untagged(fpdus, 0, RdmapOpcode.SEND, true, 0, 0, 1, 0, ByteBuffer.wrap(SERVER_DATA), 0, SERVER_DATA.length);
        n += enc.tagged(fpdus, n, RdmapOpcode.RDMA_WRITE, true, 0x1234, 0, ByteBuffer.wrap(CLIENT_DATA), 0, CLIENT_DATA.length);
        byte[] stream = new byte[n];
        fpdus.get(0, stream);
        byte[] reply = hex("4d504120494420526570204672616d65 10020004 00010001");
        byte[] oneSegment = new byte[reply.length + stream.length];
        System.arraycopy(reply, 0, oneSegment, 0, reply.length);
        System.arraycopy(stream, 0, oneSegment, reply.length, stream.length);
        try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> client = CompletableFuture.supplyAsync(
                () -> MpaInitiator.connect(null, to, MpaParams.of(1, 1, null).withRtr(Set.of())), r -> Thread.ofVirtual().start(r));
            try (Socket s = raw.accept()) {
                s.setTcpNoDelay(true);
                s.setSoTimeout(GUARD_MS);
                CmTestSupport.readExactly(s, 24);
                s.getOutputStream().write(oneSegment); // one write: Reply and both FPDUs in one segment
                MpaOutcome.Accepted a = accepted(client.get(GUARD_MS, TimeUnit.MILLISECONDS));
                try (var c = a.channel()) {
                    // whatever was not read with the Reply is still in the socket: together they are the stream
                    ByteBuffer rest = ByteBuffer.allocate(stream.length - a.surplus().remaining());
                    CmTestSupport.readExactly(c, rest);
                    rest.flip();
                    byte[] got = new byte[stream.length];
                    a.surplus().get(0, got, 0, a.surplus().remaining());
                    rest.get(got, a.surplus().remaining(), rest.remaining());
                    assertThat(got).isEqualTo(stream);
                    assertThat(a.surplus().remaining()).as("loopback delivers the single segment at once").isEqualTo(stream.length);
                    assertThat(bytes(a.surplus())).isEqualTo(stream);
                }
            }
        }
    }

    @Test
    void listenerOnABusyAddressFailsClearly() throws Exception {
        try (MpaListener first = listen((r, c) -> c.close())) {
            MpaListenResult second = MpaListener.open(first.localAddress(), (r, c) -> c.close());
            assertThat(second).isInstanceOf(MpaListenResult.Failed.class);
            assertThat(((MpaListenResult.Failed) second).reason()).isEqualTo(MpaFailure.ADDRESS_IN_USE);
        }
    }

    @Test
    void initiatorBoundToABusyPortFails() throws Exception {
        try (ServerSocketChannel busy = ServerSocketChannel.open();
             MpaListener l = listen((r, c) -> c.close())) {
            busy.bind(ANY_LOOPBACK);
            MpaOutcome o = MpaInitiator.connect((InetSocketAddress) busy.getLocalAddress(), l.localAddress(),
                MpaParams.of(1, 1, null));
            assertThat(failed(o).reason()).isEqualTo(MpaFailure.ADDRESS_IN_USE);
        }
    }

    @Test
    void unresolvedDestinationIsAnInvalidAddress() {
        MpaOutcome o = MpaInitiator.connect(null, InetSocketAddress.createUnresolved("no.such.host.invalid", 1),
            MpaParams.of(1, 1, null));
        assertThat(failed(o).reason()).isEqualTo(MpaFailure.INVALID_ADDRESS);
    }

    @Test
    void interruptedConnectIsCancelled() throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 4, java.net.InetAddress.getLoopbackAddress())) {
            InetSocketAddress to = new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort());
            CompletableFuture<MpaOutcome> result = new CompletableFuture<>();
            Thread t = Thread.ofVirtual().start(() -> result.complete(MpaInitiator.connect(null, to, MpaParams.of(1, 1, null))));
            try (Socket s = raw.accept()) {
                s.setSoTimeout(GUARD_MS);
                CmTestSupport.readExactly(s, 24); // the initiator now waits for the Reply
                t.interrupt();
                assertThat(failed(result.get(GUARD_MS, TimeUnit.MILLISECONDS)).reason()).isEqualTo(MpaFailure.CANCELLED);
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
        }
    }
}
