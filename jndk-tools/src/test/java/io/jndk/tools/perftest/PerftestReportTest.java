package io.jndk.tools.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The BW peak: perftest's definition, the best rate of any run of consecutive operations from the post of its first
 * to the completion of its last, on made-up times (no clock is read).
 */
class PerftestReportTest {
    static final double MB = 1048576.0;

    @Test
    void completionsReapedTogetherGiveNoImpossiblePeak() {
        // 1000 operations of 4096 B, 128 in flight on a link moving one every 10 us; the completions are reaped in
        // batches of 64 that all read the same clock. A peak over completion times alone would see 64 operations in
        // 0 ns; perftest's (and this) peak can never exceed the link's 4096 B / 10 us = 390.6 MB/s.
        int n = 1000;
        long[] posted = new long[n], completed = new long[n];
        for (int i = 0; i < n; i++) {
            long done = (i + 1) * 10_000L;
            completed[i] = (i / 64 + 1) * 64 * 10_000L; // reaped at the end of each batch of 64
            posted[i] = Math.max(0, done - 128 * 10_000L);
        }
        double peak = PerftestReport.Timing.peak(posted, completed, n, 4096, MB);
        double link = 4096 / 10e-6 / MB;
        assertThat(peak).isLessThanOrEqualTo(link + 1e-9).isGreaterThan(link / 2);
    }

    @Test
    void theBestRunIsFound() {
        // four operations: the middle two went through in 10 ns each, the others took 100 ns
        long[] posted = {0, 100, 110, 200};
        long[] completed = {100, 110, 120, 300};
        double peak = PerftestReport.Timing.peak(posted, completed, 4, 1000, 1e9);
        assertThat(peak).isCloseTo(1000 / 10e-9 / 1e9, within(1e-9));
        assertThat(PerftestReport.Timing.peak(new long[] {5}, new long[] {5}, 1, 64, MB)).isZero();
    }
}
