package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.HostileKit.RECEIVES;
import static io.jndk.iwarp.hostile.HostileKit.WAIT_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.CmTestSupport;
import io.jndk.iwarp.codec.DdpTaggedHeaderFlyweight;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.iwarp.codec.TerminateCode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code READ_FENCE} against a peer that holds back its Read Response: a request posted with the flag behind an
 * outstanding RDMA Read does not start (a Bind does not bind, a Write does not leave) until the Read's response has
 * been placed, and then it runs. The raw peer is the Read's responder, so the test decides when the response goes.
 *
 * <p>While the response is held, the peer sends a Send and the consumer waits for its receive completion: by then
 * jndk has sent the Read Request and taken an inbound message after it. What it must not have done is checked from
 * that point: no initiator completion, and (for the Write) no octet from jndk within 300 ms; (for the Bind) the
 * window refuses the peer's write.
 */
@Timeout(60)
class ReadFenceTest {

    private static final byte[] RESPONSE = "response".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MARKER = "marker".getBytes(StandardCharsets.US_ASCII);
    /** The peer's (made-up) source of the Read: the raw peer answers from its own bytes. */
    private static final int PEER_SOURCE_STAG = 0x0012_3400;
    private static final long PEER_SOURCE_TO = 0x7000_0000L;
    /** Where the fenced Bind's window starts in the kit's region (the Read's sink is its first octets). */
    private static final int WINDOW_OFFSET = 64;
    /** The peer's (made-up) sink of the fenced Write. */
    private static final int PEER_SINK_STAG = 0x0056_7800;
    private static final long PEER_SINK_TO = 0x9000_0000L;

    private HostileKit kit;
    private HostileKit.Accepting established;
    private RawPeer peer;
    /** Every completion taken from the kit's CQ, in order. */
    private final List<NdkResultEx> seen = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        kit = new HostileKit();
        // jndk's outbound read limit and the peer's inbound one are 2: the limit alone does not hold the requests
        // behind the Read (at 1 it would), the fence must
        established = kit.prepare(1, 2);
        peer = RawPeer.establish(kit.address, false, 2, 1);
        assertThat(NtStatus.name(HostileKit.join(established.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
    }

    @AfterEach
    void close() throws Exception {
        if (peer == null) { // the test ended the connection
            try {
                kit.servesAValidConnection();
            } finally {
                kit.close();
            }
            return;
        }
        try (RawPeer p = peer) {
            // a graceful close: the consumer hears of it and closes its side, then jndk's socket closes
            p.socket.shutdownOutput();
            established.disconnected.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            kit.finish(established);
            assertThat(CmTestSupport.readUntilClose(p.socket)).isEmpty();
            assertThat(kit.receiveCompletions(RECEIVES - 1)).as("the receives the marker left, flushed")
                .allMatch(r -> r.status == NtStatus.STATUS_CANCELLED);
            kit.servesAValidConnection();
        } finally {
            kit.close();
        }
    }

    @Test
    void aFencedBindBindsOnceTheResponseIsPlaced() throws Exception {
        ReadRequestFlyweight request = postReadAndTakeItsRequest();
        NdkMw mw = postFencedBind();

        exchangeAMarkerWhileTheResponseIsHeld();
        assertThat(initiatorCompletions()).as("completions while the Read is outstanding").isEmpty();

        answer(request);
        assertThat(initiatorCompletionsAwaited(2)).as("the Read, then the Bind")
            .containsExactly("Read STATUS_SUCCESS", "Bind STATUS_SUCCESS");
        assertResponsePlaced();

        // the window now grants the peer's write
        byte[] through = "window".getBytes(StandardCharsets.US_ASCII);
        peer.write(peer.rdmaWrite(mw.getRemoteToken(), kit.rw.base() + WINDOW_OFFSET, through));
        HostileKit.await("the write through the window", () -> Arrays.equals(
            kit.rw.inner().asSlice(WINDOW_OFFSET, through.length).toArray(ValueLayout.JAVA_BYTE), through));
    }

    /**
     * The Bind's completion would wait behind the Read's in any case (completions come in posting order), so what
     * the fence holds back is shown by the window itself: the peer writes through it while the response is held, and
     * jndk refuses the write as naming an invalid STag. Then the Read and the Bind flush. The write goes after the
     * marker's exchange, so a Bind that ignored the fence would have had its time to run.
     */
    @Test
    void aWindowFencedBehindAnOutstandingReadIsNotYetBound() throws Exception {
        postReadAndTakeItsRequest();
        NdkMw mw = postFencedBind();
        exchangeAMarkerWhileTheResponseIsHeld();
        RawPeer.Terminate t;
        RawPeer p = peer;
        peer = null; // the test ends the connection itself
        try (p) {
            p.write(p.rdmaWrite(mw.getRemoteToken(), kit.rw.base() + WINDOW_OFFSET,
                "window".getBytes(StandardCharsets.US_ASCII)));
            try {
                t = p.readTerminateThenClose();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no Terminate for a write through a window not yet bound; the write was "
                    + (kit.rw.untouched() ? "not placed either" : "placed: the Bind ran before the Read's response"),
                    e);
            }
        }
        assertThat(t.code()).as("Terminate %s", t).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG);
        established.disconnected.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        kit.finish(established);
        assertThat(initiatorCompletionsAwaited(2)).as("the Read and the Bind, flushed")
            .containsExactly("Read STATUS_CANCELLED", "Bind STATUS_CANCELLED");
        HostileKit.await("the posted receives' completions", () -> {
            kit.takeCompletions(seen);
            return seen.stream().filter(HostileKit::isReceive).count() == RECEIVES;
        });
        assertThat(seen.stream().filter(HostileKit::isReceive).map(r -> NtStatus.name(r.status)))
            .as("the marker's receive, then the others flushed")
            .containsExactly("STATUS_SUCCESS", "STATUS_CANCELLED", "STATUS_CANCELLED", "STATUS_CANCELLED");
        assertThat(kit.rw.untouched()).as("the region behind the window").isTrue();
    }

