package io.jndk.iwarp.transport;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The engine loops of one adapter (the shared engine): a fixed number of places ({@code engine.loops}), each run by
 * an {@link EngineLoop} while it serves connections. A new connection goes to the next place in turn.
 */
final class EngineLoops {
    private final EngineLoop[] loops;
    private final String name;
    private final EngineMode mode;
    private int next;
    private volatile boolean closing;

    EngineLoops(EngineMode mode, String name) {
        this.loops = new EngineLoop[mode.loops()];
        this.name = name;
        this.mode = mode;
    }

    /** @return the loop a new connection joins (started if it was not running); it counts the connection */
    synchronized EngineLoop assign() {
        int i = next;
        next = (next + 1) % loops.length;
        EngineLoop l = loops[i];
        if (l == null || !l.attach()) {
            try {
                l = new EngineLoop(this, name + "-" + i, mode);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open an engine loop's selector", e);
            }
            l.attach();
            loops[i] = l;
            l.start();
        }
        return l;
    }

    /** The adapter is shutting down: each loop ends once its connections have. */
    void shutdown() {
        closing = true;
        EngineLoop[] copy;
        synchronized (this) {
            copy = loops.clone();
        }
        for (EngineLoop l : copy) {
            if (l != null) {
                l.wake();
            }
        }
    }

    boolean closing() {
        return closing;
    }
}
