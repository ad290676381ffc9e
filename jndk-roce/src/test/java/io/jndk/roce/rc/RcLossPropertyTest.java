package io.jndk.roce.rc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded property tests of the requester and responder over a lossy simulated link: random mixes of SENDs (some
 * with Invalidate), WRITEs and READs of random sizes, with random loss, duplication, reordering and delay in each
 * direction. Every request must complete exactly once, in order, successfully, with its data intact; and with all
 * packets lost, every request must end in a retry-exceeded error or a flush within the local ACK timeout times
 * {@code retry_cnt + 1}.
 */
class RcLossPropertyTest {

    private static final int[] MTUS = {256, 512, 1024, 2048, 4096};
    private static final long LATENCY = 5_000;
    private static long totalRequests;
    private static long totalRetransmissions;
    private static long totalTimeouts;
    private static long totalDropped;
    private static int seedsRun;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 200);
    }

    private record Op(RcOperation op, int length, LocalBuffer local, ByteBuffer localBytes, ByteBuffer remote,
        int rkey, ByteBuffer receive, int invalidateRkey) {
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyRequestCompletesOnceWithItsDataIntact(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int mtu = MTUS[r.nextInt(MTUS.length)];
        boolean faulty = seed % 10 != 0;
        SimLink.Faults fwd = faulty ? faults(r) : SimLink.Faults.none(LATENCY);
        SimLink.Faults back = faulty ? faults(r) : SimLink.Faults.none(LATENCY);
        int initialPsn = seed % 4 == 0 ? Psn24.nearWrap(r) : r.nextInt(1 << 24);
        RcConfig config = RcConfig.rxeDefaults().toBuilder().pathMtu(mtu).localAckTimeout(8)
            .ackCoalesce(r.nextBoolean() ? 0 : r.nextInt(1, 8)).build();
        RcPair pair = new RcPair(config, initialPsn, fwd, back, seed);
        String context = "seed " + seed + ", MTU " + mtu + ", forward " + fwd + ", backward " + back;

        int n = r.nextInt(10, 41);
        List<Op> ops = new ArrayList<>();
        int receiveId = 0;
        for (int i = 0; i < n; i++) {
            RcOperation kind = RcOperation.values()[r.nextInt(4)];
            if (kind == RcOperation.SEND_WITH_INVALIDATE && r.nextInt(3) != 0) {
                kind = RcOperation.SEND;
            }
            int length = r.nextInt(10) == 0 ? 65536 : r.nextInt(3 * mtu + 17);
            ByteBuffer localBytes = random(r, length);
            int rkey = 0x1000 + i;
            ByteBuffer remote = null;
            ByteBuffer receive = null;
            int invalidate = 0;
            switch (kind) {
                case SEND, SEND_WITH_INVALIDATE -> {
                    receive = ByteBuffer.allocate(length + r.nextInt(17));
                    assertThat(pair.responder.postReceive(receiveId++, LocalBuffer.wrap(receive))).isEqualTo(PostResult.OK);
                    if (kind == RcOperation.SEND_WITH_INVALIDATE) {
                        invalidate = 0x9000 + i;
                        pair.memory.register(invalidate, 0, 16, true, true);
                    }
                }
                case RDMA_WRITE -> remote = pair.memory.register(rkey, va(i), length + 8, false, true);
                case RDMA_READ -> {
                    remote = pair.memory.register(rkey, va(i), length + 8, true, false);
                    remote.put(0, random(r, length + 8), 0, length + 8);
                    localBytes = ByteBuffer.allocate(length);
                }
            }
            LocalBuffer local = LocalBuffer.wrap(localBytes);
            ops.add(new Op(kind, length, local, localBytes, remote, rkey, receive, invalidate));
            assertThat(pair.requester.post(i, kind, local, va(i), rkey, invalidate)).as(context).isEqualTo(PostResult.OK);
        }

        pair.runUntilCompleted(n, 30_000_000_000L);

        assertThat(pair.sends).as(context + ": one completion per request").hasSize(n);
        for (int i = 0; i < n; i++) {
            RcPair.SendCompletion c = pair.sends.get(i);
            Op op = ops.get(i);
            assertThat(c.wrId()).as(context + ": completion order").isEqualTo(i);
            assertThat(c.status()).as(context + ": request " + i + " " + op.op() + " " + op.length() + " octets; "
                + pair.requester.counters() + " " + pair.responder.counters()).isEqualTo(RcStatus.SUCCESS);
            assertThat(c.length()).isEqualTo(op.length());
            switch (op.op()) {
                case RDMA_WRITE -> assertThat(slice(op.remote(), op.length())).as(context + ": WRITE " + i)
                    .isEqualTo(slice(op.localBytes(), op.length()));
                case RDMA_READ -> assertThat(slice(op.localBytes(), op.length())).as(context + ": READ " + i)
                    .isEqualTo(slice(op.remote(), op.length()));
                default -> assertThat(slice(op.receive(), op.length())).as(context + ": SEND " + i)
                    .isEqualTo(slice(op.localBytes(), op.length()));
            }
        }
        assertThat(pair.receives).as(context).hasSize(receiveId)
            .allSatisfy(c -> assertThat(c.status()).isEqualTo(RcStatus.SUCCESS));
        int k = 0;
        for (Op op : ops) {
            if (op.receive() != null) {
                RcPair.ReceiveCompletion c = pair.receives.get(k);
                assertThat(c.wrId()).isEqualTo(k++);
                assertThat(c.length()).isEqualTo(op.length());
                assertThat(c.invalidated()).isEqualTo(op.op() == RcOperation.SEND_WITH_INVALIDATE);
                assertThat(c.rkey()).isEqualTo(op.invalidateRkey());
            }
        }
        assertThat(pair.memory.violations).as(context).isEmpty();
        assertThat(pair.requester.state()).isEqualTo(RcState.READY);
        assertThat(pair.responder.state()).isEqualTo(RcState.READY);
        assertThat(pair.requester.outstanding()).isZero();
        long retransmitted = pair.requester.counters().get(RcCounter.RETRANSMITTED_PACKETS);
        if (pair.forward.dropped + pair.backward.dropped > 0) {
            assertThat(retransmitted).as(context + ": loss must cost retransmissions").isPositive();
        }
        if (!faulty) {
            assertThat(retransmitted).as(context + ": a clean link needs no retransmission").isZero();
        }
        synchronized (RcLossPropertyTest.class) {
            seedsRun++;
            totalRequests += n;
            totalRetransmissions += retransmitted;
            totalTimeouts += pair.requester.counters().get(RcCounter.TIMEOUTS);
            totalDropped += pair.forward.dropped + pair.backward.dropped;
        }
    }

    @ParameterizedTest(name = "retry_cnt {0}")
    @ValueSource(ints = {0, 1, 3, 7})
    void totalLossEndsInRetryExceededWithinTheBound(int retry) {
        RcConfig config = RcConfig.rxeDefaults().toBuilder().localAckTimeout(10).retries(retry, 7).build();
        SimLink.Faults lost = new SimLink.Faults(1.0, 0, 0, LATENCY, 0);
        RcPair pair = new RcPair(config, 0xFFFFF0, lost, SimLink.Faults.none(LATENCY), retry);
        pair.memory.register(7, 0x1000, 8192, true, true);
        pair.requester.postSend(1, LocalBuffer.wrap(ByteBuffer.allocate(3000)));
        pair.requester.postWrite(2, LocalBuffer.wrap(ByteBuffer.allocate(100)), 0x1000, 7);
        pair.requester.postRead(3, LocalBuffer.wrap(ByteBuffer.allocate(5000)), 0x1000, 7);
        pair.requester.postSend(4, LocalBuffer.wrap(ByteBuffer.allocate(0)));

        pair.runUntilCompleted(4, 3_600_000_000_000L);

        long timeout = RcTimers.localAckTimeoutNanos(10);
        long bound = timeout * (retry + 1);
        assertThat(pair.sends).extracting(RcPair.SendCompletion::status)
            .containsExactly(RcStatus.RETRY_EXCEEDED, RcStatus.FLUSHED, RcStatus.FLUSHED, RcStatus.FLUSHED);
        assertThat(pair.sends).extracting(RcPair.SendCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(pair.sends.get(0).at()).as("the error comes at the last timeout, on the virtual clock")
            .isBetween(bound, bound + 1_000);
        assertThat(pair.requester.state()).isEqualTo(RcState.ERROR);
        assertThat(pair.requester.counters().get(RcCounter.TIMEOUTS)).isEqualTo(retry + 1);
        assertThat(pair.requester.counters().get(RcCounter.RETRIES)).isEqualTo(retry);
        assertThat(pair.requester.postSend(5, LocalBuffer.wrap(ByteBuffer.allocate(1)))).isEqualTo(PostResult.QP_ERROR);
        assertThat(pair.requester.nextDeadline()).isEqualTo(Long.MAX_VALUE);
        assertThat(pair.responder.expectedPsn()).as("nothing arrived").isEqualTo(0xFFFFF0);
    }

    @AfterAll
    static void figures() {
        System.out.printf("RC loss property: %d seeds, %d requests, %d packets dropped, %d retransmissions, %d timeouts%n",
            seedsRun, totalRequests, totalDropped, totalRetransmissions, totalTimeouts);
    }

    private static SimLink.Faults faults(SplittableRandom r) {
        return new SimLink.Faults(r.nextDouble(0.005, 0.1), r.nextDouble(0, 0.05), r.nextDouble(0, 0.2), LATENCY,
            r.nextLong(1, 60_000));
    }

    private static long va(int i) {
        return 0x7F00_0000_0000L + (long) i * 0x100_0000L + 24;
    }

    private static ByteBuffer random(SplittableRandom r, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return ByteBuffer.wrap(b);
    }

    private static byte[] slice(ByteBuffer b, int length) {
        byte[] out = new byte[length];
        b.get(0, out);
        return out;
    }

    /** PSNs chosen to make a run cross the 2^24 wrap. */
    static final class Psn24 {
        private Psn24() {
        }

        static int nearWrap(SplittableRandom r) {
            return 0xFFFFFF - r.nextInt(200);
        }
    }
}
