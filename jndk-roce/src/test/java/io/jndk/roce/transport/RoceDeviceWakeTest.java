package io.jndk.roce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The rule by which a consumer's pass (polling mode) wakes a sleeping engine for a timer it armed: only when the
 * engine's planned wake would make the timer more than half its length late.
 */
class RoceDeviceWakeTest {
    private static final long MS = 1_000_000;

    /** Whether a consumer wakes an engine that plans to wake at {@code wake}: the check of {@code consumerTurn}. */
    private static boolean late(long deadline, long wake, long now) {
        return wake > RoceDevice.wakeBy(deadline, now);
    }

    @Test
    void theDefaultAckTimeoutArmedDuringAnIdleWaitDoesNotWakeTheEngine() {
        long now = 1_000 * MS;
        // 67 ms ACK timeout; the engine went to sleep for 100 ms just before: it wakes 33 ms late, under half of 67
        assertThat(late(now + 67 * MS, now + 100 * MS, now)).isFalse();
    }

    @Test
    void aShortTimerArmedDuringAnIdleWaitWakesTheEngine() {
        long now = 1_000 * MS;
        assertThat(late(now + MS / 100, now + 100 * MS, now)).as("an RNR wait of 10 us").isTrue();
        assertThat(late(now + 4 * MS, now + 100 * MS, now)).as("a 4 ms ACK timeout").isTrue();
        assertThat(late(now + 20 * MS, now + 31 * MS, now)).as("11 ms late for a 20 ms timer").isTrue();
    }

    @Test
    void theLatestWakeForATimerIsItsDeadlinePlusHalfItsLength() {
        long now = 1_000 * MS;
        assertThat(RoceDevice.wakeBy(now + 20 * MS, now)).isEqualTo(now + 30 * MS);
        assertThat(RoceDevice.wakeBy(now - MS, now)).as("already due: at once").isEqualTo(now - MS);
        // a later but shorter timer can need the engine sooner than an earlier, longer one
        assertThat(RoceDevice.wakeBy(now + 68 * MS, now + 64 * MS)).isLessThan(RoceDevice.wakeBy(now + 67 * MS, now));
    }

    @Test
    void aWakePlannedBeforeTheDeadlineOrWithinHalfItsLengthAfterIsKept() {
        long now = 1_000 * MS;
        assertThat(late(now + 20 * MS, now + 10 * MS, now)).as("the engine wakes first").isFalse();
        assertThat(late(now + 20 * MS, now + 30 * MS, now)).as("exactly half late").isFalse();
        assertThat(late(now - MS, now + 100 * MS, now)).as("a deadline already past").isTrue();
    }
}