    @Test
    void aFencedWriteLeavesOnlyAfterTheReadResponse() throws Exception {
        ReadRequestFlyweight request = postReadAndTakeItsRequest();
        byte[] data = "fenced write".getBytes(StandardCharsets.US_ASCII);
        MemorySegment source = kit.rw.inner().asSlice(128, data.length);
        source.copyFrom(MemorySegment.ofArray(data));
        HostileKit.ok("fenced write", established.qp.write("write", new NdkSge[] {
            new NdkSge(source.address(), data.length, kit.rw.mr().getLocalToken())}, 1, PEER_SINK_TO, PEER_SINK_STAG,
            NdkOpFlags.READ_FENCE));

        exchangeAMarkerWhileTheResponseIsHeld();
        assertThat(initiatorCompletions()).as("completions while the Read is outstanding").isEmpty();
        nothingArrivesFor(300);

        answer(request);
        byte[] fpdu = peer.readFpdu();
        ByteBuffer b = ByteBuffer.wrap(fpdu);
        assertThat(b.get(3) & 0x0F).as("opcode after the response").isEqualTo(RdmapOpcode.RDMA_WRITE.code());
        DdpTaggedHeaderFlyweight tagged = new DdpTaggedHeaderFlyweight().wrap(b, FpduFlyweight.ULPDU_OFFSET);
        assertThat(tagged.stag()).as("Write's sink STag").isEqualTo(PEER_SINK_STAG);
        assertThat(tagged.taggedOffset()).as("Write's sink TO").isEqualTo(PEER_SINK_TO);
        int payloadAt = FpduFlyweight.ULPDU_OFFSET + DdpTaggedHeaderFlyweight.LENGTH;
        assertThat(Arrays.copyOfRange(fpdu, payloadAt, payloadAt + data.length)).as("Write's payload").isEqualTo(data);
        assertThat(initiatorCompletionsAwaited(2)).as("the Read, then the Write")
            .containsExactly("Read STATUS_SUCCESS", "Write STATUS_SUCCESS");
        assertResponsePlaced();
    }

