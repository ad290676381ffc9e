package io.jndk.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scale benchmark's setup at a tenth of its size: 100 QP pairs over iwarp, each moving its own bytes. */
class FabricTest {
    private static final int QPS = 100, SLICE = 4096;

    @Test
    void hundredPairsConnectAndEachWriteLandsInItsSlice() {
        try (Arena arena = Arena.ofShared(); Fabric f = Fabric.open("iwarp", Map.of())) {
            MemorySegment src = arena.allocate(QPS * SLICE, 4096), dst = arena.allocate(QPS * SLICE, 4096);
            for (long i = 0; i < src.byteSize(); i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + i / SLICE));
            }
            NdkMr srcMr = f.register(f.pdA, src), dstMr = f.register(f.pdB, dst);
            NdkCq cqA = f.cq(f.a, QPS * 2, null), cqB = f.cq(f.b, QPS * 2, null);
            List<NdkQp> qps = f.connect(QPS, 32, cqA, cqB, 2, new ArrayList<>());
            assertThat(qps).hasSize(QPS);
            NdkSge[] sge = {new NdkSge()};
            for (int q = 0; q < QPS; q++) {
                sge[0].set(src.address() + (long) q * SLICE, SLICE, srcMr.getLocalToken());
                assertThat(qps.get(q).write(null, sge, 1, dst.address() + (long) q * SLICE, dstMr.getRemoteToken(), 0))
                        .isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            NdkResultEx[] res = {new NdkResultEx()};
            long deadline = System.nanoTime() + 30_000_000_000L;
            int done = 0;
            while (done < QPS && System.nanoTime() < deadline) {
                if (cqA.getCqResultsEx(res, 1) == 1) {
                    assertThat(res[0].status).isEqualTo(NtStatus.STATUS_SUCCESS);
                    done++;
                }
            }
            assertThat(done).isEqualTo(QPS);
            while (dst.mismatch(src) != -1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(dst.mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void pingPongMeasuresEveryRoundInBothModes() throws Exception {
        for (boolean blocking : new boolean[] {false, true}) {
            long[] rtt = JndkLatency.run("iwarp", Map.of(), 200, blocking);
            assertThat(rtt.length).isBetween(1, 200); // fewer only if 200 rounds took longer than the time budget
            assertThat(Arrays.stream(rtt).min().orElseThrow()).isPositive();
        }
    }
}
