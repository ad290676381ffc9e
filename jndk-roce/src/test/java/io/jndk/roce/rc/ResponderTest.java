package io.jndk.roce.rc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.AethFlyweight;
import io.jndk.roce.codec.AethFlyweight.NakCode;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The responder alone, fed hand-built request packets: one rule per test. */
class ResponderTest {

    private static final int ACK = AethFlyweight.ackSyndrome(AethFlyweight.INVALID_CREDIT_COUNT);
    private static final int KEY = 0x42;
    private static final long VA = 0x10_0000L;

    private final TestMemory memory = new TestMemory();
    private final List<RcPair.ReceiveCompletion> received = new ArrayList<>();
    private final Capture wire = new Capture();

    private Responder responder(RcConfig config, int epsn) {
        return new Responder(config, epsn, memory,
            (id, st, len, inv, rkey) -> received.add(new RcPair.ReceiveCompletion(id, st, len, inv, rkey)));
    }

    private static RcConfig config() {
        return RcConfig.rxeDefaults().toBuilder().destQpn(0x22).build();
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 13 + seed);
        }
        return b;
    }

    private static ByteBuffer send(RoceOpcode op, int psn, boolean ackReq, byte[] payload) {
        return Capture.packet(op, psn, ackReq, payload, 0, 0, 0);
    }

    private static ByteBuffer write(RoceOpcode op, int psn, boolean ackReq, byte[] payload, long va, int rkey, int length) {
        return Capture.packet(op, psn, ackReq, payload, va, rkey, length);
    }

    private static ByteBuffer read(int psn, long va, int rkey, int length) {
        return Capture.packet(RoceOpcode.RDMA_READ_REQUEST, psn, true, new byte[0], va, rkey, length);
    }

    private List<Packet> responses(Responder r) {
        r.poll(wire, 1000);
        return wire.take();
    }

    @Test
    void aSendIsPlacedAcrossItsPacketsAndAcknowledgedWithTheMsn() {
        Responder r = responder(config(), 5);
        ByteBuffer buffer = ByteBuffer.allocate(3000);
        r.postReceive(1, LocalBuffer.wrap(buffer));
        byte[] data = pattern(2548, 1);
        r.onPacket(send(RoceOpcode.SEND_FIRST, 5, false, Arrays.copyOfRange(data, 0, 1024)));
        r.onPacket(send(RoceOpcode.SEND_MIDDLE, 6, false, Arrays.copyOfRange(data, 1024, 2048)));
        assertThat(received).isEmpty();
        r.onPacket(send(RoceOpcode.SEND_LAST, 7, true, Arrays.copyOfRange(data, 2048, 2548)));
        List<Packet> out = responses(r);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).opcode).isEqualTo(RoceOpcode.ACKNOWLEDGE);
        assertThat(out.get(0).psn).isEqualTo(7);
        assertThat(out.get(0).syndrome).as("ACK, credit count 31 as rxe").isEqualTo(0x1F);
        assertThat(out.get(0).msn).isEqualTo(1);
        assertThat(out.get(0).destQp).isEqualTo(0x22);
        assertThat(received).containsExactly(new RcPair.ReceiveCompletion(1, RcStatus.SUCCESS, 2548, false, 0));
        assertThat(Arrays.copyOf(buffer.array(), 2548)).isEqualTo(data);
        assertThat(r.expectedPsn()).isEqualTo(8);
    }

    @Test
    void acksGoOnAckReqOnlyAndAQueuedAckIsOverwrittenByANewerOne() {
        memory.register(KEY, VA, 4096, true, true);
        Responder r = responder(config(), 0);
        for (int psn = 0; psn < 3; psn++) {
            r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, psn, false, new byte[8], VA, KEY, 8));
        }
        assertThat(responses(r)).as("no AckReq, no ACK (ackCoalesce 0)").isEmpty();
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 3, true, new byte[8], VA, KEY, 8));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 4, true, new byte[8], VA, KEY, 8));
        List<Packet> out = responses(r);
        assertThat(out).as("two ACKs queued before a poll leave as one").hasSize(1);
        assertThat(out.get(0).psn).isEqualTo(4);
        assertThat(out.get(0).msn).isEqualTo(5);
    }

    @Test
    void ackCoalescingAlsoAcknowledgesEveryNthPacket() {
        memory.register(KEY, VA, 4096, true, true);
        Responder r = responder(config().toBuilder().ackCoalesce(4).build(), 0);
        List<Integer> acked = new ArrayList<>();
        for (int psn = 0; psn < 10; psn++) {
            r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, psn, false, new byte[8], VA, KEY, 8));
            responses(r).forEach(p -> acked.add(p.psn));
        }
        assertThat(acked).containsExactly(3, 7);
        assertThat(r.counters().get(RcCounter.ACKS_SENT)).isEqualTo(2);
    }

    @Test
    void aDuplicateSendOrWriteIsAcknowledgedAgainAndNotExecutedAgain() {
        memory.register(KEY, VA, 4096, true, true);
        Responder r = responder(config(), 0);
        r.postReceive(1, LocalBuffer.wrap(ByteBuffer.allocate(100)));
        r.postReceive(2, LocalBuffer.wrap(ByteBuffer.allocate(100)));
        r.onPacket(send(RoceOpcode.SEND_ONLY, 0, true, pattern(10, 1)));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 1, true, pattern(10, 2), VA, KEY, 10));
        responses(r);
        long written = memory.bytesWritten;
        r.onPacket(send(RoceOpcode.SEND_ONLY, 0, true, pattern(10, 1)));
        List<Packet> out = responses(r);
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 1, true, pattern(10, 9), VA, KEY, 10));
        out.addAll(responses(r));
        assertThat(out).extracting(p -> p.psn).as("re-ACKed with ePSN - 1").containsExactly(1, 1);
        assertThat(out).extracting(p -> p.msn).containsOnly(2);
        assertThat(received).hasSize(1);
        assertThat(r.postedReceives()).isEqualTo(1);
        assertThat(memory.bytesWritten).isEqualTo(written);
        assertThat(r.counters().get(RcCounter.DUPLICATE_REQUESTS)).isEqualTo(2);
    }

    @Test
    void aDuplicateReadIsAnsweredAgainFromMemoryAlsoForItsRemainingPart() {
        ByteBuffer remote = memory.register(KEY, VA, 4096, true, false);
        remote.put(0, pattern(4096, 3));
        Responder r = responder(config(), 10);
        r.onPacket(read(10, VA, KEY, 2048));
        List<Packet> first = responses(r);
        assertThat(first).extracting(p -> p.opcode)
            .containsExactly(RoceOpcode.RDMA_READ_RESPONSE_FIRST, RoceOpcode.RDMA_READ_RESPONSE_LAST);
        assertThat(first).extracting(p -> p.psn).containsExactly(10, 11);
        assertThat(first.get(0).msn).isEqualTo(1);
        assertThat(r.expectedPsn()).isEqualTo(12);
        remote.put(0, pattern(4096, 4));
        r.onPacket(read(10, VA, KEY, 2048));
        List<Packet> again = responses(r);
        assertThat(again).extracting(p -> p.psn).containsExactly(10, 11);
        assertThat(again.get(0).payload).as("read from memory again").isEqualTo(Arrays.copyOfRange(pattern(4096, 4), 0, 1024));
        assertThat(again.get(0).msn).as("the original MSN").isEqualTo(1);
        r.onPacket(read(11, VA + 1024, KEY, 1024));
        List<Packet> rest = responses(r);
        assertThat(rest).hasSize(1);
        assertThat(rest.get(0).opcode).isEqualTo(RoceOpcode.RDMA_READ_RESPONSE_ONLY);
        assertThat(rest.get(0).psn).isEqualTo(11);
        assertThat(rest.get(0).payload).isEqualTo(Arrays.copyOfRange(pattern(4096, 4), 1024, 2048));
        assertThat(r.counters().get(RcCounter.READS_REPLAYED)).isEqualTo(2);
        assertThat(r.expectedPsn()).isEqualTo(12);
        assertThat(memory.violations).isEmpty();
    }

    @Test
    void aDuplicateReadBeyondTheResponderResourcesOrNotMatchingIsDropped() {
        memory.register(KEY, VA, 4096, true, false);
        Responder r = responder(config().toBuilder().readDepth(1, 1).build(), 0);
        r.onPacket(read(0, VA, KEY, 10));
        r.onPacket(read(1, VA, KEY, 10));
        responses(r);
        r.onPacket(read(0, VA, KEY, 10));
        r.onPacket(read(1, VA + 4, KEY, 10));
        assertThat(responses(r)).isEmpty();
        assertThat(r.counters().get(RcCounter.DROPPED_PACKETS)).isEqualTo(2);
        r.onPacket(read(1, VA, KEY, 10));
        assertThat(responses(r)).hasSize(1);
    }

    @Test
    void aPacketAheadOfTheExpectedPsnGetsOneSequenceNakThenSilence() {
        memory.register(KEY, VA, 4096, true, true);
        Responder r = responder(config(), 0);
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 2, true, new byte[4], VA, KEY, 4));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 3, true, new byte[4], VA, KEY, 4));
        List<Packet> out = responses(r);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).syndrome).isEqualTo(AethFlyweight.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR));
        assertThat(out.get(0).psn).as("the NAK carries ePSN").isZero();
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0, true, new byte[4], VA, KEY, 4));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 5, true, new byte[4], VA, KEY, 4));
        out = responses(r);
        assertThat(out).extracting(p -> p.syndrome).containsExactly(ACK, AethFlyweight.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR));
        assertThat(out).extracting(p -> p.psn).containsExactly(0, 1);
        assertThat(memory.bytesWritten).isEqualTo(4);
        assertThat(r.counters().get(RcCounter.OUT_OF_SEQUENCE_REQUESTS)).isEqualTo(3);
        assertThat(r.counters().get(RcCounter.SEQUENCE_NAKS_SENT)).isEqualTo(2);
    }

    @Test
    void halfThePsnSpaceDecidesBetweenAheadAndDuplicateAcrossTheWrap() {
        memory.register(KEY, VA, 4096, true, true);
        Responder r = responder(config(), 5);
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0x800004, true, new byte[4], VA, KEY, 4));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0x800006, true, new byte[4], VA, KEY, 4));
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0xFFFFFF, true, new byte[4], VA, KEY, 4));
        List<Packet> out = responses(r);
        assertThat(out).extracting(p -> p.syndrome)
            .containsExactly(AethFlyweight.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR), ACK);
        assertThat(out).extracting(p -> p.psn).as("0x800004 is ahead; 0x800006 and 0xFFFFFF are duplicates").containsExactly(5, 4);
        assertThat(r.counters().get(RcCounter.DUPLICATE_REQUESTS)).isEqualTo(2);
        assertThat(memory.bytesWritten).isZero();
    }

    @Test
    void aSendWithNoReceivePostedGetsAnRnrNakAndIsTakenWhenResent() {
        Responder r = responder(config().toBuilder().minRnrTimer(14).build(), 9);
        r.onPacket(send(RoceOpcode.SEND_FIRST, 9, false, new byte[1024]));
        r.onPacket(send(RoceOpcode.SEND_LAST, 10, true, new byte[4]));
        List<Packet> out = responses(r);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).syndrome).isEqualTo(AethFlyweight.rnrNakSyndrome(14));
        assertThat(out.get(0).psn).isEqualTo(9);
        assertThat(r.expectedPsn()).isEqualTo(9);
        r.postReceive(1, LocalBuffer.wrap(ByteBuffer.allocate(2048)));
        r.onPacket(send(RoceOpcode.SEND_FIRST, 9, false, new byte[1024]));
        r.onPacket(send(RoceOpcode.SEND_LAST, 10, true, new byte[4]));
        assertThat(responses(r)).extracting(p -> p.syndrome).containsExactly(ACK);
        assertThat(received).extracting(RcPair.ReceiveCompletion::length).containsExactly(1028);
        assertThat(r.counters().get(RcCounter.RNR_NAKS_SENT)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"middle without first", "last without first", "first inside a message", "payload over MTU",
        "first shorter than MTU", "empty last", "write last past the RETH length", "write only shorter than RETH",
        "write first covering all of RETH", "unsupported opcode", "read inside a message"})
    void malformedSequencesGetNakInvalidRequestAndTheResponderGoesToError(String fault) {
        memory.register(KEY, VA, 8192, true, true);
        Responder r = responder(config(), 0);
        r.postReceive(1, LocalBuffer.wrap(ByteBuffer.allocate(8192)));
        r.postReceive(2, LocalBuffer.wrap(ByteBuffer.allocate(8192)));
        byte[] mtu = new byte[1024];
        int bad = 0;
        boolean inSend = false;
        switch (fault) {
            case "middle without first" -> r.onPacket(send(RoceOpcode.SEND_MIDDLE, 0, false, mtu));
            case "last without first" -> r.onPacket(send(RoceOpcode.SEND_LAST, 0, true, new byte[4]));
            case "first inside a message" -> {
                r.onPacket(send(RoceOpcode.SEND_FIRST, 0, false, mtu));
                r.onPacket(send(RoceOpcode.SEND_FIRST, 1, false, mtu));
                bad = 1;
                inSend = true;
            }
            case "payload over MTU" -> r.onPacket(send(RoceOpcode.SEND_ONLY, 0, true, new byte[1028]));
            case "first shorter than MTU" -> r.onPacket(send(RoceOpcode.SEND_FIRST, 0, false, new byte[1020]));
            case "empty last" -> {
                r.onPacket(send(RoceOpcode.SEND_FIRST, 0, false, mtu));
                r.onPacket(send(RoceOpcode.SEND_LAST, 1, true, new byte[0]));
                bad = 1;
                inSend = true;
            }
            case "write last past the RETH length" -> {
                r.onPacket(write(RoceOpcode.RDMA_WRITE_FIRST, 0, false, mtu, VA, KEY, 1500));
                r.onPacket(write(RoceOpcode.RDMA_WRITE_LAST, 1, true, new byte[600], 0, 0, 0));
                bad = 1;
            }
            case "write only shorter than RETH" -> r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0, true, new byte[8], VA, KEY, 16));
            case "write first covering all of RETH" ->
                r.onPacket(write(RoceOpcode.RDMA_WRITE_FIRST, 0, false, mtu, VA, KEY, 1024));
            case "unsupported opcode" -> r.onPacket(send(RoceOpcode.SEND_ONLY_WITH_IMMEDIATE, 0, true, new byte[4]));
            case "read inside a message" -> {
                r.onPacket(write(RoceOpcode.RDMA_WRITE_FIRST, 0, false, mtu, VA, KEY, 4096));
                r.onPacket(read(1, VA, KEY, 16));
                bad = 1;
            }
            default -> throw new IllegalArgumentException(fault);
        }
        long written = memory.bytesWritten;
        List<Packet> out = responses(r);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).syndrome).isEqualTo(AethFlyweight.nakSyndrome(NakCode.INVALID_REQUEST));
        assertThat(out.get(0).psn).isEqualTo(bad);
        assertThat(r.state()).isEqualTo(RcState.ERROR);
        assertThat(received).extracting(RcPair.ReceiveCompletion::status)
            .containsExactly(inSend ? RcStatus.INVALID_REQUEST : RcStatus.FLUSHED, RcStatus.FLUSHED);
        assertThat(memory.bytesWritten).as("the bad packet placed nothing").isEqualTo(written).isLessThanOrEqualTo(1024);
        r.onPacket(send(RoceOpcode.SEND_ONLY, bad + 1, true, new byte[4]));
        assertThat(responses(r)).as("nothing is answered in error").isEmpty();
        r.postReceive(3, LocalBuffer.wrap(ByteBuffer.allocate(4)));
        assertThat(received).last().isEqualTo(new RcPair.ReceiveCompletion(3, RcStatus.FLUSHED, 0, false, 0));
        assertThat(memory.violations).isEmpty();
    }

    @Test
    void aSendLongerThanItsReceiveIsALengthErrorAndWritesNothingBeyond() {
        Responder r = responder(config(), 0);
        ByteBuffer whole = ByteBuffer.allocate(200);
        r.postReceive(1, LocalBuffer.wrap(whole.slice(0, 100)));
        r.onPacket(send(RoceOpcode.SEND_ONLY, 0, true, pattern(150, 1)));
        assertThat(responses(r)).extracting(p -> p.syndrome).containsExactly(AethFlyweight.nakSyndrome(NakCode.INVALID_REQUEST));
        assertThat(received).extracting(RcPair.ReceiveCompletion::status).containsExactly(RcStatus.LOCAL_LENGTH_ERROR);
        assertThat(whole.array()).containsOnly(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write with an unknown key, W, 0x43, 0, 16", "write past the region, W, 0x42, 4090, 16",
        "write to a read-only region, w, 0x42, 0, 16", "read past the region, R, 0x42, 4095, 2",
        "read of a write-only region, r, 0x42, 0, 16", "read with an unknown key, R, 0x99, 0, 16"})
    void accessViolationsGetNakRemoteAccessErrorAndTouchNothing(String name, String kind, int rkey, int offset, int length) {
        boolean readOk = !kind.equals("r");
        boolean writeOk = !kind.equals("w");
        ByteBuffer region = memory.register(KEY, VA, 4096, readOk, writeOk);
        byte[] before = region.array().clone();
        Responder r = responder(config(), 0);
        if (kind.equalsIgnoreCase("w")) {
            r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0, true, pattern(length, 5), VA + offset, rkey, length));
        } else {
            r.onPacket(read(0, VA + offset, rkey, length));
        }
        List<Packet> out = responses(r);
        assertThat(out).extracting(p -> p.opcode).containsExactly(RoceOpcode.ACKNOWLEDGE);
        assertThat(out.get(0).syndrome).isEqualTo(AethFlyweight.nakSyndrome(NakCode.REMOTE_ACCESS_ERROR));
        assertThat(out.get(0).psn).isZero();
        assertThat(r.state()).isEqualTo(RcState.ERROR);
        assertThat(region.array()).isEqualTo(before);
        assertThat(memory.bytesWritten + memory.bytesRead).isZero();
        assertThat(memory.violations).isEmpty();
        assertThat(r.counters().get(RcCounter.ERROR_NAKS_SENT)).isEqualTo(1);
    }

    @Test
    void anAccessCheckAnsweringInvalidRequestBecomesNakInvalidRequest() {
        RemoteAccess refuses = new RemoteAccess() {
            @Override
            public Result check(int rkey, long va, int length, Right right) {
                return Result.INVALID_REQUEST;
            }

            @Override
            public void write(int rkey, long va, ByteBuffer src, int srcIndex, int length) {
                throw new AssertionError("no write after a refused check");
            }

            @Override
            public void read(int rkey, long va, ByteBuffer dst, int dstIndex, int length) {
                throw new AssertionError("no read after a refused check");
            }

            @Override
            public Result invalidate(int rkey) {
                return Result.OK;
            }
        };
        Responder r = new Responder(config(), 0, refuses, (id, st, len, inv, rkey) -> { });
        r.onPacket(read(0, VA, KEY, 100));
        assertThat(responses(r)).extracting(p -> p.syndrome).containsExactly(AethFlyweight.nakSyndrome(NakCode.INVALID_REQUEST));
    }

    @Test
    void aZeroLengthWriteIsNotCheckedAndTouchesNothing() {
        Responder r = responder(config(), 0);
        r.onPacket(write(RoceOpcode.RDMA_WRITE_ONLY, 0, true, new byte[0], 0xDEAD, 0x1234, 0));
        r.onPacket(read(1, 0xBEEF, 0x4321, 0));
        List<Packet> out = responses(r);
        assertThat(out).extracting(p -> p.opcode).containsExactly(RoceOpcode.ACKNOWLEDGE, RoceOpcode.RDMA_READ_RESPONSE_ONLY);
        assertThat(out.get(1).payloadLength).isZero();
        assertThat(memory.checks).isZero();
        assertThat(r.expectedPsn()).isEqualTo(2);
    }

    @Test
    void aSendWithInvalidateInvalidatesItsKeyOrFailsTheReceive() {
        memory.register(0x77, 0, 16, true, true);
        Responder r = responder(config(), 0);
        r.postReceive(1, LocalBuffer.wrap(ByteBuffer.allocate(64)));
        r.postReceive(2, LocalBuffer.wrap(ByteBuffer.allocate(64)));
        r.onPacket(Capture.packet(RoceOpcode.SEND_ONLY_WITH_INVALIDATE, 0, true, new byte[8], 0, 0x77, 0));
        assertThat(received).containsExactly(new RcPair.ReceiveCompletion(1, RcStatus.SUCCESS, 8, true, 0x77));
        assertThat(memory.invalidated).containsExactly(0x77);
        r.onPacket(Capture.packet(RoceOpcode.SEND_ONLY_WITH_INVALIDATE, 1, true, new byte[8], 0, 0x77, 0));
        assertThat(received).last().extracting(RcPair.ReceiveCompletion::status).isEqualTo(RcStatus.INVALIDATE_ERROR);
        assertThat(responses(r)).extracting(p -> p.syndrome)
            .containsExactly(ACK, AethFlyweight.nakSyndrome(NakCode.INVALID_REQUEST));
    }

    @Test
    void readResponsesTakePsnsAcrossTheWrap() {
        ByteBuffer remote = memory.register(KEY, VA, 4096, true, false);
        remote.put(0, pattern(4096, 8));
        Responder r = responder(config(), 0xFFFFFE);
        r.postReceive(1, LocalBuffer.wrap(ByteBuffer.allocate(16)));
        r.onPacket(read(0xFFFFFE, VA, KEY, 3000));
        r.onPacket(send(RoceOpcode.SEND_ONLY, 1, true, new byte[4]));
        List<Packet> out = responses(r);
        assertThat(out).extracting(p -> p.psn).containsExactly(0xFFFFFE, 0xFFFFFF, 0, 1);
        assertThat(out).extracting(p -> p.opcode).containsExactly(RoceOpcode.RDMA_READ_RESPONSE_FIRST,
            RoceOpcode.RDMA_READ_RESPONSE_MIDDLE, RoceOpcode.RDMA_READ_RESPONSE_LAST, RoceOpcode.ACKNOWLEDGE);
        assertThat(out).extracting(p -> p.payloadLength).containsExactly(1024, 1024, 952, 0);
        assertThat(out.get(2).payload).isEqualTo(Arrays.copyOfRange(pattern(4096, 8), 2048, 3000));
        assertThat(out.get(3).msn).isEqualTo(2);
        assertThat(r.expectedPsn()).isEqualTo(2);
    }

    @Test
    void responsesAndMalformedPacketsAreDropped() {
        Responder r = responder(config(), 0);
        r.onPacket(Capture.ack(0));
        r.onPacket(ByteBuffer.allocate(3));
        assertThat(responses(r)).isEmpty();
        assertThat(r.counters().get(RcCounter.DROPPED_PACKETS)).isEqualTo(2);
        assertThat(r.expectedPsn()).isZero();
    }
}
