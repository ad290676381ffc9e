package io.jndk.tools.kit;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkResultEx;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntSupplier;
import org.HdrHistogram.Histogram;

/**
 * The post/reap loops the measuring tools share: reaping a CQ with a per-completion hook, a windowed stream, the
 * initiator's half of a write ping-pong, and the drain at the end. Each tool keeps its own wire protocol, its
 * columns and what it counts: the loops only post, reap and wait, through the hooks the tool gives them.
 */
public final class Loops {
    private Loops() {}

    /** What a tool does with each successful completion a reap takes ({@code j}: its place in this reap). */
    @FunctionalInterface
    public interface Each {
        /** Called for every completion, in order, after its status was checked. */
        void on(NdkResultEx r, int j);
    }

    /** Takes what has completed on {@code cq} now, checks each ({@code what} names it in a failure), hands it on. */
    public static int reap(NdkCq cq, NdkResultEx[] res, String what, Each each) {
        int k = cq.getCqResultsEx(res, res.length);
        for (int j = 0; j < k; j++) {
            Checks.check(res[j], what);
            each.on(res[j], j);
        }
        return k;
    }

    /** {@link #reap(NdkCq, NdkResultEx[], String, Each)} without a hook. */
    public static int reap(NdkCq cq, NdkResultEx[] res, String what) {
        return reap(cq, res, what, (r, j) -> { });
    }

    /** The ping-pong tag of round {@code i}: never 0 (buffers start cleared), different from the previous one. */
    public static byte tag(long i) {
        return (byte) (i % 255 + 1);
    }

    /** A windowed stream: the tool's rules for how many, how far ahead, what to post and what a completion means. */
    public interface Window {
        /** Whether operation {@code posted} (0-based) is still to be posted (a count, or a clock). */
        boolean more(long posted);

        /** Whether one more may be posted now, with {@code done} of {@code posted} completed. */
        boolean room(long posted, long done);

        /** Posts operation {@code i}. */
        void post(long i);

        /** Takes completions; returns how many operations they complete ({@code done} so far). */
        int reap(long done);

        /** After each reap: {@code reaped} completions came, {@code posted} whether anything was posted this turn. */
        void pass(int reaped, boolean posted);
    }

    /**
     * Keeps operations in flight within the window until {@link Window#more} says no more and every posted one
     * has completed; returns how many completed.
     */
    public static long stream(Window w) {
        long posted = 0, done = 0;
        while (true) {
            boolean more = w.more(posted);
            if (!more && done == posted) {
                return done;
            }
            boolean posting = false;
            while (more && w.room(posted, done)) {
                w.post(posted);
                posted++;
                posting = true;
                more = w.more(posted);
            }
            int k = w.reap(done);
            done += k;
            w.pass(k, posting);
        }
    }

    /** What a write ping-pong did: its rounds, their time, and the Write completions not yet reaped. */
    public record PingPong(long rounds, long elapsedNs, long outstanding) {}

    /**
     * The initiator's half of ib_write_lat: each round puts its tag into the last byte of {@code src}, posts the
     * Write ({@code post}, its status checked as "Write"), waits until the peer's Write back lands (the last byte
     * of {@code echo} becomes the tag) and records half the round trip in units of 10 ns; completions are reaped
     * ({@code reap}) as they come. Runs {@code n} rounds, or until {@code deadline} (checked every 16 rounds);
     * {@code every256} (may be null) is called after every 256th round. The caller drains what is outstanding.
     */
    public static PingPong writePingPong(MemorySegment src, MemorySegment echo, int last, long n, long deadline,
            IntSupplier post, IntSupplier reap, Watchdog dog, Histogram h, Runnable every256) {
        long outstanding = 0, i = 0;
        long t0 = System.nanoTime();
        for (; i < n && ((i & 15) != 0 || System.nanoTime() < deadline); i++) {
            byte tag = tag(i);
            src.set(ValueLayout.JAVA_BYTE, last, tag);
            long s = System.nanoTime();
            Checks.check(post.getAsInt(), "Write");
            while (Memory.byteAcquire(echo, last) != tag) {
                dog.idle();
            }
            dog.progress();
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 20));
            outstanding += 1 - reap.getAsInt();
            if (every256 != null && (i & 255) == 255) {
                every256.run();
            }
        }
        return new PingPong(i, System.nanoTime() - t0, outstanding);
    }

    /** Takes completions with {@code take} (it returns how many it took) until {@code outstanding} have come. */
    public static void drain(long outstanding, IntSupplier take) {
        while (outstanding > 0) {
            outstanding -= take.getAsInt();
        }
    }
}
