package io.jndk.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The progress bar inside one long row, on a made-up clock (no waiting): it moves with the operations done, and
 * says how long the run has taken, how long it will still take and how fast the row goes now.
 */
class PerfProgressTest {
    @Test
    void aLongRowShowsElapsedTimeLeftAndTheCurrentRate() {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PerfProgress bar = PerfProgress.manual(new PrintStream(bytes, true, StandardCharsets.UTF_8), now::get);
        bar.row(0, 2, "write 65536 B", 100_000, 0, 65536);
        now.addAndGet(1_000_000_000L);
        bar.add(10_000);
        bar.paint(); // the first second of the row: 10% of it, 5% of the run
        now.addAndGet(1_000_000_000L);
        bar.add(30_000);
        String line = bar.line(); // 40% of the row, 20% of the run, 30000 operations in the last second
        assertThat(line).startsWith("[#####...................]  20%  row 1/2 write 65536 B  2 s, 8 s left")
                .endsWith("30000 op/s 15.73 Gbit/s");
        bar.println(() -> { });
        assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("\r[#.......................]   5%  row 1/2")
                .contains("19 s left  10000 op/s 5.24 Gbit/s\u001b[K").endsWith("\r\u001b[K");
        bar.close();
    }

    @Test
    void aDurationRowMovesWithTheClockAndLongTimesReadAsMinutes() {
        AtomicLong now = new AtomicLong(0);
        PerfProgress bar = PerfProgress.manual(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                now::get);
        bar.row(3, 4, "send 8 B", 1, 200_000_000_000L, 8);
        now.addAndGet(100_000_000_000L); // half of the fourth row: 87.5% of the run after 100 s
        assertThat(bar.line()).contains(" 88%  row 4/4 send 8 B  100 s, 14 s left");
        now.addAndGet(50_000_000_000L);
        assertThat(bar.line()).contains("2 min 30 s, ");
    }
}
