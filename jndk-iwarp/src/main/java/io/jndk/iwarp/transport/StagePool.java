package io.jndk.iwarp.transport;

import java.nio.ByteBuffer;

/**
 * Staging space of transmit batches ({@link TxBatch}), lent while a batch is being built or written and returned
 * when it is written (the shared engine), so that a connection at rest holds none: a 64 KiB direct buffer with the
 * views the I/O vector uses of it. One pool per JVM; it keeps at most {@link #KEEP} idle stages (others are left to
 * the collector). Lending and returning allocate nothing once the pool has grown.
 */
final class StagePool {
    /** Idle stages kept. */
    static final int KEEP = 256;
    private static final Stage[] FREE = new Stage[KEEP];
    private static int free;

    private StagePool() {}

    /** One lent staging space: the buffer and its views (each made the first time a batch needs that many). */
    static final class Stage {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(TxBatch.STAGE_BYTES);
        final ByteBuffer[] views = new ByteBuffer[TxBatch.GATHER];
    }

    /** @return an idle stage, or a new one */
    static Stage lend() {
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
        synchronized (FREE) {
            if (free < KEEP) {
                FREE[free++] = s;
            }
        }
    }
}
