package io.jndk.bench;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * 8-byte RDMA Write ping-pong between two adapters in this process (public API only), defined like perftest's
 * {@code ib_write_lat} but reporting the full round trip:
 * <ul>
 *   <li><b>polling</b>: A writes the iteration number (8 bytes) into B's buffer; B spins on that buffer until the
 *   number appears, then writes it into A's buffer; A spins on its buffer. Round trip = A's post to A seeing the
 *   echo. The Write completions are reaped by polling the CQ without waiting for them.</li>
 *   <li><b>notify</b>: notification-driven, as an NDK consumer works: each Write (silent) is followed by a 0-byte
 *   Send with solicit-event; each side's CQ, armed for solicited completions, calls its notification callback,
 *   which takes the completions, reposts the receive, checks the 8 bytes and posts the echo (B) or the next round
 *   (A) from the callback, then re-arms. No consumer thread waits anywhere. Round trip = A's post to A's callback
 *   seeing B's echo.</li>
 *   <li><b>block</b>: as notify, but a consumer thread on each side parks until the callback wakes it, and that
 *   thread posts (one thread hand-off more per side).</li>
 * </ul>
 * Prints one JSON object per mode ({@code jndk.write8.poll}, {@code .notify}, {@code .block}) with p50/p99 in µs.
 * Arguments: {@code [iterations] [transport] [key=value provider options...]}; {@code modes=poll,notify,block}
 * (the default) selects the modes run.
 */
public final class JndkLatency {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Object RECEIVE = new Object();
    private static final int DEPTH = 64;
    private static final long WAIT_NS = 10_000_000_000L;
    /** Measuring stops after this long even if fewer rounds were done (a loaded machine). */
    private static final long BUDGET_NS = 5_000_000_000L;
    /** Written instead of a round number: the echo side stops. */
    private static final long STOP = -1;
    /** Whether the spinning side yields the core on each pass ({@code -Djndk.bench.yield=false}: a pure spin). */
    private static final boolean YIELD = !"false".equals(System.getProperty("jndk.bench.yield"));

    /** One side: its QP, CQ, buffers and the thread that parks for its notifications. */
    private static final class Side {
        final NdkResultEx[] results = new NdkResultEx[DEPTH];
        final NdkSge[] local = {new NdkSge()};
        final NdkSge[] none = {};
        NdkQp qp;
        NdkCq cq;
        MemorySegment inbox, outbox;
        NdkMr inboxMr, outboxMr;
        volatile Thread waiter;
        volatile boolean notified;
        int outstanding;

        Side() {
            for (int i = 0; i < results.length; i++) {
                results[i] = new NdkResultEx();
            }
        }

        void onNotify() {
            notified = true;
            LockSupport.unpark(waiter);
        }

        /** Writes {@code value} into the peer's inbox; with {@code solicit}, a silent Write and a 0-byte Send. */
        void post(long value, Side peer, boolean solicit) {
            while (outstanding >= DEPTH / 2) {
                reap(false);
            }
            outbox.set(ValueLayout.JAVA_LONG, 0, value);
            local[0].set(outbox.address(), 8, outboxMr.getLocalToken());
            Calls.check("Write", qp.write(null, local, 1, peer.inbox.address(), peer.inboxMr.getRemoteToken(),
                    solicit ? NdkOpFlags.SILENT_SUCCESS : 0));
            if (solicit) {
                Calls.check("Send", qp.send(null, none, 0, NdkOpFlags.SEND_AND_SOLICIT_EVENT));
            }
            outstanding++;
        }

        /** Reaps completions; returns how many were receives. */
        int reap(boolean expectReceive) {
            int got = 0;
            int n = cq.getCqResultsEx(results, results.length);
            for (int i = 0; i < n; i++) {
                if (results[i].status != NtStatus.STATUS_SUCCESS) {
                    throw new IllegalStateException("completion failed: " + NtStatus.describe(results[i].status));
                }
                if (results[i].requestContext == RECEIVE) {
                    got++;
                } else {
                    outstanding--;
                }
            }
            if (got > 0 && !expectReceive) {
                throw new IllegalStateException("unexpected receive");
            }
            return got;
        }

        /**
         * Polls the inbox until {@code value} (or {@link #STOP}) is there, polling the CQ on each pass as
         * {@code ib_write_lat} does (in the polling engine mode that poll also drives the connection's receive
         * side); returns what was found.
         */
        long spinFor(long value) {
            long deadline = System.nanoTime() + WAIT_NS;
            long v;
            while ((v = (long) LONG.getOpaque(inbox, 0L)) != value && v != STOP) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("value " + value + " never arrived");
                }
                reap(false);
                if ((v = (long) LONG.getOpaque(inbox, 0L)) == value || v == STOP) {
                    break; // the poll placed it (in the polling mode that poll is the receive): no yield first
                }
                if (YIELD) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
            return v; // the Write completions are reaped by the next spin's polls (and by post when many are due)
        }

