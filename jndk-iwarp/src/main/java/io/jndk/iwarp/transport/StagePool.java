package io.jndk.iwarp.transport;

import java.nio.ByteBuffer;

/**
 * Staging space of transmit batches ({@link TxBatch}), lent while a batch is being built or written and returned
 * when it is written (the shared engine), so that a connection at rest holds none: a 64 KiB direct buffer with the
 * views the I/O vector uses of it. One pool per JVM; it keeps at most {@link #KEEP} idle stages (others are left to
 * the collector). Lending and returning allocate nothing once the pool has grown.
 *
 * <p><b>A stage per platform thread.</b> Each platform thread keeps the last stage it gave back and lends it to
 * itself next: a poster that sends its own small requests (and an engine loop) builds every batch in the same 64 KiB,
 * which stays in its core's cache, and takes no lock shared with the other side's poster. Through the pool's
 * monitor, the two threads of a ping-pong took turns with one lock and each built its FPDU in a stage the other's
 * core had written last. A thread holds at most one stage this way (freed with the thread); virtual threads keep
 * none, since there may be many of them.
 */
final class StagePool {
    /** Idle stages kept. */
    static final int KEEP = 256;
    private static final Stage[] FREE = new Stage[KEEP];
    private static int free;
    /** The stage each platform thread keeps (a one-element holder, so that taking and keeping need no set). */
    private static final ThreadLocal<Stage[]> OWN = ThreadLocal.withInitial(() -> new Stage[1]);

    private StagePool() {}

    /** One lent staging space: the buffer and its views (each made the first time a batch needs that many). */
    static final class Stage {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(TxBatch.STAGE_BYTES);
        final ByteBuffer[] views = new ByteBuffer[TxBatch.GATHER];
    }

    /** @return an idle stage, or a new one */
    static Stage lend() {
        if (!Thread.currentThread().isVirtual()) {
            Stage[] own = OWN.get();
            Stage s = own[0];
            if (s != null) {
                own[0] = null;
                return s;
            }
        }
        synchronized (FREE) {
            if (free > 0) {
                Stage s = FREE[--free];
                FREE[free] = null;
                return s;
            }
        }
        return new Stage();
    }

    /** Returns {@code s} (cleared); nothing of it may be in use. */
    static void giveBack(Stage s) {
        s.buffer.clear();
        if (!Thread.currentThread().isVirtual()) {
            Stage[] own = OWN.get();
            if (own[0] == null) {
                own[0] = s;
                return;
            }
        }
        synchronized (FREE) {
            if (free < KEEP) {
                FREE[free++] = s;
            }
        }
    }
}
