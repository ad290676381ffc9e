package io.jndk.tools.fault;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import io.jndk.iwarp.fault.FaultKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What fault sessions saw, summed over sessions (thread-safe): operations, bytes verified, the payload bytes
 * of requests that succeeded (for the adapter counters), faults injected by kind, and
 * every violation of the checks.
 */
final class FaultTally {
    final LongAdder sessions = new LongAdder();
    final LongAdder damagedSessions = new LongAdder();
    final LongAdder operations = new LongAdder();
    final LongAdder requests = new LongAdder();
    final LongAdder bytesVerified = new LongAdder();
    /** Payload bytes per {@link Flow} of requests that succeeded. */
    final AtomicLongArray succeeded = new AtomicLongArray(Flow.values().length);
    final AtomicLongArray faults = new AtomicLongArray(FaultKind.values().length);
    private final List<String> violations = new ArrayList<>();

    /** The byte flows the adapter counters measure, by who reports them. */
    enum Flow {
        /** Sends from the active side, as completed there. */
        SEND_A,
        /** Sends from the passive side, as completed there. */
        SEND_B,
        /** Writes (active to passive), as completed at the active side. */
        WRITE,
        /** Writes known to be placed at the passive side: the Send behind them was received. */
        WRITE_PLACED,
        /** Reads (passive to active), as completed at the active side. */
        READ,
        /** Receives at the active side. */
        RECEIVE_A,
        /** Receives at the passive side. */
        RECEIVE_B
    }

    void violation(String v) {
        synchronized (violations) {
            violations.add(v);
        }
    }

    List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    /**
     * Checks the adapter byte counters of a pair of adapters that carried only these sessions, after they all
     * ended. With {@code exact} (no destructive fault on any of them) the counters must equal the successful
     * payloads; otherwise they must be at least the successful payloads (no upper bound: a Write's target counts
     * its bytes when the header passed the grant check, before the FPDU's CRC is seen, so a corrupted length can
     * count bytes that were never posted). The counters' definition: BYTES_IN counts a receive at its completion, a
     * Read at its completion and a Write when the target accepted its grant check; BYTES_OUT counts a Send or Write
     * when its last FPDU was handed to TCP and a Read Response's length when the responder granted it.
     *
     * @return the mismatches (empty when the counters reconcile)
     */
    List<String> reconcile(NdkAdapter active, NdkAdapter passive, boolean exact) {
        NdkCounters a = active.counters();
        NdkCounters b = passive.counters();
        List<String> out = new ArrayList<>();
        check(out, "active BYTES_IN", a.get(NdkCounter.BYTES_IN), exact, Flow.RECEIVE_A, Flow.READ);
        check(out, "passive BYTES_IN", b.get(NdkCounter.BYTES_IN), exact, Flow.RECEIVE_B,
            exact ? Flow.WRITE : Flow.WRITE_PLACED);
        check(out, "active BYTES_OUT", a.get(NdkCounter.BYTES_OUT), exact, Flow.SEND_A, Flow.WRITE);
        check(out, "passive BYTES_OUT", b.get(NdkCounter.BYTES_OUT), exact, Flow.SEND_B, Flow.READ);
        return out;
    }

    private void check(List<String> out, String name, long counter, boolean exact, Flow... flows) {
        long low = 0;
        for (Flow f : flows) {
            low += succeeded.get(f.ordinal());
        }
        if (exact ? counter != low : counter < low) {
            out.add(name + " = " + counter + (exact ? ", expected " : ", expected at least ") + low);
        }
    }
}
