package io.jndk.provider;

import io.jndk.provider.spi.WireConnection;
import java.util.Arrays;

/**
 * The connections whose receive side polls of one CQ drive (a polling engine mode,
 * {@link WireConnection#progressByPolling()}): a copy-on-write array, so that a poll reads it without a lock.
 * A poll drives up to {@link #PER_POLL} of them, round-robin across polls; arming the CQ tells each of them that
 * its consumer now waits for a notification instead of polling.
 */
final class CqPollers {
    /** Connections one poll drives at most. */
    static final int PER_POLL = 4;
    private static final WireConnection[] NONE = {};
    private volatile WireConnection[] pollers = NONE;
    /** Guards changes of {@link #pollers} (not the CQ's monitor: a poll never waits for completions to queue). */
    private final Object lock = new Object();
    /** Where the next poll starts (racy by design: any start is fair enough). */
    private int cursor;

    /**
     * Consumer-driven receive: up to {@link #PER_POLL} connections read and place what has arrived, on the polling
     * thread, outside every lock. A connection that reports itself closed is forgotten.
     */
    void progress() {
        WireConnection[] p = pollers;
        if (p.length == 0) {
            return;
        }
        int start = cursor;
        int k = Math.min(p.length, PER_POLL);
        for (int j = 0; j < k; j++) {
            WireConnection c = p[(start + j) % p.length];
            if (c.progress() == WireConnection.PROGRESS_CLOSED) {
                remove(c);
            }
        }
        cursor = (start + k) % p.length;
    }

    /** The CQ was armed: its connections must not count on this consumer's polls now. */
    void armed() {
        for (WireConnection c : pollers) {
            c.consumerArmed();
        }
    }

    /** Polls drive {@code c}'s receive side from now on (a QP using the CQ joined it). */
    void add(WireConnection c) {
        synchronized (lock) {
            WireConnection[] p = pollers;
            for (WireConnection x : p) {
                if (x == c) {
                    return;
                }
            }
            WireConnection[] q = Arrays.copyOf(p, p.length + 1);
            q[p.length] = c;
            pollers = q;
        }
    }

    /** {@code c} no longer carries data (down, closed): polls forget it. */
    void remove(WireConnection c) {
        synchronized (lock) {
            WireConnection[] p = pollers;
            for (int i = 0; i < p.length; i++) {
                if (p[i] == c) {
                    WireConnection[] q = new WireConnection[p.length - 1];
                    System.arraycopy(p, 0, q, 0, i);
                    System.arraycopy(p, i + 1, q, i, p.length - i - 1);
                    pollers = q;
                    return;
                }
            }
        }
    }
}
