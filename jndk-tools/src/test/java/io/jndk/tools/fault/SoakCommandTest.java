package io.jndk.tools.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The soak's duration argument. */
class SoakCommandTest {
    @Test
    void durationsTakeSecondsMinutesAndHours() {
        assertThat(SoakCommand.parseDuration("90")).isEqualTo(90_000);
        assertThat(SoakCommand.parseDuration("60s")).isEqualTo(60_000);
        assertThat(SoakCommand.parseDuration("10m")).isEqualTo(600_000);
        assertThat(SoakCommand.parseDuration("1h")).isEqualTo(3_600_000);
        for (String bad : new String[] {"", "m", "0s", "-5m", "10x", "1.5m", "9999999h"}) {
            assertThatThrownBy(() -> SoakCommand.parseDuration(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
