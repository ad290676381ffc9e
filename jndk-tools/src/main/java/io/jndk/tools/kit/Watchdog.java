package io.jndk.tools.kit;

/** Fails a busy-wait when no progress was made for {@link Sync#TIMEOUT_MS}; {@link #spin} is the wait step itself. */
public final class Watchdog {
    private final String what;
    private long last = System.nanoTime();
    private int spins;

    /** A watchdog for {@code what}, its clock started now. */
    public Watchdog(String what) {
        this.what = what;
    }

    /** Busy-wait step that leaves the (possibly few) cores to the transport now and then. */
    public static int spin(int spins) {
        if ((spins & 1023) == 1023) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return spins + 1;
    }

    /** Progress was made: restart the clock. */
    public void progress() {
        last = System.nanoTime();
    }

    /** No progress: check the clock, then spin a little. */
    public void idle() {
        check();
        spins = spin(spins);
    }

    /** Throws when there was no progress for {@link Sync#TIMEOUT_MS}. */
    public void check() {
        if (System.nanoTime() - last > Sync.TIMEOUT_MS * 1_000_000) {
            throw new IllegalStateException(what + ": no progress for " + Sync.TIMEOUT_MS + " ms");
        }
    }
}
