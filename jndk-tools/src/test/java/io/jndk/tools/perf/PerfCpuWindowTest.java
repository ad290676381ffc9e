package io.jndk.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * A bandwidth row's CPU per GB covers the streams its GB count, not the timed single operations each pair runs
 * after its stream: {@link PerfFormat#cpuOver} spans the earliest start to the latest end of the parts' windows,
 * and falls back to the whole run's CPU when a part has no window (latency rows, where every operation counts).
 */
class PerfCpuWindowTest {
    @Test
    void theRowsCpuSpansThePartsWindowsOnly() {
        List<PerfFormat.Part> parts = List.of(new PerfFormat.Part(10, 1, null, true, 1.0, 3.0),
            new PerfFormat.Part(10, 1, null, true, 2.0, 5.0));
        assertThat(PerfFormat.cpuOver(parts, 99.0)).isEqualTo(4.0);
    }

    @Test
    void aPartWithoutAWindowMakesItTheWholeRun() {
        List<PerfFormat.Part> parts = List.of(new PerfFormat.Part(10, 1, null, true, 1.0, 3.0),
            new PerfFormat.Part(10, 1, null, true));
        assertThat(PerfFormat.cpuOver(parts, 99.0)).isEqualTo(99.0);
        assertThat(PerfFormat.cpuOver(List.of(), 7.0)).isEqualTo(7.0);
    }

    @Test
    void perGbDividesByTheCountedBytes() {
        PerfFormat.Row r = PerfFormat.sum(65536, "write", "bw",
            List.of(new PerfFormat.Part(1_000_000, 1_000_000_000L, new Histogram(3_600_000_000L, 3), true, 0.0, 1.0)),
            false);
        assertThat(r.withCpu(PerfFormat.cpuOver(List.of(new PerfFormat.Part(1_000_000, 1, null, true, 0.0, 6.5536)),
            0)).cpuSecPerGb()).isCloseTo(0.1, org.assertj.core.data.Offset.offset(1e-9));
    }
}
