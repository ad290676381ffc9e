package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Transmit stages: a platform thread gets back the stage it gave back last; virtual threads keep none. */
class StagePoolTest {
    @Test
    void aPlatformThreadLendsItselfTheStageItGaveBack() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                StagePool.Stage s = StagePool.lend();
                s.buffer.put((byte) 1);
                StagePool.giveBack(s);
                assertThat(s.buffer.position()).as("given back cleared").isZero();
                assertThat(StagePool.lend()).as("the same stage, from the thread's own slot").isSameAs(s);
                StagePool.Stage other = StagePool.lend();
                assertThat(other).as("a second stage while the first is lent").isNotSameAs(s);
                StagePool.giveBack(other);
                StagePool.giveBack(s); // the slot holds one: this one goes to the shared pool
                assertThat(StagePool.lend()).isSameAs(other);
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        assertThat(failure.get()).isNull();
    }

    @Test
    void aVirtualThreadKeepsNoStageOfItsOwn() throws Exception {
        AtomicReference<StagePool.Stage> given = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            StagePool.Stage s = StagePool.lend();
            StagePool.giveBack(s);
            given.set(s);
        }).join();
        // a new platform thread has no stage of its own: it takes the top of the shared pool, where the virtual
        // thread's stage went (had the virtual thread kept it, this would be another)
        AtomicReference<StagePool.Stage> lent = new AtomicReference<>();
        Thread.ofPlatform().start(() -> lent.set(StagePool.lend())).join();
        assertThat(lent.get()).isSameAs(given.get());
        StagePool.giveBack(lent.get());
    }
}