        /**
         * Parks until one receive completion arrives (notification-driven), re-posts the receive and returns the
         * inbox, which must hold {@code value} (or {@link #STOP}).
         */
        long blockFor(long value) {
            waiter = Thread.currentThread();
            long deadline = System.nanoTime() + WAIT_NS;
            int got = reap(true);
            while (got == 0) {
                notified = false;
                cq.armCq(NdkCqNotifyType.SOLICITED);
                got = reap(true);
                while (got == 0 && !notified) {
                    LockSupport.parkNanos(this, WAIT_NS);
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no receive for " + value);
                    }
                }
                got += reap(true);
            }
            for (int i = 0; i < got; i++) {
                Calls.check("Receive", qp.receive(RECEIVE, none, 0));
            }
            long v = (long) LONG.getOpaque(inbox, 0L);
            if (v != value && v != STOP) {
                throw new IllegalStateException("receive arrived before the written value " + value);
            }
            return v;
        }
    }

    private JndkLatency() {}

    /** FPDUs both adapters received in the last run, and of those, the ones polling consumers received. */
    private static long[] received = {0, 0};

    private static long[] fpdus(Fabric f) {
        long in = 0, polled = 0;
        for (io.jndk.api.NdkAdapter x : new io.jndk.api.NdkAdapter[] {f.a, f.b}) {
            in += x.counters().get(io.jndk.api.NdkCounter.FPDUS_IN);
            polled += x.counters().get(io.jndk.api.NdkCounter.FPDUS_IN_POLLED);
        }
        return new long[] {in, polled};
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        String transport = args.length > 1 ? args[1] : "iwarp";
        Map<String, String> options = new java.util.HashMap<>(Fabric.options(args, 2));
        String modes = options.getOrDefault("modes", "poll,notify,block"); // which to run (not a provider option)
        options.remove("modes");
        for (String mode : new String[] {"poll", "notify", "block"}) {
            if (!java.util.List.of(modes.split(",")).contains(mode)) {
                continue;
            }
            long[] rtt = mode.equals("notify") ? Notified.run(transport, options, iterations)
                    : run(transport, options, iterations, mode.equals("block"));
            Arrays.sort(rtt);
            System.out.printf(java.util.Locale.ROOT, "{\"name\":\"jndk.write8.%s\",\"transport\":\"%s\",\"rtt_p50_us\":%.4f,"
                    + "\"rtt_p99_us\":%.4f,\"iters\":%d,\"fpdus_in\":%d,\"fpdus_in_polled\":%d,\"options\":\"%s\"}%n",
                    mode, transport, rtt[rtt.length / 2] / 1000.0, rtt[(int) (rtt.length * 0.99)] / 1000.0, rtt.length,
                    received[0], received[1], new java.util.TreeMap<>(options).toString().replace("\"", ""));
        }
    }

    /** The notification-driven ping-pong: everything happens in the CQ callbacks (see the class comment). */
    private static final class Notified {
        final Side[] sides = {new Side(), new Side()};
        final long[] rtt;
        final Warmup warm;
        /** Whether the round A posted last is measured. */
        boolean measuring;
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        volatile String failure;
        /** A's post of the current round (written by the main thread for the first, then by A's callbacks). */
        volatile long t0;
        long stopAt = Long.MAX_VALUE;
        int measured;
        volatile boolean finished;

        Notified(int iterations) {
            rtt = new long[iterations];
            warm = new Warmup(iterations / 5);
        }

        static long[] run(String transport, Map<String, String> options, int iterations) throws Exception {
            Notified n = new Notified(iterations);
            Side a = n.sides[0], b = n.sides[1];
            try (Arena arena = Arena.ofShared(); Fabric f = Fabric.open(transport, options)) {
                a.cq = f.cq(f.a, DEPTH * 4, (ctx, st) -> n.onNotify(a, b, true, st));
                b.cq = f.cq(f.b, DEPTH * 4, (ctx, st) -> n.onNotify(b, a, false, st));
                connect(f, arena, a, b, true);
                for (Side s : n.sides) {
                    s.cq.armCq(NdkCqNotifyType.SOLICITED);
                }
                n.t0 = System.nanoTime();
                a.post(1, b, true);
                if (!n.done.await(WAIT_NS + Warmup.MAX_NANOS + BUDGET_NS, java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException("the notification-driven ping-pong stalled after "
                            + n.measured + " rounds");
                }
                if (n.failure != null) {
                    throw new IllegalStateException(n.failure);
                }
                received = fpdus(f);
                return Arrays.copyOf(n.rtt, n.measured);
            }
        }

        /**
         * A CQ notification: take completions, repost receives, answer each echo, re-arm. The provider serializes
         * the callbacks of one CQ; only A's touch the measurement.
         */
        void onNotify(Side self, Side peer, boolean sideA, int cqStatus) {
            if (finished) {
                return;
            }
            try {
                if (cqStatus != NtStatus.STATUS_SUCCESS) {
                    throw new IllegalStateException("CQ status " + NtStatus.describe(cqStatus));
                }
                int got = self.reap(true);
                for (int i = 0; i < got; i++) {
                    Calls.check("Receive", self.qp.receive(RECEIVE, self.none, 0));
                    long v = (long) LONG.getOpaque(self.inbox, 0L);
                    if (!sideA) {
                        self.post(v, peer, true); // B: the echo, from its notification
                        continue;
                    }
                    long now = System.nanoTime();
                    if (measuring) {
                        rtt[measured++] = now - t0;
                    }
                    if (measured == rtt.length || now > stopAt) {
                        finished = true;
                        done.countDown();
                        return;
                    }
                    t0 = System.nanoTime();
                    if (!measuring && warm.measures(v + 1, t0)) {
                        measuring = true;
                        stopAt = t0 + BUDGET_NS;
                    }
                    self.post(v + 1, peer, true); // A: the next round, from its notification
                }
                self.cq.armCq(NdkCqNotifyType.SOLICITED);
            } catch (RuntimeException e) {
                failure = e.toString();
                finished = true;
                done.countDown();
            }
        }
    }

    /**
     * Connects a QP pair over the sides' CQs (made by the caller) and gives each side registered 8-byte in- and
     * outboxes; with {@code receives}, half the queue depth of posted receives (for the Sends that solicit).
     */
    private static void connect(Fabric f, Arena arena, Side a, Side b, boolean receives) {
        Fabric.Pair p = f.connect(a.cq, b.cq, DEPTH);
        a.qp = p.a();
        b.qp = p.b();
        for (Side s : new Side[] {a, b}) {
            s.inbox = arena.allocate(64, 64);
            s.outbox = arena.allocate(64, 64);
            s.inboxMr = f.register(s == a ? f.pdA : f.pdB, s.inbox);
            s.outboxMr = f.register(s == a ? f.pdA : f.pdB, s.outbox);
            for (int i = 0; receives && i < DEPTH / 2; i++) {
                Calls.check("Receive", s.qp.receive(RECEIVE, s.none, 0));
            }
        }
    }

    /**
     * Runs one mode; returns the measured round trips in ns: {@code iterations} after a warm-up of a fifth as many
     * rounds and at least a second ({@link Warmup}), or fewer if measuring takes longer than five seconds.
     */
    static long[] run(String transport, Map<String, String> options, int iterations, boolean blocking) throws Exception {
        Side a = new Side(), b = new Side();
        try (Arena arena = Arena.ofShared(); Fabric f = Fabric.open(transport, options)) {
            a.cq = f.cq(f.a, DEPTH * 4, (ctx, st) -> a.onNotify());
            b.cq = f.cq(f.b, DEPTH * 4, (ctx, st) -> b.onNotify());
            connect(f, arena, a, b, blocking);
            Warmup warm = new Warmup(iterations / 5);
            Thread echo = Thread.ofPlatform().name("echo").start(() -> {
                for (long v = 1; (blocking ? b.blockFor(v) : b.spinFor(v)) != STOP; v++) {
                    b.post(v, a, blocking);
                }
            });
            long[] rtt = new long[iterations];
            int measured = 0;
            long stopAt = Long.MAX_VALUE;
            for (long v = 1; measured < iterations && System.nanoTime() < stopAt; v++) {
                long t = System.nanoTime();
                boolean measures = warm.measures(v, t);
                if (measures && stopAt == Long.MAX_VALUE) {
                    stopAt = t + BUDGET_NS;
                }
                a.post(v, b, blocking);
                if (blocking) {
                    a.blockFor(v);
                } else {
                    a.spinFor(v);
                }
                if (measures) {
                    rtt[measured++] = System.nanoTime() - t;
                }
            }
            a.post(STOP, b, blocking);
            echo.join(WAIT_NS / 1_000_000);
            long deadline = System.nanoTime() + WAIT_NS;
            while ((a.outstanding > 0 || b.outstanding > 0) && System.nanoTime() < deadline) {
                a.reap(blocking);
                b.reap(blocking);
            }
            received = fpdus(f);
            return Arrays.copyOf(rtt, measured);
        }
    }
}
