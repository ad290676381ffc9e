package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.HostileKit.LENGTH;
import static io.jndk.iwarp.hostile.HostileKit.RECEIVES;
import static io.jndk.iwarp.hostile.HostileKit.RECEIVE_LENGTH;
import static io.jndk.iwarp.hostile.HostileKit.WAIT_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.CmTestSupport;
import io.jndk.iwarp.codec.TerminateCode;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A raw TCP peer does a valid MPA exchange with a jndk listener, then misbehaves on the established connection. For
 * every case: the Terminate jndk sends (layer/type/code per RFC 5040 section 8, RFC 5041 section 7, RFC 5044, with
 * siw's choices of IWARP.md 2.6 and 3.8 where the RFCs leave room), what the jndk consumer sees (receive completions,
 * the disconnect callback), that no octet outside a grant changed, that the same adapter then serves a valid
 * connection, and that closing everything returns sockets and threads (after each test).
 *
 * <p>jndk's memory regions are VA-based (the tagged offset is the virtual address, NDK's model): a "zero-based"
 * offset names an address below the region and is a base/bounds violation.
 */
@Timeout(60)
class HostileConnectionTest {

    private HostileKit kit;

    @BeforeEach
    void open() {
        kit = new HostileKit();
    }

    @AfterEach
    void close() throws Exception {
        try {
            kit.servesAValidConnection();
        } finally {
            kit.close();
        }
    }

    /** The receive completions the consumer saw after one hostile exchange. */
    record Outcome(List<NdkResultEx> receives) {
        List<String> statuses() {
            return receives.stream().map(r -> NtStatus.name(r.status)).toList();
        }
    }

    /** A step of the raw peer on an established connection. */
    interface Attack {
        byte[] frames(RawPeer peer) throws Exception;
    }

    /** An established connection with the kit's QP (IRD 1), before anything hostile. */
    private HostileKit.Accepting established;
    private RawPeer peer;
    /** The Terminate of the last {@link #attack}. */
    private RawPeer.Terminate terminate;

