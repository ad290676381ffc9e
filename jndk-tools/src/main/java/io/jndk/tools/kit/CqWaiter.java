package io.jndk.tools.kit;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkResultEx;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Waits for completions on one CQ, either spinning on it ({@code --poll}) or arming it and sleeping until the
 * provider's notification callback ({@code --block}). Gives up after {@link Sync#TIMEOUT_MS} without a completion.
 */
public final class CqWaiter {
    private final boolean block;
    private final Semaphore signal = new Semaphore(0);
    private volatile boolean woken;
    private NdkCq cq;

    /** A waiter that spins ({@code block} false) or sleeps on notifications. */
    public CqWaiter(boolean block) {
        this.block = block;
    }

    /** Creates the CQ this waiter watches on {@code session} (with a notification callback when blocking). */
    public NdkCq create(Session session, int depth) {
        cq = session.cq(depth, block ? signal::release : null);
        return cq;
    }

    /** The CQ watched. */
    public NdkCq cq() {
        return cq;
    }

    /** What is there now, without waiting. */
    public int poll(NdkResultEx[] res) {
        return cq.getCqResultsEx(res, res.length);
    }

    /** Makes the current or next {@link #await} return 0 (the peer thread has finished). */
    public void wake() {
        woken = true;
        signal.release();
    }

    /** Forgets a {@link #wake} nobody waited for. */
    public void clearWake() {
        woken = false;
    }

    /** At least one completion; 0 only after {@link #wake}. */
    public int await(NdkResultEx[] res, String what) {
        long deadline = System.nanoTime() + Sync.TIMEOUT_MS * 1_000_000;
        int spins = 0;
        while (true) {
            int k = cq.getCqResultsEx(res, res.length);
            if (k > 0) {
                return k;
            }
            if (woken) {
                woken = false;
                return 0;
            }
            long left = deadline - System.nanoTime();
            if (left < 0) {
                throw new IllegalStateException(what + ": no completion within " + Sync.TIMEOUT_MS + " ms");
            }
            if (!block) {
                spins = Watchdog.spin(spins);
                continue;
            }
            signal.drainPermits();
            cq.armCq(NdkCqNotifyType.ANY);
            k = cq.getCqResultsEx(res, res.length);
            if (k > 0) {
                return k;
            }
            // a wake() between the look at woken above and drainPermits lost its permit to the drain: look again (one
            // after the drain keeps its permit, and tryAcquire returns at once)
            if (woken) {
                woken = false;
                return 0;
            }
            try {
                signal.tryAcquire(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + ": interrupted", e);
            }
        }
    }
}
