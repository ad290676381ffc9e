package io.jndk.roce.rc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.AethFlyweight.NakCode;
import io.jndk.roce.codec.Psn;
import io.jndk.roce.codec.RoceOpcode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The requester alone, fed hand-built responses on a hand-moved clock: one rule per test. */
class RequesterTest {

    private static final int T10 = 10;
    private long now;
    private final List<RcPair.SendCompletion> done = new ArrayList<>();
    private final Capture wire = new Capture();

    private Requester requester(RcConfig config, int psn) {
        return new Requester(config, psn, () -> now, (id, op, st, len) -> done.add(new RcPair.SendCompletion(id, op, st, len, now)));
    }

    private static RcConfig config(int mtu) {
        return RcConfig.rxeDefaults().toBuilder().pathMtu(mtu).destQpn(0x11).localAckTimeout(T10).build();
    }

    private static LocalBuffer bytes(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + length);
        }
        return LocalBuffer.wrap(ByteBuffer.wrap(b));
    }

    private List<RcStatus> statuses() {
        return done.stream().map(RcPair.SendCompletion::status).collect(Collectors.toList());
    }

    @ParameterizedTest(name = "MTU {0}")
    @ValueSource(ints = {256, 512, 1024, 2048, 4096})
    void segmentsEveryMessageAtThePathMtu(int mtu) {
        int[] sizes = {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu, 3 * mtu + 5};
        for (RcOperation op : new RcOperation[] {RcOperation.SEND, RcOperation.RDMA_WRITE, RcOperation.SEND_WITH_INVALIDATE}) {
            Requester r = requester(config(mtu).toBuilder().window(1 << 16, 1 << 16).build(), 0xFFFFF0);
            for (int size : sizes) {
                assertThat(r.post(size, op, bytes(size), 0xABC000L + size, 0x77, 0x55)).isEqualTo(PostResult.OK);
            }
            r.poll(wire, 1000);
            List<Packet> packets = wire.take();
            int psn = 0xFFFFF0;
            int at = 0;
            for (int size : sizes) {
                int n = Math.max(1, (size + mtu - 1) / mtu);
                ByteArrayOutputStream payload = new ByteArrayOutputStream();
                for (int i = 0; i < n; i++) {
                    Packet p = packets.get(at++);
                    RoceOpcode.Position expected = n == 1 ? RoceOpcode.Position.ONLY : i == 0 ? RoceOpcode.Position.FIRST
                        : i == n - 1 ? RoceOpcode.Position.LAST : RoceOpcode.Position.MIDDLE;
                    assertThat(p.opcode.position()).as("%s of %d, packet %d", op, size, i).isEqualTo(expected);
                    assertThat(p.opcode).isEqualTo(Requester.opcode(op, i == 0, i == n - 1));
                    assertThat(p.psn).as("PSNs run on across the wrap").isEqualTo(psn);
                    psn = Psn.next(psn);
                    assertThat(p.ackRequest).as("AckReq only on the last packet").isEqualTo(i == n - 1);
                    assertThat(p.destQp).isEqualTo(0x11);
                    assertThat(p.payloadLength).isEqualTo(i < n - 1 ? mtu : size - (n - 1) * mtu);
                    boolean reth = op == RcOperation.RDMA_WRITE && i == 0;
                    assertThat(p.rethLength).isEqualTo(reth ? size : -1);
                    if (reth) {
                        assertThat(p.rethVa).isEqualTo(0xABC000L + size);
                        assertThat(p.rethRkey).isEqualTo(0x77);
                    }
                    boolean ieth = op == RcOperation.SEND_WITH_INVALIDATE && i == n - 1;
                    assertThat(p.iethRkey).isEqualTo(ieth ? 0x55 : -1);
                    payload.writeBytes(p.payload);
                }
                byte[] expected = new byte[size];
                bytes(size).copyOut(0, ByteBuffer.wrap(expected), 0, size);
                assertThat(payload.toByteArray()).isEqualTo(expected);
            }
            assertThat(at).isEqualTo(packets.size());
            assertThat(r.highPsn()).isEqualTo(psn);
        }
    }

    @Test
    void aReadTakesOneRequestPacketAndAPsnPerResponsePacket() {
        Requester r = requester(config(1024), 100);
        r.postRead(1, bytes(3584), 0x5000, 9);
        r.postRead(2, bytes(0), 0x6000, 9);
        r.postSend(3, bytes(10));
        r.poll(wire, 10);
        List<Packet> p = wire.take();
        assertThat(p).extracting(x -> x.opcode)
            .containsExactly(RoceOpcode.RDMA_READ_REQUEST, RoceOpcode.RDMA_READ_REQUEST, RoceOpcode.SEND_ONLY);
        assertThat(p).extracting(x -> x.psn).containsExactly(100, 104, 105);
        assertThat(p.get(0).rethLength).isEqualTo(3584);
        assertThat(p.get(0).rethVa).isEqualTo(0x5000);
        assertThat(p.get(0).ackRequest).isTrue();
        assertThat(p.get(1).ackRequest).isTrue();
        assertThat(r.highPsn()).isEqualTo(106);
    }

    @Test
    void ackRequestInsideALongMessageComesAfter65PacketsWithoutAsRxe() {
        Requester r = requester(config(256).toBuilder().window(1000, 65).build(), 0);
        r.postWrite(1, bytes(200 * 256), 0, 1);
        r.poll(wire, 1000);
        List<Integer> asked = new ArrayList<>();
        List<Packet> p = wire.take();
        for (int i = 0; i < p.size(); i++) {
            if (p.get(i).ackRequest) {
                asked.add(i);
            }
        }
        assertThat(asked).containsExactly(65, 131, 197, 199);
    }

    @Test
    void thePsnWindowBoundsWhatIsUnacknowledged() {
        Requester r = requester(config(256), 0xFFFFC0);
        r.postWrite(1, bytes(300 * 256), 0, 1);
        assertThat(r.poll(wire, 1000)).isEqualTo(128);
        r.onPacket(Capture.ack(Psn.add(0xFFFFC0, 63)));
        assertThat(r.poll(wire, 1000)).as("64 acknowledged, 64 more may go").isEqualTo(64);
        assertThat(r.poll(wire, 1000)).isZero();
        assertThat(done).isEmpty();
    }

    @Test
    void anAckCompletesEverythingUpToItsPsnInOrderAcrossTheWrap() {
        Requester r = requester(config(1024), 0xFFFFFE);
        r.postSend(1, bytes(10));
        r.postSend(2, bytes(2000));
        r.postWrite(3, bytes(10), 0, 1);
        r.poll(wire, 10);
        assertThat(wire.take()).extracting(x -> x.psn).containsExactly(0xFFFFFE, 0xFFFFFF, 0, 1);
        r.onPacket(Capture.ack(0xFFFFFF));
        assertThat(done).extracting(RcPair.SendCompletion::wrId).containsExactly(1L);
        r.onPacket(Capture.ack(0));
        assertThat(done).extracting(RcPair.SendCompletion::wrId).containsExactly(1L, 2L);
        r.onPacket(Capture.ack(0xFFFFFE));
        r.onPacket(Capture.ack(5));
        assertThat(r.counters().get(RcCounter.IGNORED_RESPONSES)).as("a stale ACK and one for a PSN never sent").isEqualTo(2);
        r.onPacket(Capture.ack(1));
        assertThat(done).extracting(RcPair.SendCompletion::wrId).containsExactly(1L, 2L, 3L);
        assertThat(statuses()).containsOnly(RcStatus.SUCCESS);
        assertThat(done).extracting(RcPair.SendCompletion::length).containsExactly(10, 2000, 10);
        assertThat(r.nextDeadline()).as("nothing outstanding, no timer").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theLocalAckTimeoutGoesBackToTheOldestUnacknowledgedPsn() {
        Requester r = requester(config(1024), 10);
        r.postSend(1, bytes(2048));
        r.postSend(2, bytes(2048));
        r.poll(wire, 10);
        wire.take();
        long t = RcTimers.localAckTimeoutNanos(T10);
        assertThat(t).isEqualTo(4096L << 10);
        assertThat(r.nextDeadline()).isEqualTo(t);
        now = 1000;
        r.onPacket(Capture.ack(11));
        assertThat(r.nextDeadline()).as("restarted by progress").isEqualTo(1000 + t);
        now = 1000 + t - 1;
        r.onTimer(now);
        assertThat(r.poll(wire, 10)).isZero();
        now = 1000 + t;
        r.onTimer(now);
        assertThat(r.poll(wire, 10)).isEqualTo(2);
        assertThat(wire.take()).extracting(x -> x.psn).containsExactly(12, 13);
        assertThat(r.counters().get(RcCounter.TIMEOUTS)).isEqualTo(1);
        assertThat(r.counters().get(RcCounter.RETRANSMITTED_PACKETS)).isEqualTo(2);
        assertThat(r.counters().get(RcCounter.PACKETS_SENT)).isEqualTo(6);
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS);
    }

    @Test
    void aSequenceNakAcknowledgesWhatIsBeforeItAndResendsFromItOnce() {
        Requester r = requester(config(1024), 0);
        for (int i = 1; i <= 3; i++) {
            r.postSend(i, bytes(100));
        }
        r.poll(wire, 10);
        wire.take();
        r.onPacket(Capture.nak(1, NakCode.PSN_SEQUENCE_ERROR));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS);
        assertThat(r.poll(wire, 10)).isEqualTo(2);
        assertThat(wire.take()).extracting(x -> x.psn).containsExactly(1, 2);
        r.onPacket(Capture.nak(1, NakCode.PSN_SEQUENCE_ERROR));
        assertThat(r.poll(wire, 10)).as("a duplicated NAK starts no second retry").isZero();
        assertThat(r.counters().get(RcCounter.SEQUENCE_NAKS_RECEIVED)).isEqualTo(2);
        assertThat(r.counters().get(RcCounter.RETRIES)).isEqualTo(1);
        r.onPacket(Capture.ack(2));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS, RcStatus.SUCCESS, RcStatus.SUCCESS);
    }

    @Test
    void timeoutsAndSequenceNaksShareTheRetryCount() {
        Requester r = requester(config(1024).toBuilder().retries(1, 7).build(), 0);
        r.postSend(1, bytes(100));
        r.postSend(2, bytes(100));
        r.poll(wire, 10);
        r.onPacket(Capture.nak(0, NakCode.PSN_SEQUENCE_ERROR));
        r.poll(wire, 10);
        now = r.nextDeadline();
        r.onTimer(now);
        assertThat(statuses()).containsExactly(RcStatus.RETRY_EXCEEDED, RcStatus.FLUSHED);
        assertThat(r.state()).isEqualTo(RcState.ERROR);
    }

    @Test
    void anRnrNakWaitsItsTimerThenResendsFromTheNakdPsn() {
        Requester r = requester(config(1024), 7);
        r.postSend(1, bytes(1500));
        r.poll(wire, 10);
        wire.take();
        now = 50;
        r.onPacket(Capture.rnrNak(7, 14));
        assertThat(r.poll(wire, 10)).isZero();
        assertThat(r.nextDeadline()).as("RNR timer code 14 is 1.28 ms").isEqualTo(50 + 1_280_000);
        now = 50 + 1_279_999;
        r.onTimer(now);
        assertThat(r.poll(wire, 10)).isZero();
        now++;
        r.onTimer(now);
        assertThat(r.poll(wire, 10)).isEqualTo(2);
        assertThat(wire.take()).extracting(x -> x.opcode).containsExactly(RoceOpcode.SEND_FIRST, RoceOpcode.SEND_LAST);
        assertThat(r.counters().get(RcCounter.RNR_NAKS_RECEIVED)).isEqualTo(1);
        r.onPacket(Capture.ack(8));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS);
    }

    @Test
    void rnrRetriesRunOutIntoAnRnrRetryExceededError() {
        Requester r = requester(config(1024).toBuilder().retries(7, 2).build(), 0);
        r.postSend(1, bytes(10));
        r.postSend(2, bytes(10));
        r.poll(wire, 10);
        r.onPacket(Capture.ack(0));
        for (int i = 0; i < 3; i++) {
            r.onPacket(Capture.rnrNak(1, 1));
            now = r.nextDeadline() == Long.MAX_VALUE ? now : r.nextDeadline();
            r.onTimer(now);
            r.poll(wire, 10);
        }
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS, RcStatus.RNR_RETRY_EXCEEDED);
        assertThat(r.state()).isEqualTo(RcState.ERROR);
        assertThat(r.counters().get(RcCounter.RNR_NAKS_RECEIVED)).isEqualTo(3);
    }

    @Test
    void rnrRetrySevenRetriesForEver() {
        Requester r = requester(config(1024), 0);
        r.postSend(1, bytes(10));
        r.poll(wire, 10);
        for (int i = 0; i < 100; i++) {
            r.onPacket(Capture.rnrNak(0, 1));
            now = r.nextDeadline();
            r.onTimer(now);
            assertThat(r.poll(wire, 10)).isEqualTo(1);
        }
        r.onPacket(Capture.ack(0));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS);
    }

    @ParameterizedTest
    @EnumSource(value = NakCode.class, names = {"INVALID_REQUEST", "REMOTE_ACCESS_ERROR", "REMOTE_OPERATIONAL_ERROR"})
    void anErrorNakEndsTheRequestItNamesAndFlushesTheRest(NakCode code) {
        Requester r = requester(config(1024), 0);
        r.postSend(1, bytes(10));
        r.postWrite(2, bytes(3000), 0, 1);
        r.postRead(3, bytes(10), 0, 1);
        r.postSend(4, bytes(10));
        r.poll(wire, 3);
        r.onPacket(Capture.nak(2, code));
        RcStatus expected = switch (code) {
            case INVALID_REQUEST -> RcStatus.REMOTE_INVALID_REQUEST;
            case REMOTE_ACCESS_ERROR -> RcStatus.REMOTE_ACCESS_ERROR;
            default -> RcStatus.REMOTE_OPERATIONAL_ERROR;
        };
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS, expected, RcStatus.FLUSHED, RcStatus.FLUSHED);
        assertThat(done).extracting(RcPair.SendCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(r.state()).isEqualTo(RcState.ERROR);
        assertThat(r.poll(wire, 10)).isZero();
        assertThat(r.postSend(5, bytes(1))).isEqualTo(PostResult.QP_ERROR);
        assertThat(r.counters().get(RcCounter.ERROR_NAKS_RECEIVED)).isEqualTo(1);
    }

    @Test
    void aPartlyAnsweredReadIsRequestedAgainForTheRestAtTheNextPsn() {
        Requester r = requester(config(1024), 50);
        ByteBuffer local = ByteBuffer.allocate(4096);
        r.postRead(1, LocalBuffer.wrap(local), 0x1000, 9);
        r.poll(wire, 10);
        wire.take();
        byte[] remote = bytes(4096).length() == 4096 ? new byte[4096] : null;
        bytes(4096).copyOut(0, ByteBuffer.wrap(remote), 0, 4096);
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_FIRST, 50, false, slice(remote, 0, 1024), 0, 0, 0));
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_MIDDLE, 51, false, slice(remote, 1024, 1024), 0, 0, 0));
        now = r.nextDeadline();
        r.onTimer(now);
        r.poll(wire, 10);
        List<Packet> again = wire.take();
        assertThat(again).hasSize(1);
        assertThat(again.get(0).opcode).isEqualTo(RoceOpcode.RDMA_READ_REQUEST);
        assertThat(again.get(0).psn).isEqualTo(52);
        assertThat(again.get(0).rethVa).isEqualTo(0x1000 + 2048);
        assertThat(again.get(0).rethLength).isEqualTo(2048);
        assertThat(again.get(0).rethRkey).isEqualTo(9);
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_FIRST, 52, false, slice(remote, 2048, 1024), 0, 0, 0));
        assertThat(done).isEmpty();
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_LAST, 53, false, slice(remote, 3072, 1024), 0, 0, 0));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS);
        assertThat(local.array()).isEqualTo(remote);
        assertThat(r.counters().get(RcCounter.READ_RESPONSES_RECEIVED)).isEqualTo(4);
    }

    @Test
    void readResponsesOutOfOrderOrOfTheWrongSizeAreIgnored() {
        Requester r = requester(config(1024), 0);
        r.postRead(1, bytes(2048), 0, 9);
        r.postSend(2, bytes(10));
        r.poll(wire, 10);
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_LAST, 1, false, new byte[1024], 0, 0, 0));
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_FIRST, 0, false, new byte[1000], 0, 0, 0));
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_ONLY, 2, false, new byte[10], 0, 0, 0));
        assertThat(r.counters().get(RcCounter.IGNORED_RESPONSES)).isEqualTo(3);
        assertThat(r.ackPsn()).isZero();
        assertThat(done).isEmpty();
    }

    @Test
    void anAckBeyondAnUnfinishedReadIsAnImpliedNak() {
        Requester r = requester(config(1024), 0);
        r.postSend(1, bytes(10));
        r.postRead(2, bytes(2048), 0x40, 9);
        r.postSend(3, bytes(10));
        r.poll(wire, 10);
        assertThat(wire.take()).extracting(x -> x.psn).containsExactly(0, 1, 3);
        r.onPacket(Capture.ack(3));
        assertThat(statuses()).as("the SEND before the READ is acknowledged, the one after waits").containsExactly(RcStatus.SUCCESS);
        r.poll(wire, 10);
        List<Packet> again = wire.take();
        assertThat(again).extracting(x -> x.opcode).containsExactly(RoceOpcode.RDMA_READ_REQUEST, RoceOpcode.SEND_ONLY);
        assertThat(again).extracting(x -> x.psn).containsExactly(1, 3);
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_FIRST, 1, false, new byte[1024], 0, 0, 0));
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_LAST, 2, false, new byte[1024], 0, 0, 0));
        r.onPacket(Capture.ack(3));
        assertThat(statuses()).containsExactly(RcStatus.SUCCESS, RcStatus.SUCCESS, RcStatus.SUCCESS);
        assertThat(r.counters().get(RcCounter.RETRIES)).isEqualTo(1);
    }

    @Test
    void theReadDepthHoldsBackFurtherReads() {
        Requester r = requester(config(1024).toBuilder().readDepth(2, 2).build(), 0);
        for (int i = 0; i < 3; i++) {
            r.postRead(i, bytes(10), 0, 1);
        }
        assertThat(r.poll(wire, 10)).isEqualTo(2);
        r.onPacket(Capture.packet(RoceOpcode.RDMA_READ_RESPONSE_ONLY, 0, false, new byte[10], 0, 0, 0));
        assertThat(r.poll(wire, 10)).isEqualTo(1);
    }

    @Test
    void postingRefusesAFullQueueAndFlushCompletesEverythingInOrder() {
        Requester r = requester(config(1024).toBuilder().queueDepths(2, 2).build(), 0);
        assertThat(r.postSend(1, bytes(1))).isEqualTo(PostResult.OK);
        assertThat(r.postSend(2, bytes(1))).isEqualTo(PostResult.OK);
        assertThat(r.postSend(3, bytes(1))).isEqualTo(PostResult.QUEUE_FULL);
        r.poll(wire, 1);
        r.flush();
        assertThat(statuses()).containsExactly(RcStatus.FLUSHED, RcStatus.FLUSHED);
        assertThat(r.outstanding()).isZero();
        assertThat(r.postSend(4, bytes(1))).isEqualTo(PostResult.QP_ERROR);
        r.onPacket(Capture.ack(0));
        assertThat(r.counters().get(RcCounter.DROPPED_PACKETS)).isEqualTo(1);
    }

    @Test
    void requestsAndMalformedPacketsAreDropped() {
        Requester r = requester(config(1024), 0);
        r.postSend(1, bytes(1));
        r.poll(wire, 1);
        r.onPacket(Capture.packet(RoceOpcode.SEND_ONLY, 0, true, new byte[4], 0, 0, 0));
        r.onPacket(ByteBuffer.allocate(8));
        assertThat(r.counters().get(RcCounter.DROPPED_PACKETS)).isEqualTo(2);
        assertThat(done).isEmpty();
    }

    private static byte[] slice(byte[] b, int from, int length) {
        byte[] out = new byte[length];
        System.arraycopy(b, from, out, 0, length);
        return out;
    }
}