    private void establish(boolean crc, int ord) throws Exception {
        established = kit.prepare(1);
        peer = RawPeer.establish(kit.address, crc, ord);
        assertThat(NtStatus.name(HostileKit.join(established.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
    }

    /**
     * Establishes (unless a test did), lets the peer write the attack, and reads the Terminate jndk answers with;
     * then the consumer's side: disconnect indicated, every posted receive completed, connection objects closed,
     * guards intact.
     */
    private Outcome attack(boolean crc, int ord, Attack attack, TerminateCode expected) throws Exception {
        return attack(crc, ord, attack, expected, expected.copiesDdpHeader());
    }

    /** {@link #attack(boolean, int, Attack, TerminateCode)} with the D flag expected explicitly. */
    private Outcome attack(boolean crc, int ord, Attack attack, TerminateCode expected, boolean headerCopied)
        throws Exception {
        if (peer == null) {
            establish(crc, ord);
        }
        RawPeer.Terminate t;
        try (RawPeer p = peer) {
            p.write(attack.frames(p));
            t = p.readTerminateThenClose();
        }
        assertThat(t.code()).as("Terminate %s", t).isEqualTo(expected);
        assertThat(t.ddpHeaderCopied()).as("D flag of %s", t).isEqualTo(headerCopied);
        terminate = t;
        return consumerSide();
    }

    private Outcome consumerSide() throws Exception {
        established.disconnected.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        kit.finish(established);
        List<NdkResultEx> receives = kit.receiveCompletions(RECEIVES);
        kit.assertGuardsIntact();
        return new Outcome(receives);
    }

    private static void allCancelled(Outcome o) {
        assertThat(o.statuses()).as("posted receives flushed").containsOnly("STATUS_CANCELLED");
    }

    private void refused(Outcome o, HostileKit.Guarded target) {
        allCancelled(o);
        assertThat(target.untouched()).as("%s untouched", target.name()).isTrue();
    }

    private static final byte[] PAYLOAD = "hostile!".getBytes(StandardCharsets.US_ASCII);

    // ---- RDMA Write -------------------------------------------------------------------------------------

    @Test
    void writeToAnUnknownStag() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(0x00FF_FF00 | kit.rw.token() & 0xFF, kit.rw.base(), PAYLOAD),
            TerminateCode.DDP_TAGGED_INVALID_STAG);
        refused(o, kit.rw);
    }

    @Test
    void writeToStagZero() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(0, kit.rw.base(), PAYLOAD), TerminateCode.DDP_TAGGED_INVALID_STAG);
        refused(o, kit.rw);
    }

    @Test
    void writeWithAGuessedKey() throws Exception {
        int guessed = kit.rw.token() & ~0xFF | (kit.rw.token() + 1) & 0xFF; // right index, wrong key
        Outcome o = attack(false, 1, p -> p.rdmaWrite(guessed, kit.rw.base(), PAYLOAD),
            TerminateCode.DDP_TAGGED_INVALID_STAG);
        refused(o, kit.rw);
    }

    @Test
    void writeOneOctetPastTheEnd() throws Exception {
        long to = kit.rw.base() + LENGTH - PAYLOAD.length + 1;
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.rw.token(), to, PAYLOAD),
            TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION);
        refused(o, kit.rw);
    }

    @Test
    void writeBelowTheBase() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.rw.token(), kit.rw.base() - 1, PAYLOAD),
            TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION);
        refused(o, kit.rw);
    }

    @Test
    void writeWithAZeroBasedOffset() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.rw.token(), 0, PAYLOAD),
            TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION);
        refused(o, kit.rw);
    }

    @Test
    void writeWithAnOffsetThatWraps() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.rw.token(), -4L, PAYLOAD),
            TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION);
        refused(o, kit.rw);
    }

    @Test
    void writeToAReadOnlyRegion() throws Exception {
        // DDP has no access-rights code: siw (and jndk) answer Invalid STag (IWARP.md 2.6)
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.readOnly.token(), kit.readOnly.base(), PAYLOAD),
            TerminateCode.DDP_TAGGED_INVALID_STAG);
        refused(o, kit.readOnly);
    }

    @Test
    void writeToAnotherProtectionDomainsRegion() throws Exception {
        Outcome o = attack(false, 1, p -> p.rdmaWrite(kit.foreign.token(), kit.foreign.base(), PAYLOAD),
            TerminateCode.DDP_TAGGED_STAG_NOT_ASSOCIATED);
        refused(o, kit.foreign);
    }

    @Test
    void writeToAnInvalidatedToken() throws Exception {
        establish(false, 1);
        NdkLogicalAddressMapping lam = new NdkLogicalAddressMapping(2);
        IntRef fbo = new IntRef();
        HostileKit.ok("build LAM", HostileKit.request(rc -> kit.adapter.buildLam(Mdl.of(kit.rw.inner()), LENGTH, rc,
            null, lam, new IntRef(lam.capacityBytes()), fbo)));
        try {
            NdkMr fr = kit.create(r -> kit.pd.createMr(true, null, null, r));
            HostileKit.ok("initialize", HostileKit.request(rc -> fr.initializeFastRegisterMr(2, true, rc, null)));
            long va = 0x10_0000L + fbo.value;
            HostileKit.ok("fast register", established.qp.fastRegister("fr", fr, lam.adapterPageCount(),
                lam.adapterPages(), fbo.value, LENGTH, va, NdkOpFlags.ALLOW_REMOTE_WRITE));
            expectInitiatorSuccess(NdkOperationType.FAST_REGISTER);
            int token = fr.getRemoteToken();
            // the registration grants the write
            peer.write(peer.rdmaWrite(token, va, PAYLOAD));
            HostileKit.await("the write through the fast-registered token",
                () -> kit.rw.inner().get(ValueLayout.JAVA_BYTE, 0) == PAYLOAD[0]);
            kit.rw.refill();
            HostileKit.ok("invalidate", established.qp.invalidate("inv", fr, 0));
            expectInitiatorSuccess(NdkOperationType.INVALIDATE);
            Outcome o = attack(false, 1, p -> p.rdmaWrite(token, va, PAYLOAD), TerminateCode.DDP_TAGGED_INVALID_STAG);
            refused(o, kit.rw);
        } finally {
            kit.adapter.releaseLam(lam);
        }
    }

    /**
     * A large Write is partly placed (the receive thread waits for the rest of its payload) when the consumer closes
     * its QP, which aborts the connection. The rest of the Write, sent by the peer after it has read jndk's Terminate
     * and while it keeps the connection open, must never land in the target: a read straight into the target only
     * takes what has arrived, so the receive thread waits in a buffered read instead, sees the failure and drains.
     */
    @Test
    void restOfALargeWriteAfterALocalAbortIsNotPlaced() throws Exception {
        int size = 32 * 1024;
        int first = 8 * 1024;
        HostileKit.Guarded big = kit.register("big", kit.pd, size, HostileKit.ALL);
        establish(false, 1);
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) 0x5A);
        byte[] fpdu = peer.rdmaWrite(big.token(), big.base(), payload);
        int headerLength = 16;
        try (RawPeer p = peer) {
            p.write(Arrays.copyOf(fpdu, headerLength + first));
            HostileKit.await("the first part of the Write placed",
                () -> big.inner().get(ValueLayout.JAVA_BYTE, first - 1) == (byte) 0x5A);
            // the consumer closes its QP while connected: a local abort with a Terminate (the close itself completes
            // once the connector is closed too)
            java.util.concurrent.CompletableFuture<Void> qpClosed = new java.util.concurrent.CompletableFuture<>();
            if (established.qp.close(ctx -> qpClosed.complete(null), null) != NtStatus.STATUS_PENDING) {
                qpClosed.complete(null);
            }
            p.readUntilTerminate();
            try {
                p.write(Arrays.copyOfRange(fpdu, headerLength + first, fpdu.length));
            } catch (java.io.IOException reset) {
                // jndk may already have closed: nothing can be placed then either
            }
            CmTestSupport.readUntilClose(p.socket);
            kit.finish(established);
            qpClosed.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        }
        allCancelled(new Outcome(kit.receiveCompletions(RECEIVES)));
        byte[] placed = big.inner().toArray(ValueLayout.JAVA_BYTE);
        for (int i = first; i < size; i++) {
            assertThat(placed[i]).as("target octet %d, sent after the abort", i).isEqualTo(HostileKit.FILL);
        }
        assertThat(big.guardsIntact()).isTrue();
        peer = null;
    }

    @Test
    void writeToAWindowAfterUnbind() throws Exception {
        establish(false, 1);
        NdkMw mw = kit.create(r -> kit.pd.createMw(null, null, r));
        HostileKit.ok("bind", established.qp.bind("bind", kit.rw.mr(), mw, kit.rw.base(), LENGTH,
            NdkOpFlags.ALLOW_REMOTE_WRITE));
        expectInitiatorSuccess(NdkOperationType.BIND);
        int window = mw.getRemoteToken();
        // the bound window grants the write
        peer.write(peer.rdmaWrite(window, kit.rw.base(), PAYLOAD));
        HostileKit.await("the write through the window", () -> kit.rw.inner().get(ValueLayout.JAVA_BYTE, 0) == PAYLOAD[0]);
        kit.rw.refill();
        HostileKit.ok("unbind", established.qp.invalidate("unbind", mw, 0));
        expectInitiatorSuccess(NdkOperationType.INVALIDATE);
        Outcome o = attack(false, 1, p -> p.rdmaWrite(window, kit.rw.base(), PAYLOAD),
            TerminateCode.DDP_TAGGED_INVALID_STAG);
        refused(o, kit.rw);
    }

    private void expectInitiatorSuccess(int type) {
        NdkResultEx r = kit.completion();
        assertThat(NdkOperationType.name(r.type)).isEqualTo(NdkOperationType.name(type));
        assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_SUCCESS");
    }

    // ---- RDMA Read Request ------------------------------------------------------------------------------

    @Test
    void readRequestBeyondTheInboundReadLimit() throws Exception {
        // the peer announced ORD 0, so jndk's IRD for this connection is 0: any Read Request is one too many
        Outcome o = attack(false, 0, p -> p.readRequest(1, 8, kit.rw.token(), kit.rw.base()),
            TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        allCancelled(o);
    }

    @Test
    void readRequestsBeyondANegotiatedInboundReadLimitOfOne() throws Exception {
        int size = 32 << 20; // more than loopback socket buffers hold: the first response is still streaming
        HostileKit.Guarded big = kit.register("big", kit.pd, size, HostileKit.ALL);
        Outcome o = attack(false, 1, p -> RawPeer.concat(p.readRequest(1, size, big.token(), big.base()),
            p.readRequest(2, 8, big.token(), big.base())), TerminateCode.RDMAP_CATASTROPHIC_STREAM);
        allCancelled(o);
    }

    @Test
    void readRequestNamingAnUnknownSource() throws Exception {
        Outcome o = attack(false, 1, p -> p.readRequest(1, 8, 0x00FF_FF00, kit.rw.base()),
            TerminateCode.RDMAP_INVALID_STAG);
        allCancelled(o);
        assertThat(terminate.rdmaHeaderCopied()).as("R: the Read Request header attached").isTrue();
        assertThat(terminate.fpdu()).as("2 + 18 + 28 octets attached (IWARP.md 3.8)").hasSize(76);
    }

    @Test
    void readRequestBeyondTheSourceRegion() throws Exception {
        Outcome o = attack(false, 1, p -> p.readRequest(1, LENGTH + 1, kit.rw.token(), kit.rw.base()),
            TerminateCode.RDMAP_BASE_BOUNDS_VIOLATION);
        allCancelled(o);
    }

    @Test
    void readRequestFromARegionWithoutRemoteRead() throws Exception {
        Outcome o = attack(false, 1, p -> p.readRequest(1, 8, kit.receives.token(), kit.receives.base()),
            TerminateCode.RDMAP_ACCESS_RIGHTS_VIOLATION);
        allCancelled(o);
    }

    @Test
    void readRequestFromAnotherProtectionDomainsRegion() throws Exception {
        Outcome o = attack(false, 1, p -> p.readRequest(1, 8, kit.foreign.token(), kit.foreign.base()),
            TerminateCode.RDMAP_STAG_NOT_ASSOCIATED);
        allCancelled(o);
    }

    // ---- Send -------------------------------------------------------------------------------------------

    @Test
    void sendWithAWrongQueueNumber() throws Exception {
        Outcome o = attack(false, 1, p -> p.send(3, 1, 0, true, PAYLOAD), TerminateCode.DDP_UNTAGGED_INVALID_QN);
        allCancelled(o);
    }

    @Test
    void sendWithAWrongMsn() throws Exception {
        Outcome o = attack(false, 1, p -> p.send(0, 7, 0, true, PAYLOAD), TerminateCode.DDP_UNTAGGED_MSN_RANGE);
        allCancelled(o);
    }

    @Test
    void sendWithAWrongMessageOffset() throws Exception {
        Outcome o = attack(false, 1, p -> p.send(0, 1, 8, true, PAYLOAD), TerminateCode.DDP_UNTAGGED_INVALID_MO);
        allCancelled(o);
    }

    @Test
    void sendWithAWrongMessageOffsetInItsSecondSegment() throws Exception {
        Outcome o = attack(false, 1, p -> RawPeer.concat(p.send(0, 1, 0, false, PAYLOAD), p.send(0, 1, 4, true, PAYLOAD)),
            TerminateCode.DDP_UNTAGGED_INVALID_MO);
        allCancelled(o);
    }

    @Test
    void sendWithAWrongDdpVersion() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[2] = (byte) (f[2] & ~0x03 | 0x02); // DV = 2
            return p.reseal(f);
        }, TerminateCode.DDP_UNTAGGED_INVALID_VERSION);
        allCancelled(o);
    }

    @Test
    void writeWithAWrongDdpVersion() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] f = p.rdmaWrite(kit.rw.token(), kit.rw.base(), PAYLOAD);
            f[2] = (byte) (f[2] & ~0x03); // DV = 0
            return p.reseal(f);
        }, TerminateCode.DDP_TAGGED_INVALID_VERSION);
        refused(o, kit.rw);
    }

    @Test
    void sendWithAWrongRdmapVersion() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[3] = (byte) (f[3] & 0x3F | 0x80); // RV = 2
            return p.reseal(f);
        }, TerminateCode.RDMAP_INVALID_VERSION);
        allCancelled(o);
    }

    @Test
    void reservedOpcode() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[3] = (byte) (f[3] & 0xF0 | 0x0C); // opcode 12: reserved
            return p.reseal(f);
        }, TerminateCode.RDMAP_UNEXPECTED_OPCODE);
        allCancelled(o);
    }

    @Test
    void sendLongerThanThePostedReceive() throws Exception {
        // RFC 5041 has a code for it (0x05); siw answers 0x02 instead (IWARP.md 2.6); jndk follows the RFC
        byte[] big = new byte[RECEIVE_LENGTH + 1];
        Arrays.fill(big, (byte) 0x77);
        Outcome o = attack(false, 1, p -> p.send(1, big), TerminateCode.DDP_UNTAGGED_MESSAGE_TOO_LONG);
        assertThat(o.statuses().get(0)).as("the receive the Send was placed into").isEqualTo("STATUS_BUFFER_OVERFLOW");
        assertThat(o.statuses().subList(1, RECEIVES)).containsOnly("STATUS_CANCELLED");
    }

    @Test
    void sendWhenNoReceiveIsPosted() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] all = new byte[0];
            for (int i = 1; i <= RECEIVES + 1; i++) {
                all = RawPeer.concat(all, p.send(i, PAYLOAD));
            }
            return all;
        }, TerminateCode.DDP_UNTAGGED_NO_BUFFER);
        assertThat(o.statuses()).as("the four Sends that found a receive").containsOnly("STATUS_SUCCESS");
    }

    // ---- MPA framing ------------------------------------------------------------------------------------

    @Test
    void badCrc() throws Exception {
        Outcome o = attack(true, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[f.length - 1] ^= 0x5A;
            return f;
        }, TerminateCode.LLP_CRC_ERROR);
        // the payload may already sit in the posted receive (inside its grant) when the trailer is checked, as with
        // siw; the receive completes in error, so nothing of the frame is delivered
        allCancelled(o);
    }

    @Test
    void ulpduLengthThatLiesIsCaughtByTheCrc() throws Exception {
        Outcome o = attack(true, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[1] += 8; // 8 octets more than the Send has: the next frame's first octets become its payload
            return RawPeer.concat(f, p.send(2, PAYLOAD));
        }, TerminateCode.LLP_CRC_ERROR);
        allCancelled(o);
    }

    @Test
    void ulpduLengthShorterThanTheHeader() throws Exception {
        Outcome o = attack(false, 1, p -> {
            byte[] f = p.send(1, PAYLOAD);
            f[0] = 0;
            f[1] = 8; // the Send's own header is 18 octets
            return f;
        }, TerminateCode.RDMAP_CATASTROPHIC_STREAM, false); // no whole DDP header to copy
        allCancelled(o);
    }

    @Test
    void ulpduLengthLongerThanWhatFollows() throws Exception {
        // the length claims 64 more octets than the peer ever sends, then the peer half-closes: no FPDU boundary
        // to send a Terminate at, so jndk closes
        establish(false, 1);
        byte[] f = peer.send(1, PAYLOAD);
        int ulpdu = (f[0] & 0xFF) << 8 | f[1] & 0xFF;
        f[0] = (byte) (ulpdu + 64 >>> 8);
        f[1] = (byte) (ulpdu + 64);
        try (RawPeer p = peer) {
            p.write(f);
            p.socket.shutdownOutput();
            // a stream that ends inside an FPDU is a lost connection, not an orderly close: the QP fails and its
            // receives are flushed without waiting for the consumer (the one the partial payload went into, inside
            // its grant, included); jndk closes without a Terminate
            established.disconnected.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            assertThat(kit.receiveCompletions(RECEIVES)).extracting(r -> NtStatus.name(r.status))
                .containsOnly("STATUS_CANCELLED");
            assertThat(CmTestSupport.readUntilClose(p.socket)).as("closed without a Terminate").isEmpty();
        }
        kit.finish(established);
        kit.assertGuardsIntact();
    }

    // ---- Terminate from the peer ------------------------------------------------------------------------

    @Test
    void terminateFromThePeer() throws Exception {
        establish(false, 1);
        try (RawPeer p = peer) {
            p.write(p.terminate(TerminateCode.RDMAP_LOCAL_CATASTROPHIC));
            assertThat(p.closeAndDrain()).as("a Terminate is never answered").isEmpty();
        }
        allCancelled(consumerSide());
    }

    // ---- the connection after the attack ----------------------------------------------------------------
}
