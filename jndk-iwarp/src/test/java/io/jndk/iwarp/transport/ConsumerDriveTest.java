package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shared engine and polling consumers hand the receive side to each other: a loop that finds a consumer's step
 * holding it stops watching the socket and is woken by that step's end (a loop that watched the still-readable
 * socket instead ran a busy loop, on two cores for milliseconds, while the consumer it waited for had no core).
 */
class ConsumerDriveTest {
    private static ConsumerDrive drive() {
        ConsumerDrive d = new ConsumerDrive(EngineMode.of(Map.of("poll", "true")), new ConnectionState());
        d.releaseRx(); // the shared engine's first service frees the receive side (RxEngine.loopStart)
        return d;
    }

    @Test
    void aLoopThatFindsAStepHoldingTheReceiveSideIsWokenByTheStepsEnd() {
        ConsumerDrive d = drive();
        assertThat(d.takeForStep()).isTrue();
        assertThat(d.tryTakeRx()).as("the loop, while the consumer steps").isFalse();
        assertThat(d.endStep()).as("the step's end wakes the loop that waits for it").isTrue();
        assertThat(d.tryTakeRx()).as("the loop, after the step").isTrue();
        d.releaseRx();
        assertThat(d.takeForStep()).isTrue();
        assertThat(d.endStep()).as("a wake-up is owed once only").isFalse();
    }

    @Test
    void aStepThatNobodyWaitedForWakesNobody() {
        ConsumerDrive d = drive();
        for (int i = 0; i < 3; i++) {
            assertThat(d.takeForStep()).isTrue();
            assertThat(d.takeForStep()).as("one step at a time").isFalse();
            assertThat(d.endStep()).isFalse();
        }
        assertThat(d.tryTakeRx()).isTrue();
        assertThat(d.takeForStep()).as("no step while the loop reads").isFalse();
        d.releaseRx();
        assertThat(d.takeForStep()).isTrue();
        assertThat(d.endStep()).as("the loop took and released the receive side without waiting").isFalse();
    }
}
