package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The iWARP engine's modes move every byte alike: the shared engine ({@code engine=shared}, the default, and on one
 * engine loop, and on one loop that yields its CPU after nearly every turn: {@code engine.yield.us=1}) and the
 * thread engine, each with the polling mode (a posting
 * thread transmits itself when the transmit side is free; with and without the receive spin), and notifications
 * delivered on the engine threads ({@code notify=inline}). Many requests are in flight at once, so posters and the
 * transmit thread take turns on one connection.
 */
@ParameterizedClass
@MethodSource("modes")
@Timeout(120)
class EngineModesTest {
    private static final int SIZE = 64 * 1024;

    @Parameter
    Map<String, String> options;

    static List<Map<String, String>> modes() {
        return List.of(Map.of("engine", "shared"), Map.of("engine", "shared", "engine.loops", "1"),
                Map.of("engine", "shared", "poll", "true"), Map.of("engine", "shared", "notify", "inline"),
                Map.of("engine", "shared", "notify", "inline", "poll", "true"),
                Map.of("engine", "shared", "notify", "inline", "engine.spin.us", "20"),
                Map.of("engine", "shared", "engine.loops", "1", "engine.yield.us", "1"), Map.of("engine", "threads"),
                Map.of("engine", "threads", "poll", "true"),
                Map.of("engine", "threads", "poll", "true", "poll.spin.us", "20"),
                Map.of("engine", "threads", "notify", "inline"),
                Map.of("engine", "threads", "notify", "inline", "poll", "true"));
    }

    /** Registered buffers of one test: A's source and read sink, B's write target, read source and receive. */
    private record Memory(Buffer src, Buffer dst, Buffer remote, Buffer sink, Buffer recv, NdkMr srcMr, NdkMr sinkMr,
            NdkMr dstMr, NdkMr remoteMr, NdkMr recvMr) {
        static Memory of(World w, World.Pair p, int size, int srcSeed, int remoteSeed) {
            Buffer src = w.buffer(size).fillRandom(srcSeed);
            Buffer dst = w.buffer(size);
            Buffer remote = w.buffer(size).fillRandom(remoteSeed);
            Buffer sink = w.buffer(size);
            Buffer recv = w.buffer(size);
            return new Memory(src, dst, remote, sink, recv, w.registerAll(p.a.pd, src), w.registerAll(p.a.pd, sink),
                    w.registerAll(p.b.pd, dst), w.registerAll(p.b.pd, remote), w.registerAll(p.b.pd, recv));
        }
    }