    /** Posts a Bind with READ_FENCE of a 64-octet window at {@link #WINDOW_OFFSET} of the kit's region. */
    private NdkMw postFencedBind() {
        NdkMw mw = kit.create(r -> kit.pd.createMw(null, null, r));
        HostileKit.ok("fenced bind", established.qp.bind("bind", kit.rw.mr(), mw, kit.rw.base() + WINDOW_OFFSET, 64,
            NdkOpFlags.READ_FENCE | NdkOpFlags.ALLOW_REMOTE_WRITE));
        return mw;
    }

    /** Nothing more comes from jndk within {@code millis}: a read of the peer's socket times out. */
    private void nothingArrivesFor(int millis) throws Exception {
        int before = peer.socket.getSoTimeout();
        peer.socket.setSoTimeout(millis);
        try {
            int got = peer.socket.getInputStream().read();
            throw new AssertionError(got < 0 ? "jndk closed the connection while the Read's response was held"
                : "jndk sent octets after the Read Request while its response was held");
        } catch (SocketTimeoutException expected) {
            // the fenced Write waits
        } finally {
            peer.socket.setSoTimeout(before);
        }
    }

    /** Posts an 8-octet Read into the start of the kit's region and returns the Read Request the peer receives. */
    private ReadRequestFlyweight postReadAndTakeItsRequest() throws Exception {
        HostileKit.ok("read", established.qp.read("read", new NdkSge[] {
            new NdkSge(kit.rw.base(), RESPONSE.length, kit.rw.mr().getLocalToken())}, 1, PEER_SOURCE_TO,
            PEER_SOURCE_STAG, 0));
        byte[] fpdu = peer.readFpdu();
        assertThat(fpdu[3] & 0x0F).as("opcode").isEqualTo(RdmapOpcode.RDMA_READ_REQUEST.code());
        ReadRequestFlyweight request = new ReadRequestFlyweight().wrap(ByteBuffer.wrap(fpdu),
            FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH);
        assertThat(request.readSize()).isEqualTo(RESPONSE.length);
        assertThat(request.sourceStag()).isEqualTo(PEER_SOURCE_STAG);
        assertThat(request.sourceTaggedOffset()).isEqualTo(PEER_SOURCE_TO);
        return request;
    }

    /** The peer sends a Send and the consumer takes its receive completion, the Read Response still held. */
    private void exchangeAMarkerWhileTheResponseIsHeld() throws Exception {
        peer.write(peer.send(1, MARKER));
        HostileKit.await("the marker's receive completion", () -> {
            kit.takeCompletions(seen);
            return seen.stream().anyMatch(HostileKit::isReceive);
        });
        assertThat(kit.receives.inner().asSlice(0, MARKER.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(MARKER);
    }

    private void answer(ReadRequestFlyweight request) throws Exception {
        peer.write(peer.readResponse(request.sinkStag(), request.sinkTaggedOffset(), RESPONSE));
    }

    private void assertResponsePlaced() {
        assertThat(kit.rw.inner().asSlice(0, RESPONSE.length).toArray(ValueLayout.JAVA_BYTE)).as("Read's sink")
            .isEqualTo(RESPONSE);
    }

    /** The initiator completions taken so far, as "TYPE STATUS". */
    private List<String> initiatorCompletions() {
        kit.takeCompletions(seen);
        return seen.stream()
            .filter(r -> !HostileKit.isReceive(r))
            .map(r -> NdkOperationType.name(r.type) + " " + NtStatus.name(r.status)).toList();
    }

    private List<String> initiatorCompletionsAwaited(int n) {
        HostileKit.await(n + " initiator completions", () -> initiatorCompletions().size() >= n);
        return initiatorCompletions();
    }
}
