package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The iWARP engine's non-default modes move every byte like the default one: virtual engine threads, and the
 * polling mode (a posting thread transmits itself when the transmit side is free; with and without the receive
 * spin). Many requests are in flight at once, so posters and the transmit thread take turns on one connection.
 */
@ParameterizedClass
@MethodSource("modes")
@Timeout(120)
class EngineModesTest {
    private static final int SIZE = 64 * 1024;

    @Parameter
    Map<String, String> options;

    static List<Map<String, String>> modes() {
        return List.of(Map.of("threads", "virtual"), Map.of("poll", "true"), Map.of("poll", "true", "poll.spin.us", "20"),
                Map.of("poll", "true", "threads", "virtual"));
    }

    @Test
    void writesReadsAndSendsInFlightTogetherArriveIntact() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 16, 16, options);
            Buffer src = w.buffer(SIZE).fillRandom(11);
            Buffer dst = w.buffer(SIZE);
            Buffer remote = w.buffer(SIZE).fillRandom(12);
            Buffer sink = w.buffer(SIZE);
            Buffer recv = w.buffer(SIZE);
            NdkMr srcMr = w.registerAll(p.a.pd, src);
            NdkMr sinkMr = w.registerAll(p.a.pd, sink);
            NdkMr dstMr = w.registerAll(p.b.pd, dst);
            NdkMr remoteMr = w.registerAll(p.b.pd, remote);
            NdkMr recvMr = w.registerAll(p.b.pd, recv);
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
}
