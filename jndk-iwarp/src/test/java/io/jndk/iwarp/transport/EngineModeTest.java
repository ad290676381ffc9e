package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The engine options: the shared engine by default, the thread engine on request, virtual threads refused. */
class EngineModeTest {
    @Test
    void theSharedEngineIsTheDefaultWithALoopPerCore() {
        EngineMode m = EngineMode.of(Map.of());
        assertThat(m.shared()).isTrue();
        assertThat(m.loops()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(m.poll()).isFalse();
    }

    @Test
    void theThreadEngineAndThePollingModeAreOptions() {
        EngineMode m = EngineMode.of(Map.of("engine", "threads", "threads", "platform", "poll", "true",
            "poll.spin.us", "20"));
        assertThat(m.shared()).isFalse();
        assertThat(m.poll()).isTrue();
        assertThat(m.spinNanos()).isEqualTo(20_000);
        assertThat(EngineMode.of(Map.of("engine.loops", "3")).loops()).isEqualTo(3);
        assertThat(EngineMode.of(Map.of("engine.spin.us", "20")).loopSpinNanos()).isEqualTo(20_000);
        assertThat(EngineMode.of(Map.of()).loopSpinNanos()).isZero();
        assertThat(EngineMode.of(Map.of()).loopYieldNanos()).isEqualTo(EngineMode.DEFAULT_LOOP_YIELD_MICROS * 1_000);
        assertThat(EngineMode.of(Map.of("engine.yield.us", "0")).loopYieldNanos()).isZero();
        assertThat(EngineMode.of(Map.of("engine.yield.us", "200")).loopYieldNanos()).isEqualTo(200_000);
    }

    @Test
    void virtualThreadsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine", "threads", "threads", "virtual")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("threads=virtual was removed")
            .hasMessageContaining("shared engine");
    }

    @Test
    void anUnknownEngineOrALoopCountOutOfRangeIsRefused() {
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine", "fibers")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared or threads");
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.loops", "0")))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.loops", Integer.toString(EngineMode.MAX_LOOPS + 1))))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.spin.us",
            Long.toString(EngineMode.MAX_LOOP_SPIN_MICROS + 1)))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.spin.us", "-1")))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.yield.us",
            Long.toString(EngineMode.MAX_LOOP_YIELD_MICROS + 1)))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EngineMode.of(Map.of("engine.yield.us", "-1")))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pollSpinIsCheckedWhetherOrNotThePollingModeIsOn() {
        String most = Long.toString(EngineMode.MAX_SPIN_MICROS);
        String over = Long.toString(EngineMode.MAX_SPIN_MICROS + 1);
        assertThat(EngineMode.of(Map.of("poll", "true", "poll.spin.us", most)).spinNanos())
            .isEqualTo(EngineMode.MAX_SPIN_MICROS * 1_000);
        assertThat(EngineMode.of(Map.of("poll.spin.us", most)).spinNanos()).as("no spin without poll=true").isZero();
        for (String poll : new String[] {"true", "false"}) {
            assertThatThrownBy(() -> EngineMode.of(Map.of("poll", poll, "poll.spin.us", over)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("poll.spin.us");
            assertThatThrownBy(() -> EngineMode.of(Map.of("poll", poll, "poll.spin.us", "-1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("poll.spin.us");
        }
    }
}
