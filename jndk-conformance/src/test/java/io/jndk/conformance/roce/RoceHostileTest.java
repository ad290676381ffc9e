package io.jndk.conformance.roce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RoceOpcode;
import io.jndk.roce.mad.GsiPacket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile packets at a roce responder, sent from the peer's address into an established connection (through the
 * relay, which knows the connection's QP number and PSN): each gets the silent drop or the NAK the IBTA rules give
 * (docs/INTEROP-ROCE.md lists them), no memory outside a grant changes, and nothing crashes or hangs. Also a network
 * that holds back a Read's response, against which a request posted with READ_FENCE must wait.
 */
@Timeout(120)
class RoceHostileTest {
    World w;
    UdpFaultRelay relay;
    NdkAdapter a;
    NdkAdapter b;
    NdkPd pdA;
    NdkPd pdB;
    NdkCq cqA;
    NdkCq cqB;
    Conn.Listening listening;
    Buffer src;
    Buffer dst;
    NdkMr srcMr;
    NdkMr dstMr;
    NdkQp qa;
    NdkQp qb;
    NdkConnector ca;
    NdkConnector cb;
    final RocePacketEncoder encoder = new RocePacketEncoder();

    @BeforeEach
    void open() throws IOException {
        int portA = freeUdpPort();
        int portB = freeUdpPort();
        relay = new UdpFaultRelay(portA, portB);
        w = new World(new Mode("roce", false));
        a = w.adapter(Map.of("udp.port", "" + portA, "udp.peer.port", "" + relay.portForA()));
        b = w.adapter(Map.of("udp.port", "" + portB, "udp.peer.port", "" + relay.portForB()));
        pdA = w.pd(a);
        pdB = w.pd(b);
        cqA = w.cq(a, 64);
        cqB = w.cq(b, 64);
        listening = Conn.listen(w, b);
        src = w.buffer(16384).fillRandom(7);
        dst = w.buffer(16384).fill((byte) 0x11);
        srcMr = w.registerAll(pdA, src);
        dstMr = w.registerAll(pdB, dst);
        qa = w.qp(pdA, cqA, cqA, "qa", 16, 16, 2, 2, 0);
        qb = w.qp(pdB, cqB, cqB, "qb", 16, 16, 2, 2, 0);
        ca = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ca, qa, listening.address, 4, 4, null);
        cb = listening.next();
        CompletableFuture<Integer> accept = Conn.accept(cb, qb, 4, 4, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ca, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        // one real Write: the relay learns B's QPN and the next PSN
        write(0, 100, 0);
    }

