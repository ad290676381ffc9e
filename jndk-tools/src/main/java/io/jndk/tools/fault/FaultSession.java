package io.jndk.tools.fault;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.fault.FaultKind;
import io.jndk.iwarp.fault.FaultPlan;
import io.jndk.iwarp.fault.FaultProxy;
import io.jndk.tools.fault.FaultTally.Flow;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * One seeded fault session: a connection between the two adapters of a {@link FaultPair} through its own
 * {@link FaultProxy} (no faults during connection setup, the plan from then on), a random sequence of operations
 * (Sends both ways, Writes followed by a Send, Reads, and window bind, Write through the window, Send,
 * invalidate), one at a time, then teardown. Every violation goes to the {@link FaultTally}:
 * <ul>
 *   <li>every posted request completes exactly once, with the type it was posted as; no other completion appears;</li>
 *   <li>a successful Receive or Read carries exactly the source bytes; a Write is exact when the Send that follows
 *       it was received; a window Write likewise;</li>
 *   <li>no byte changes outside what was handed to the provider (guards, local-only regions, sources, the parts
 *       of receive buffers, read sinks and the window region never posted or bound);</li>
 *   <li>without a destructive fault (corrupt, drop, reset) every request succeeds, every step finishes within the
 *       stall bound and the graceful disconnect succeeds;</li>
 *   <li>every object closes within its bound.</li>
 * </ul>
 * After a destructive fault the session waits a short grace for the step, then gives up and tears down (the
 * close flushes what is left: {@code STATUS_CANCELLED}).
 */
final class FaultSession {
    /**
     * @param operations operations to run
     * @param maxLength longest payload of an operation
     * @param graceMillis how long a step may wait once a destructive fault was injected
     * @param stallMillis how long a step may take without one (a longer wait is a violation)
     */
    record Settings(int operations, int maxLength, long graceMillis, long stallMillis) {}

    private static final AtomicLong IDS = new AtomicLong(1);
    private static final int NOTIFY = 8;
    private static final int TAIL = 16;
    private static final int DEPTH = 32;

    private final FaultPair pair;
    private final FaultTally tally;
    private final Settings settings;
    private final String name;
    private final SplittableRandom random;
    private final long id = IDS.getAndIncrement();
    private final int slot;
    private final Arena arena = Arena.ofShared();
    private final List<Req> posted = new ArrayList<>();
    private final NdkResultEx[] results = Session.results(16);
    private final FaultProxy proxy;
    private final FaultPlan plan;
    private final End a = new End();
    private final End b = new End();
    private GuardedRegion srcA;
    private GuardedRegion sinkA;
    private GuardedRegion srcB;
    private GuardedRegion rxB;
    private GuardedRegion tgtB;
    private GuardedRegion rdB;
    private GuardedRegion winB;
    private final List<GuardedRegion> canaries = new ArrayList<>();
    private NdkMr tgtMr;
    private NdkMr rdMr;
    private NdkMr winMr;
    private NdkMw window;
    private boolean tearingDown;
    private long damageSince;
    private boolean released;

    /** One side of the connection. */
    private static final class End {
        NdkPd pd;
        NdkCq cq;
        NdkQp qp;
        NdkConnector connector;
        final List<NdkMr> mrs = new ArrayList<>();
    }

    /** A posted request; it is its own request context. */
    private static final class Req {
        final String what;
        final int type;
        final int length;
        final Flow flow;
        final Supplier<String> check;
        boolean done;
        int status;

        Req(String what, int type, int length, Flow flow, Supplier<String> check) {
            this.what = what;
            this.type = type;
            this.length = length;
            this.flow = flow;
            this.check = check;
        }
    }

    /** The operations a session draws from. */
    private enum Op { SEND_AB, SEND_BA, WRITE, READ, WINDOW }