    /**
     * Messages of several MiB, and of odd sizes, span many FPDUs and several gathering writes (the transmit side
     * slices a message a part at a time and batches the writes); every octet arrives where it belongs, with CRC.
     */
    @Test
    void messagesOfSeveralMebibytesArriveIntact() {
        int big = 3 * 1024 * 1024 + 12_345;
        Map<String, String> withCrc = new java.util.HashMap<>(options);
        withCrc.put("crc", "true");
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 8, 4, 4, withCrc);
            Memory m = Memory.of(w, p, big, 21, 22);
            Buffer src = m.src, dst = m.dst, remote = m.remote, sink = m.sink, recv = m.recv;
            NdkMr srcMr = m.srcMr, sinkMr = m.sinkMr, dstMr = m.dstMr, remoteMr = m.remoteMr, recvMr = m.recvMr;
            for (int len : new int[] {big, 1024 * 1024 + 1, 2 * 1024 * 1024 - 3}) {
                NdkSge[] local = {src.sge(0, len, srcMr.getLocalToken())};
                assertThat(p.a.qp.write("w", local, 1, dst.address(), dstMr.getRemoteToken(), 0))
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, len, sinkMr.getLocalToken())}, 1, remote.address(),
                        remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(p.b.qp.receive("recv", new NdkSge[] {recv.sge(0, len, recvMr.getLocalToken())}, 1))
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(p.a.qp.send("s", local, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                NdkResultEx[] done = Kit.poll(p.a.cq, 3);
                assertThat(done).extracting(r -> NtStatus.name(r.status)).containsOnly("STATUS_SUCCESS");
                assertThat(done).extracting(r -> r.requestContext).containsExactly("w", "r", "s");
                NdkResultEx[] received = Kit.poll(p.b.cq, 1);
                assertThat(NtStatus.name(received[0].status)).isEqualTo("STATUS_SUCCESS");
                assertThat(received[0].bytesTransferred).isEqualTo(len);
                dst.assertSame(0, src, 0, len);
                sink.assertSame(0, remote, 0, len);
                recv.assertSame(0, src, 0, len);
            }
        }
    }

    @Test
    void writesReadsAndSendsInFlightTogetherArriveIntact() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 16, 16, options);
            Memory m = Memory.of(w, p, SIZE, 11, 12);
            Buffer src = m.src, dst = m.dst, remote = m.remote, sink = m.sink, recv = m.recv;
            NdkMr srcMr = m.srcMr, sinkMr = m.sinkMr, dstMr = m.dstMr, remoteMr = m.remoteMr, recvMr = m.recvMr;
            for (int round = 0; round < 50; round++) {
                int len = round % 2 == 0 ? 8 : SIZE / 16;
                List<Object> expected = new ArrayList<>();
                for (int k = 0; k < 16; k++) {
                    long off = (long) k * (SIZE / 16);
                    NdkSge[] local = {src.sge(off, len, srcMr.getLocalToken())};
                    String ctx = round + "/" + k;
                    int flags = k % 4 == 3 ? 0 : NdkOpFlags.DEFER;
                    int s = switch (k % 3) {
                        case 0 -> p.a.qp.write(ctx, local, 1, dst.address() + off, dstMr.getRemoteToken(), flags);
                        case 1 -> p.a.qp.read(ctx, new NdkSge[] {sink.sge(off, len, sinkMr.getLocalToken())}, 1,
                                remote.address() + off, remoteMr.getRemoteToken(), flags);
                        default -> {
                            assertThat(p.b.qp.receive("r" + ctx, new NdkSge[] {recv.sge(off, len, recvMr.getLocalToken())}, 1))
                                    .isEqualTo(NtStatus.STATUS_SUCCESS);
                            yield p.a.qp.send(ctx, local, 1, flags);
                        }
                    };
                    assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_SUCCESS));
                    expected.add(ctx);
                }
                assertThat(p.a.qp.write("flush" + round, new NdkSge[0], 0, dst.address(), dstMr.getRemoteToken(), 0))
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
                expected.add("flush" + round);
                NdkResultEx[] done = Kit.poll(p.a.cq, expected.size());
                for (NdkResultEx r : done) {
                    assertThat(r.status).as("%s", r).isEqualTo(NtStatus.STATUS_SUCCESS);
                }
                assertThat(done).extracting(r -> r.requestContext).containsExactlyElementsOf(expected);
                NdkResultEx[] received = Kit.poll(p.b.cq, 5);
                for (NdkResultEx r : received) {
                    assertThat(r.type).isEqualTo(NdkOperationType.RECEIVE);
                    assertThat(r.bytesTransferred).isEqualTo(len);
                }
                for (int k = 0; k < 16; k++) {
                    long off = (long) k * (SIZE / 16);
                    switch (k % 3) {
                        case 0 -> dst.assertSame(off, src, off, len);
                        case 1 -> sink.assertSame(off, remote, off, len);
                        default -> recv.assertSame(off, src, off, len);
                    }
                }
            }
        }
    }

    /**
     * A stream of 64 KiB Writes, Reads and Sends is placed straight from the socket into its targets, not through
     * the receive buffer. On loopback's MSS each message is a full frame and a short one (65,460 octets, then 76):
     * the read that follows the short frame must take just the next header, so that the next large payload is read
     * into its target ({@code BYTES_IN_DIRECT}). When that read was sized after the short frame alone, it took a whole
     * buffer of the next large frame, and 20-44 % of the payload octets were copied through the buffer.
     */
    @Test
    void largeMessagesArePlacedStraightIntoTheirTargets() {
        int n = 32;
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 16, 16, options);
            Buffer src = w.buffer((long) n * SIZE).fillRandom(41);
            Buffer remote = w.buffer((long) n * SIZE).fillRandom(42);
            Buffer dst = w.buffer((long) n * SIZE), sink = w.buffer((long) n * SIZE), recv = w.buffer((long) n * SIZE);
            NdkMr srcMr = w.registerAll(p.a.pd, src), sinkMr = w.registerAll(p.a.pd, sink);
            NdkMr remoteMr = w.registerAll(p.b.pd, remote), dstMr = w.registerAll(p.b.pd, dst);
            NdkMr recvMr = w.registerAll(p.b.pd, recv);
            NdkCounters a0 = p.a.adapter.counters(), b0 = p.b.adapter.counters();
            for (int k = 0; k < n; k++) {
                long off = (long) k * SIZE;
                assertThat(p.a.qp.write("w" + k, new NdkSge[] {src.sge(off, SIZE, srcMr.getLocalToken())}, 1,
                        dst.address() + off, dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            for (int k = 0; k < n; k++) {
                long off = (long) k * SIZE;
                assertThat(p.a.qp.read("r" + k, new NdkSge[] {sink.sge(off, SIZE, sinkMr.getLocalToken())}, 1,
                        remote.address() + off, remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            assertThat(Kit.poll(p.a.cq, 2 * n)).extracting(r -> NtStatus.name(r.status)).containsOnly("STATUS_SUCCESS");
            for (int k = 0; k < n; k++) {
                long off = (long) k * SIZE;
                assertThat(p.b.qp.receive("recv" + k, new NdkSge[] {recv.sge(off, SIZE, recvMr.getLocalToken())}, 1))
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            for (int k = 0; k < n; k++) {
                assertThat(p.a.qp.send("s" + k, new NdkSge[] {src.sge((long) k * SIZE, SIZE, srcMr.getLocalToken())}, 1,
                        0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            assertThat(Kit.poll(p.a.cq, n)).extracting(r -> NtStatus.name(r.status)).containsOnly("STATUS_SUCCESS");
            NdkResultEx[] received = Kit.poll(p.b.cq, n); // the Writes before the Sends are placed by now (ordering)
            assertThat(received).extracting(r -> NtStatus.name(r.status)).containsOnly("STATUS_SUCCESS");
            dst.assertSame(0, src, 0, (long) n * SIZE);
            sink.assertSame(0, remote, 0, (long) n * SIZE);
            recv.assertSame(0, src, 0, (long) n * SIZE);
            for (var side : List.of(Map.entry(p.a.adapter.counters(), a0), Map.entry(p.b.adapter.counters(), b0))) {
                long in = side.getKey().get(NdkCounter.BYTES_IN) - side.getValue().get(NdkCounter.BYTES_IN);
                long direct = side.getKey().get(NdkCounter.BYTES_IN_DIRECT)
                        - side.getValue().get(NdkCounter.BYTES_IN_DIRECT);
                assertThat(in).isEqualTo((long) (side.getValue() == a0 ? 1 : 2) * n * SIZE);
                assertThat(direct).as("payload octets placed directly, of %d", in).isGreaterThanOrEqualTo(in * 9 / 10);
            }
        }
    }

    /**
     * More Reads than the ORD allows, posted at once, while one thread polls both CQs: in the polling mode those
     * polls run both receive sides (after the first few polls the engine stands by), so the requester's poll that
     * completes a Read sends the next Read Request the ORQ now takes, and the responder's poll that reads a request
     * sends its Read Response (both after the receive step, without an engine thread). Every Read completes once, in
     * order, with its bytes.
     */
    @Test
    void readsBeyondTheOrdCompleteWhileBothSidesPoll() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 2, 2, options);
            int[] lengths = {8, SIZE, 3 * SIZE + 5, 1, SIZE / 2};
            int total = 0;
            for (int len : lengths) {
                total += len;
            }
            int rounds = 20, reads = 10;
            Buffer remote = w.buffer((long) total * (reads / lengths.length)).fillRandom(31);
            Buffer sink = w.buffer(remote.size());
            NdkMr remoteMr = w.registerAll(p.b.pd, remote);
            NdkMr sinkMr = w.registerAll(p.a.pd, sink);
            pollBoth(p.a.cq, p.b.cq, 0, Duration.ofMillis(20)); // the polls take over both receive sides
            for (int round = 0; round < rounds; round++) {
                List<Object> expected = new ArrayList<>();
                long off = 0;
                for (int k = 0; k < reads; k++) {
                    int len = lengths[k % lengths.length];
                    String ctx = round + "/" + k;
                    assertThat(p.a.qp.read(ctx, new NdkSge[] {sink.sge(off, len, sinkMr.getLocalToken())}, 1,
                            remote.address() + off, remoteMr.getRemoteToken(), k % 5 == 4 ? 0 : NdkOpFlags.DEFER))
                            .isEqualTo(NtStatus.STATUS_SUCCESS);
                    expected.add(ctx);
                    off += len;
                }
                List<NdkResultEx> done = pollBoth(p.a.cq, p.b.cq, reads, Duration.ofSeconds(20));
                assertThat(done).extracting(r -> r.requestContext).containsExactlyElementsOf(expected);
                for (NdkResultEx r : done) {
                    assertThat(r.status).as("%s", r).isEqualTo(NtStatus.STATUS_SUCCESS);
                }
                sink.assertSame(0, remote, 0, off);
                sink.fill((byte) 0);
            }
        }
    }

    /**
     * Polls {@code a} until {@code n} completions arrived (or, with {@code n} 0, for the whole of {@code limit}),
     * polling {@code b}, which gets none, on every pass.
     */
    private static List<NdkResultEx> pollBoth(NdkCq a, NdkCq b, int n, Duration limit) {
        List<NdkResultEx> out = new ArrayList<>();
        NdkResultEx[] one = {new NdkResultEx()};
        NdkResultEx[] none = {new NdkResultEx()};
        long deadline = System.nanoTime() + limit.toNanos();
        while (out.size() < n || n == 0 && System.nanoTime() - deadline < 0) {
            if (n > 0) {
                assertThat(System.nanoTime() - deadline).as("%d of %d Reads completed in %s", out.size(), n, limit)
                        .isNegative();
            }
            if (a.getCqResultsEx(one, 1) == 1) {
                out.add(one[0]);
                one[0] = new NdkResultEx();
            }
            assertThat(b.getCqResultsEx(none, 1)).as("the responder's CQ").isZero();
            Thread.yield(); // the engine threads share the cores with this poller outside the polling mode
        }
        assertThat(out).as("completions while only polling").hasSize(n);
        return out;
    }
}