    @AfterEach
    void close() throws IOException {
        try {
            w.close();
        } finally {
            relay.close();
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    /** A real Write from A (src offset {@code from}) to B's {@code at}, which must complete and land. */
    private void write(int from, int len, int at) {
        assertThat(qa.write("w" + at, new NdkSge[] {src.sge(from, len, srcMr.getLocalToken())}, 1, dst.address() + at,
            dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(cqA);
        assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_SUCCESS));
        dst.assertSame(at, src, from, len);
    }

    private int nextPsn() {
        return (relay.lastPsnTowardB + 1) & 0xFFFFFF;
    }

    /** An RDMA WRITE Only of {@code len} octets of 0xEE to {@code va} under {@code rkey}. */
    private byte[] writeOnly(int qpn, int psn, long va, int rkey, int len) {
        ByteBuffer buf = ByteBuffer.allocate(len + 64);
        encoder.begin(buf, 0, RoceOpcode.RDMA_WRITE_ONLY);
        encoder.bth().destQp(qpn).psn(psn).ackRequest(true);
        encoder.reth().virtualAddress(va).rkey(rkey).dmaLength(len);
        for (int i = 0; i < len; i++) {
            buf.put(encoder.payloadOffset() + i, (byte) 0xEE);
        }
        encoder.payloadLength(len);
        int n = encoder.finish();
        byte[] p = new byte[n];
        buf.get(0, p);
        return p;
    }

    /** B's device counter {@code name} ({@link NdkAdapter#deviceCounters()}): how the device filed what it was sent. */
    private long deviceB(String name) {
        Map<String, Long> all = Kit.deviceCounters(b);
        Long v = all.get(name);
        assertThat(v).as("device counter %s of %s", name, all.keySet()).isNotNull();
        return v;
    }

    /**
     * The next incoming connector whose private data is {@code mark} as the peer reads it ({@link Mode#carried});
     * a storm's request handed over late (a slot the rejects freed) is rejected on the way.
     */
    private NdkConnector nextWith(byte[] mark) {
        byte[] carried = w.mode.carried(mark, Mode.REQ);
        for (int i = 0; i < 1_000; i++) {
            NdkConnector c = listening.next();
            if (java.util.Arrays.equals(Conn.connectionData(c, null, null), carried)) {
                return c;
            }
            assertThat(c.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        throw new AssertionError("no connection request with the private data " + java.util.Arrays.toString(mark));
    }

    /** Whether B's connection still carries a real Write, with nothing of the hostile packets placed. */
    private void stillWorksAndUntouched() {
        write(200, 300, 4096);
        dst.assertFilled(1000, 2000, (byte) 0x11);
        dst.assertFilled(8192, 8192, (byte) 0x11);
    }

    /**
     * A Write posted with READ_FENCE behind a Read whose response the relay holds: no Write packet leaves A and
     * nothing completes until the response is let through; then the Read completes and the Write lands. The checks
     * wait until A has sent its Read again (its ACK timeout: the suite's exponent 17, 537 ms, so about four seconds
     * pass before A's seven resends run out): by then a Write it were free to send would have gone long since.
     */
    @Test
    void aFencedWriteWaitsForTheReadResponseTheNetworkHoldsBack() throws IOException {
        relay.holdReadResponses();
        long writesBefore = relay.writesTowardB.get();
        long resentBefore = relay.retransmissions.get();
        assertThat(qa.read("read", new NdkSge[] {src.sge(8192, 100, srcMr.getLocalToken())}, 1, dst.address(),
            dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(qa.write("fenced", new NdkSge[] {src.sge(200, 300, srcMr.getLocalToken())}, 1, dst.address() + 4096,
            dstMr.getRemoteToken(), NdkOpFlags.READ_FENCE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("B's Read Response held by the relay", () -> relay.heldResponses() > 0);
        Kit.awaitTrue("A's Read sent again", () -> relay.retransmissions.get() > resentBefore);
        assertThat(relay.writesTowardB.get() - writesBefore).as("Write packets sent while the Read is open").isZero();
        Kit.assertEmpty(cqA); // nothing completes while the Read is open
        dst.assertFilled(4096, 300, (byte) 0x11);
        relay.releaseHeldResponses();
        NdkResultEx[] done = Kit.poll(cqA, 2);
        assertThat(Arrays.stream(done).map(r -> NdkOperationType.name(r.type) + " " + NtStatus.name(r.status)))
            .containsExactly("Read STATUS_SUCCESS", "Write STATUS_SUCCESS");
        src.assertSame(8192, dst, 0, 100);
        dst.assertSame(4096, src, 200, 300);
    }

    @Test
    void aPacketWithABadIcrcIsDroppedSilently() throws IOException {
        long executed = deviceB("rc_requests_executed");
        relay.inject(writeOnly(relay.lastQpTowardB, nextPsn(), dst.address() + 1000, dstMr.getRemoteToken(), 64), false);
        stillWorksAndUntouched();
        assertThat(b.counters().get(NdkCounter.TERMINATES_SENT)).isZero();
        assertThat(deviceB("icrc_bad")).as("filed as ICRC bad").isEqualTo(1);
        assertThat(deviceB("rc_requests_executed")).as("the real Write only").isEqualTo(executed + 1);
    }

    @Test
    void aPacketForAnUnknownQpIsDroppedSilently() throws IOException {
        relay.inject(writeOnly(relay.lastQpTowardB ^ 0x5A5A, nextPsn(), dst.address() + 1000, dstMr.getRemoteToken(), 64),
            true);
        stillWorksAndUntouched();
        assertThat(b.counters().get(NdkCounter.TERMINATES_SENT)).isZero();
        assertThat(deviceB("unknown_qpn")).as("filed as for an unknown QP").isEqualTo(1);
        assertThat(deviceB("icrc_bad")).isZero();
    }

    @Test
    void psnsFarAheadOrBehindTheWindowAreNotExecuted() throws IOException {
        int e = nextPsn();
        // ahead: one PSN sequence error NAK, nothing executed; behind (a duplicate): re-acknowledged, not executed
        relay.inject(writeOnly(relay.lastQpTowardB, (e + (1 << 22)) & 0xFFFFFF, dst.address() + 1000,
            dstMr.getRemoteToken(), 64), true);
        relay.inject(writeOnly(relay.lastQpTowardB, (e - (1 << 22)) & 0xFFFFFF, dst.address() + 1100,
            dstMr.getRemoteToken(), 64), true);
        relay.inject(writeOnly(relay.lastQpTowardB, (e - 1) & 0xFFFFFF, dst.address() + 1200, dstMr.getRemoteToken(), 64),
            true);
        stillWorksAndUntouched();
        assertThat(b.counters().get(NdkCounter.TERMINATES_SENT)).isZero();
        assertThat(deviceB("rc_out_of_sequence_requests")).as("the one ahead").isEqualTo(1);
        assertThat(deviceB("rc_sequence_naks_sent")).as("one NAK for it").isEqualTo(1);
        // A resends the real Write if B's NAK for the packet ahead reaches it while the Write is outstanding, or if a
        // slow machine outlasts A's ACK timer: each resend is a duplicate at B too, and may still be on its way when
        // the Write completes
        Kit.awaitTrue("B's duplicates are the two behind and what A resent",
            () -> deviceB("rc_duplicate_requests") == 2 + Kit.deviceCounters(a).get("rc_retransmitted_packets"));
    }

    @Test
    void aBadRkeyIsARemoteAccessErrorNakAndTouchesNothing() throws IOException {
        relay.inject(writeOnly(relay.lastQpTowardB, nextPsn(), dst.address() + 1000, dstMr.getRemoteToken() ^ 0x100, 64),
            true);
        Kit.awaitTrue("B sent the NAK (its Terminate counterpart)", () -> b.counters().get(NdkCounter.TERMINATES_SENT) == 1);
        Kit.awaitTrue("B's QP in error", () -> qb.write(null, new NdkSge[0], 0, 0, 0, 0) == NtStatus.STATUS_CONNECTION_INVALID);
        dst.assertFilled(1000, 2000, (byte) 0x11);
        assertThat(deviceB("rc_error_naks_sent")).as("the remote access error NAK").isEqualTo(1);
    }

    @Test
    void aRethLengthPastTheRegionIsARemoteAccessErrorNakAndTouchesNothing() throws IOException {
        // the last 32 octets of the region, and 64 asked: the check refuses the whole range before any byte moves
        relay.inject(writeOnly(relay.lastQpTowardB, nextPsn(), dst.address() + dst.size() - 32, dstMr.getRemoteToken(), 64),
            true);
        Kit.awaitTrue("B sent the NAK", () -> b.counters().get(NdkCounter.TERMINATES_SENT) == 1);
        dst.assertFilled(dst.size() - 32, 32, (byte) 0x11);
        dst.assertGuardsIntact();
        assertThat(deviceB("rc_error_naks_sent")).as("the remote access error NAK").isEqualTo(1);
    }

    @Test
    void truncatedAndRandomPacketsAreDroppedSilently() throws IOException {
        byte[] good = writeOnly(relay.lastQpTowardB, nextPsn(), dst.address() + 1000, dstMr.getRemoteToken(), 64);
        for (int n = 0; n < 44; n++) { // every cut inside BTH + RETH and into the payload
            byte[] cut = new byte[n];
            System.arraycopy(good, 0, cut, 0, n);
            relay.injectRaw(cut);
        }
        Random r = new Random(17);
        for (int i = 0; i < 2_000; i++) { // seeded junk with the connection's QPN, some with a good ICRC
            byte[] p = new byte[16 + r.nextInt(300)];
            r.nextBytes(p);
            int q = relay.lastQpTowardB;
            p[5] = (byte) (q >>> 16);
            p[6] = (byte) (q >>> 8);
            p[7] = (byte) q;
            p[0] = (byte) (p[0] & 0x1F | 0x00); // RC opcodes, most of them invalid in this state
            if (r.nextBoolean()) {
                relay.inject(p, true);
            } else {
                relay.injectRaw(p);
            }
        }
        // junk that decodes as an in-sequence request may legitimately fail the QP (an invalid request NAK); what
        // must hold is that nothing outside a grant was written and the device still serves other connections
        dst.assertFilled(8192, 8192, (byte) 0x11);
        dst.assertGuardsIntact();
        NdkQp qa2 = w.qp(pdA, cqA, cqA, "qa2", 4, 4, 1, 1, 0);
        NdkQp qb2 = w.qp(pdB, cqB, cqB, "qb2", 4, 4, 1, 1, 0);
        NdkConnector ca2 = Conn.connector(w, a);
        byte[] mark = {0x72, 0x65, 0x61, 0x6C};
        CompletableFuture<Integer> connect = Conn.connect(ca2, qa2, listening.address, 1, 1, mark);
        NdkConnector cb2 = nextWith(mark);
        CompletableFuture<Integer> accept = Conn.accept(cb2, qb2, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ca2, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void aStormOfConnectionRequestsIsBoundedAndARealConnectionStillGetsThrough() throws IOException {
        // 5,000 well-formed CM REQs for the listener's port from 5,000 communication IDs: the CM holds at most its
        // pending bound (256) and answers the rest with REJ "no resources"; the listener sees at most that many
        io.jndk.roce.cm.CmAgent storm = new io.jndk.roce.cm.CmAgent(
            io.jndk.roce.cm.Gid.ipv4Mapped(0x7F000001), io.jndk.roce.cm.CmConfig.rdmaCm(42).withBounds(256, 8192),
            System::nanoTime, io.jndk.roce.cm.CmIdSource.linuxStyle(new Random(5)), (to, mad) -> {
                ByteBuffer g = ByteBuffer.allocate(GsiPacket.LENGTH + 16);
                int at = GsiPacket.begin(encoder, g, 0, 0);
                g.put(at, mad, 0, 256);
                int n = encoder.finish();
                byte[] p = new byte[n];
                g.get(0, p);
                try {
                    relay.inject(p, true);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        for (int i = 0; i < 5_000; i++) {
            storm.newConnection(e -> { }).connect(new io.jndk.roce.cm.ConnectParams(io.jndk.roce.cm.Gid.ipv4Mapped(0x7F000001),
                40_000 + i % 20_000, listening.address.getPort(), 0x100 + i, i, 1, 1, null));
        }
        // the injected REQs and this Write reach B through the same relay socket, in order: once it completes, B has
        // taken every REQ of the storm that its socket kept
        write(300, 100, 6000);
        Kit.awaitTrueOrTimeout(() -> listening.incoming.size() >= 256);
        int seen = listening.incoming.size();
        assertThat(seen).as("requests the listener was handed").isLessThanOrEqualTo(256);
        while (!listening.incoming.isEmpty()) {
            NdkConnector c = listening.incoming.poll();
            assertThat(c.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        NdkQp qa2 = w.qp(pdA, cqA, cqA, "qa2", 4, 4, 1, 1, 0);
        NdkQp qb2 = w.qp(pdB, cqB, cqB, "qb2", 4, 4, 1, 1, 0);
        NdkConnector ca2 = Conn.connector(w, a);
        byte[] mark = {0x72, 0x65, 0x61, 0x6C};
        CompletableFuture<Integer> connect = Conn.connect(ca2, qa2, listening.address, 1, 1, mark);
        NdkConnector cb2 = nextWith(mark);
        CompletableFuture<Integer> accept = Conn.accept(cb2, qb2, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ca2, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        stillWorksAndUntouched();
    }
}
