package io.jndk.roce.rc;

import java.util.ArrayList;
import java.util.List;

/**
 * A requester QP wired to a responder QP through two {@link SimLink}s on one virtual clock, with the completions
 * recorded. {@link #run} advances the clock from event to event (packet arrival, requester deadline) until a
 * condition holds or nothing is left to happen.
 */
final class RcPair {

    record SendCompletion(long wrId, RcOperation op, RcStatus status, int length, long at) {
    }

    record ReceiveCompletion(long wrId, RcStatus status, int length, boolean invalidated, int rkey) {
    }

    final SimLink.VirtualClock clock = new SimLink.VirtualClock();
    final TestMemory memory = new TestMemory();
    final List<SendCompletion> sends = new ArrayList<>();
    final List<ReceiveCompletion> receives = new ArrayList<>();
    final SimLink forward;
    final SimLink backward;
    final Requester requester;
    final Responder responder;
    int burst = 32;

    RcPair(RcConfig config, int initialPsn, SimLink.Faults forwardFaults, SimLink.Faults backwardFaults, long seed) {
        forward = new SimLink(clock, forwardFaults, seed * 31 + 1);
        backward = new SimLink(clock, backwardFaults, seed * 31 + 2);
        requester = new Requester(config, initialPsn, clock::get,
            (wrId, op, status, length) -> sends.add(new SendCompletion(wrId, op, status, length, clock.now)));
        responder = new Responder(config, initialPsn, memory,
            (wrId, status, length, inv, rkey) -> receives.add(new ReceiveCompletion(wrId, status, length, inv, rkey)));
    }

    RcPair(RcConfig config, int initialPsn) {
        this(config, initialPsn, SimLink.Faults.none(5_000), SimLink.Faults.none(5_000), 1);
    }

    /** Runs until every posted request has completed or the virtual clock passes {@code limitNanos}. */
    void runUntilCompleted(int posted, long limitNanos) {
        run(() -> sends.size() >= posted, limitNanos);
    }

    void run(java.util.function.BooleanSupplier done, long limitNanos) {
        long steps = 0;
        while (!done.getAsBoolean() && clock.now <= limitNanos) {
            boolean busy;
            do {
                busy = requester.poll(forward, burst) > 0;
                busy |= responder.poll(backward, burst) > 0;
                busy |= forward.deliverDue(responder::onPacket) > 0;
                busy |= backward.deliverDue(requester::onPacket) > 0;
                if (requester.nextDeadline() <= clock.now) {
                    requester.onTimer(clock.now);
                    busy = true;
                }
                if (++steps > 50_000_000) {
                    throw new AssertionError("simulation does not converge at t=" + clock.now);
                }
            } while (busy && !done.getAsBoolean());
            long wake = Math.min(Math.min(forward.nextArrival(), backward.nextArrival()), requester.nextDeadline());
            if (wake == Long.MAX_VALUE || done.getAsBoolean()) {
                return;
            }
            clock.now = Math.max(clock.now, wake);
        }
    }
}