    /**
     * @param pair the adapters (and listener) the session connects
     * @param seed the workload seed
     * @param plan the faults once connected
     * @param settings sizes and bounds
     * @param tally where counts and violations go
     * @param name how messages name the session (for example {@code "seed 42 session 1"})
     * @throws IOException if the proxy cannot listen
     */
    FaultSession(FaultPair pair, long seed, FaultPlan plan, Settings settings, FaultTally tally, String name)
            throws IOException {
        this.pair = pair;
        this.tally = tally;
        this.settings = settings;
        this.name = name;
        this.plan = plan;
        this.random = new SplittableRandom(seed);
        this.slot = settings.maxLength() + TAIL;
        this.proxy = FaultProxy.start(pair.address, FaultPlan.none());
    }

    /**
     * Runs the session to its end (teardown included; then {@link #release}); never throws for what it checks.
     */
    void run() {
        try {
            setUp();
            connect();
            proxy.plan(plan);
            for (int i = 0; i < settings.operations() && step(i); i++) {
                tally.operations.increment();
            }
        } catch (RuntimeException e) {
            if (!damaged()) {
                violation("failed: " + e);
            }
        } finally {
            tearDown();
        }
    }

    private void setUp() {
        int size = settings.operations() * slot;
        long s = random.nextLong() | 1;
        srcA = new GuardedRegion(arena, size, s);
        sinkA = new GuardedRegion(arena, size, 0);
        srcB = new GuardedRegion(arena, size, s + 2);
        rxB = new GuardedRegion(arena, size, 0);
        tgtB = new GuardedRegion(arena, size, 0);
        rdB = new GuardedRegion(arena, size, s + 4);
        winB = new GuardedRegion(arena, size, 0);
        for (End e : new End[] {a, b}) {
            NdkAdapter adapter = e == a ? pair.active : pair.passive;
            e.pd = Sync.create("CreatePd", adapter::createPd);
            e.cq = Session.cq(adapter, 4 * DEPTH);
            NdkPd pd = e.pd;
            NdkCq cq = e.cq;
            e.qp = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(cq, cq, name, DEPTH, DEPTH, 1, 1, 0, cc, c, o));
            GuardedRegion canary = new GuardedRegion(arena, 256, s + 6);
            canaries.add(canary);
            register(e, canary, NdkMrFlags.ALLOW_LOCAL_WRITE);
        }
        register(a, srcA, NdkMrFlags.ALLOW_LOCAL_READ);
        register(a, sinkA, NdkMrFlags.ALLOW_LOCAL_WRITE);
        register(b, srcB, NdkMrFlags.ALLOW_LOCAL_READ);
        register(b, rxB, NdkMrFlags.ALLOW_LOCAL_WRITE);
        tgtMr = register(b, tgtB, NdkMrFlags.ALLOW_REMOTE_WRITE);
        rdMr = register(b, rdB, NdkMrFlags.ALLOW_REMOTE_READ);
        winMr = register(b, winB, NdkMrFlags.ALLOW_LOCAL_WRITE);
        NdkPd pd = b.pd;
        window = Sync.create("CreateMw", pd::createMw);
    }

    private NdkMr register(End e, GuardedRegion r, int flags) {
        NdkPd pd = e.pd;
        NdkMr mr = Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
        e.mrs.add(mr);
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(r.mdl(), r.size(), flags, rc, c));
        return mr;
    }

    private void connect() {
        pair.connect(a.qp, b.qp, proxy.address(), id, c -> {
            if (a.connector == null) {
                a.connector = c;
            } else {
                b.connector = c;
            }
        });
    }

    /** Runs operation {@code i} (its own slot in every region). @return false once the session gave up */
    private boolean step(int i) {
        int off = i * slot;
        int len = 1 + random.nextInt(settings.maxLength());
        int room = len + random.nextInt(TAIL + 1);
        Op op = Op.values()[random.nextInt(Op.values().length)];
        return switch (op) {
            case SEND_AB -> await(receive(b, rxB, off, room, len, srcA, Flow.RECEIVE_B),
                send(a, srcA, off, len, Flow.SEND_A));
            case SEND_BA -> await(receive(a, sinkA, off, room, len, srcB, Flow.RECEIVE_A),
                send(b, srcB, off, len, Flow.SEND_B));
            case WRITE -> await(notify(off, () -> placed(tgtB, off, len, "Write")),
                post("Write", NdkOperationType.WRITE, len, Flow.WRITE, null, ctx -> a.qp.write(ctx,
                    new NdkSge[] {srcA.sge(off, len, lkey(a, 1))}, 1, tgtB.address(off), tgtMr.getRemoteToken(), 0)),
                send(a, srcA, off, NOTIFY, Flow.SEND_A)) && grant(tgtB, off, len);
            case READ -> grant(sinkA, off, len) && await(post("Read", NdkOperationType.READ, len, Flow.READ,
                () -> sinkA.holds(off, rdB, off, len) ? null : "Read of " + len + " bytes not exact",
                ctx -> a.qp.read(ctx, new NdkSge[] {sinkA.sge(off, len, lkey(a, 2))}, 1, rdB.address(off),
                    rdMr.getRemoteToken(), 0)));
            case WINDOW -> windowWrite(off, len);
        };
    }

    /** Bind a window over the slot, Write through it, Send behind the Write, invalidate the window. */
    private boolean windowWrite(int off, int len) {
        winB.grant(off, len);
        if (!await(post("Bind", NdkOperationType.BIND, 0, null, null, ctx -> b.qp.bind(ctx, winMr, window,
                winB.address(off), len, NdkOpFlags.ALLOW_REMOTE_WRITE)))) {
            return false;
        }
        int token = window.getRemoteToken();
        return await(notify(off, () -> placed(winB, off, len, "window Write")),
            post("Write", NdkOperationType.WRITE, len, Flow.WRITE, null, ctx -> a.qp.write(ctx,
                new NdkSge[] {srcA.sge(off, len, lkey(a, 1))}, 1, winB.address(off), token, 0)),
            send(a, srcA, off, NOTIFY, Flow.SEND_A))
            && await(post("Invalidate", NdkOperationType.INVALIDATE, 0, null, null, ctx -> b.qp.invalidate(ctx, window,
                0)));
    }

    /**
     * The verdict on a Write whose following Send arrived: its bytes must be at the target, except after a drop.
     * A drop that removes exactly whole FPDUs leaves a well-framed stream with valid CRCs, and DDP tagged messages
     * carry no sequence number, so such a loss is undetectable by design (iWARP relies on TCP losing nothing); then
     * each byte must still be either the old one or the Write's.
     */
    private String placed(GuardedRegion target, int off, int len, String what) {
        if (target.holds(off, srcA, off, len)) {
            tally.succeeded.addAndGet(Flow.WRITE_PLACED.ordinal(), len);
            return null;
        }
        if (proxy.injected(FaultKind.DROP) > 0 && target.holdsOrUnchanged(off, srcA, off, len)) {
            return null;
        }
        return what + " of " + len + " bytes not exact although the Send behind it arrived";
    }

    /** Records a grant made by the step just run (so the end check allows its bytes to change). */
    private static boolean grant(GuardedRegion r, int off, int len) {
        r.grant(off, len);
        return true;
    }

    /** The local token of the {@code index}-th registration of an end (0 canary, 1 source, 2 sink or receive). */
    private static int lkey(End e, int index) {
        return e.mrs.get(index).getLocalToken();
    }

    /** The receive at B for the Send that follows a Write; its success proves the Write is placed. */
    private Req notify(int off, Supplier<String> written) {
        return receive(b, rxB, off, NOTIFY, NOTIFY, srcA, Flow.RECEIVE_B, written);
    }

    private Req receive(End e, GuardedRegion into, int off, int room, int len, GuardedRegion from, Flow flow) {
        return receive(e, into, off, room, len, from, flow, () -> null);
    }

    private Req receive(End e, GuardedRegion into, int off, int room, int len, GuardedRegion from, Flow flow,
                        Supplier<String> also) {
        into.grant(off, room);
        return post((e == a ? "active" : "passive") + " Receive", NdkOperationType.RECEIVE, len, flow, () -> {
            if (!into.holds(off, from, off, len)) {
                return "Receive of " + len + " bytes not exact";
            }
            if (!into.unchanged(off + len, room - len)) {
                return "Receive wrote past the " + len + " bytes it reported";
            }
            return also.get();
        }, ctx -> e.qp.receive(ctx, new NdkSge[] {into.sge(off, room, lkey(e, 2))}, 1));
    }

    private Req send(End e, GuardedRegion from, int off, int len, Flow flow) {
        return post((e == a ? "active" : "passive") + " Send", NdkOperationType.SEND, len, flow, null,
            ctx -> e.qp.send(ctx, new NdkSge[] {from.sge(off, len, lkey(e, 1))}, 1, 0));
    }

    /** The post itself: {@code (context) -> status}. */
    @FunctionalInterface
    private interface Post {
        int post(Object context);
    }

    private Req post(String what, int type, int length, Flow flow, Supplier<String> check, Post call) {
        Req r = new Req(what, type, length, flow, check);
        posted.add(r);
        tally.requests.increment();
        int s = call.post(r);
        if (s != NtStatus.STATUS_SUCCESS) {
            r.done = true;
            r.status = s;
            failed(r.what + " post returned " + NtStatus.describe(s));
        }
        return r;
    }

    /** Waits for a step's requests. @return true when all completed, false when the session gives up */
    private boolean await(Req... step) {
        long start = System.nanoTime();
        IntSupplier pending = () -> {
            int n = 0;
            for (Req r : step) {
                n += r.done ? 0 : 1;
            }
            return n;
        };
        for (int spins = 0; ; spins++) {
            drain();
            if (pending.getAsInt() == 0) {
                for (Req r : step) {
                    if (r.status != NtStatus.STATUS_SUCCESS) {
                        return false;
                    }
                }
                return true;
            }
            long now = System.nanoTime();
            if (damaged()) {
                damageSince = damageSince == 0 ? now : damageSince;
                if (now - damageSince > TimeUnit.MILLISECONDS.toNanos(settings.graceMillis())) {
                    return false;
                }
            } else if (now - start > TimeUnit.MILLISECONDS.toNanos(settings.stallMillis())) {
                violation("a step did not finish within " + settings.stallMillis() + " ms without a destructive fault");
                return false;
            }
            pause(spins);
        }
    }

    private static void pause(int spins) {
        if (spins < 64) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(100_000);
        }
    }

    /** Takes every completion queued on both CQs and checks it. */
    private void drain() {
        for (End e : new End[] {a, b}) {
            int n;
            while (e.cq != null && (n = e.cq.getCqResultsEx(results, results.length)) > 0) {
                for (int i = 0; i < n; i++) {
                    completed(results[i]);
                }
            }
        }
    }

    private void completed(NdkResultEx res) {
        if (!(res.requestContext instanceof Req r) || !posted.contains(r)) {
            violation("a completion nobody posted: " + res);
            return;
        }
        if (r.done) {
            violation(r.what + " completed twice: " + res);
            return;
        }
        r.done = true;
        r.status = res.status;
        if (res.status == NtStatus.STATUS_SUCCESS) {
            if (res.type != r.type) {
                violation(r.what + " completed as type " + NdkOperationType.name(res.type));
            }
            if ((r.type == NdkOperationType.RECEIVE || r.type == NdkOperationType.READ) && res.bytesTransferred != r.length) {
                violation(r.what + " reported " + res.bytesTransferred + " bytes, expected " + r.length);
            }
            String wrong = r.check == null ? null : r.check.get();
            if (wrong != null) {
                violation(wrong);
            } else if (r.check != null) {
                tally.bytesVerified.add(r.length);
            }
            if (r.flow != null) {
                tally.succeeded.addAndGet(r.flow.ordinal(), r.length);
            }
        } else if (!(tearingDown && res.status == NtStatus.STATUS_CANCELLED)) {
            failed(r.what + " completed " + NtStatus.describe(res.status));
        }
    }

    /** An error outcome: allowed after a destructive fault, a violation otherwise. */
    private void failed(String what) {
        if (!damaged() && !tearingDown) {
            violation(what + " without a destructive fault");
        }
    }

    private boolean damaged() {
        return proxy.destructive() > 0;
    }

    private void violation(String v) {
        tally.violation(name + ": " + v);
    }

    private void tearDown() {
        boolean clean = !damaged();
        tearingDown = true;
        try {
            if (clean && a.connector != null && b.connector != null) {
                int s = Sync.get(Sync.start((rc, c) -> a.connector.disconnect(rc, c)), "Disconnect");
                if (s != NtStatus.STATUS_SUCCESS) {
                    violation("graceful Disconnect returned " + NtStatus.describe(s));
                }
            }
            close(a.connector, b.connector, a.qp, b.qp);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.stallMillis());
            for (int spins = 0; posted.stream().anyMatch(r -> !r.done) && System.nanoTime() < deadline; spins++) {
                drain();
                pause(spins);
            }
            drain();
            for (Req r : posted) {
                if (!r.done) {
                    violation(r.what + " never completed (not even flushed by the QP close)");
                }
            }
            close(window);
            close(a.mrs.toArray(new NdkMr[0]));
            close(b.mrs.toArray(new NdkMr[0]));
            close(a.cq, b.cq, a.pd, b.pd);
        } catch (RuntimeException e) {
            violation("teardown failed: " + e);
        }
        checkRegions(clean);
        tally.sessions.increment();
        if (!clean) {
            tally.damagedSessions.increment();
        }
        for (FaultKind k : FaultKind.values()) {
            tally.faults.addAndGet(k.ordinal(), proxy.injected(k));
        }
        proxy.close();
    }

    /**
     * Releases the session's memory once the transport let go of it: a connection aborted by the teardown may
     * still have a read into registered memory pending until its channel closes (see docs/RELIABILITY.md).
     * Also checks that no byte changed since the teardown.
     *
     * @param last whether this is the final attempt (after the adapters closed): then failing is a violation
     * @return true when released (or already released), false to try again later
     */
    synchronized boolean release(boolean last) {
        if (released) {
            return true;
        }
        for (GuardedRegion r : regions()) {
            if (r.changedSinceFreeze()) {
                violation("memory written after its teardown (the regions were closed)");
                break;
            }
        }
        try {
            arena.close();
            released = true;
        } catch (IllegalStateException e) {
            if (last) {
                violation("memory still in use after the adapters closed: " + e.getMessage());
                released = true;
            }
        }
        return released;
    }

    private List<GuardedRegion> regions() {
        List<GuardedRegion> all = new ArrayList<>(canaries);
        for (GuardedRegion r : new GuardedRegion[] {srcA, sinkA, srcB, rxB, tgtB, rdB, winB}) {
            if (r != null) {
                all.add(r);
            }
        }
        return all;
    }

    private void close(NdkClosable... objects) {
        for (NdkClosable o : objects) {
            try {
                Sync.close(o);
            } catch (RuntimeException e) {
                violation("close did not complete: " + e.getMessage());
            }
        }
    }

    private void checkRegions(boolean clean) {
        if (srcA == null) {
            return;
        }
        if (!clean) {
            tgtB.grant(0, tgtB.size()); // the whole region is granted to the peer: a damaged header may hit any of it
        }
        String[] names = {"active source", "active sink", "passive source", "passive receive", "passive write target",
            "passive read source", "passive window region"};
        GuardedRegion[] regions = {srcA, sinkA, srcB, rxB, tgtB, rdB, winB};
        for (int i = 0; i < regions.length; i++) {
            String d = regions[i].damage(names[i]);
            if (d != null) {
                violation(d);
            }
        }
        for (GuardedRegion c : canaries) {
            String d = c.damage("local-only canary");
            if (d != null) {
                violation(d);
            }
        }
        for (GuardedRegion r : regions()) {
            r.freeze();
        }
    }
}
