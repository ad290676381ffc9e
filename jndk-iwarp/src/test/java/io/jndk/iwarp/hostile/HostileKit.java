package io.jndk.iwarp.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import io.jndk.iwarp.cm.CmTestSupport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The jndk side of the hostile-peer tests: an adapter opened through the public API over the iwarp transport, with
 * short MPA timeouts, a PD with registered memory surrounded by guard octets, a second PD with a region of its own,
 * and a listener that accepts every request into the QP prepared by {@link #prepare} (and closes the connector of any
 * request nobody prepared for). {@link #close()} closes every object, then the adapter, and checks that sockets and
 * jndk threads are back to where they were before the adapter was opened ({@link Leaks}) and that no exception
 * escaped a thread or was logged as a warning under {@code io.jndk} meanwhile.
 */
final class HostileKit implements AutoCloseable {

    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    static final int LENGTH = 4096;
    static final int GUARD = 64;
    static final byte GUARD_BYTE = (byte) 0xA5;
    static final byte FILL = 0x11;
    static final int RECEIVES = 4;
    static final int RECEIVE_LENGTH = 256;
    static final int ALL = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;
    /** MPA Request wait of the listener: short, tests wait for drops (a connect's Reply wait is connect.timeout.ms). */
    static final long MPA_TIMEOUT_MS = 500;

    /** Registered memory with {@value #GUARD} guard octets on each side. */
    record Guarded(String name, MemorySegment whole, MemorySegment inner, NdkMr mr) {
        long base() {
            return inner.address();
        }

        int token() {
            return mr.getRemoteToken();
        }

        boolean guardsIntact() {
            for (int i = 0; i < GUARD; i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != GUARD_BYTE
                    || whole.get(ValueLayout.JAVA_BYTE, GUARD + inner.byteSize() + i) != GUARD_BYTE) {
                    return false;
                }
            }
            return true;
        }

        boolean untouched() {
            for (long i = 0; i < inner.byteSize(); i++) {
                if (inner.get(ValueLayout.JAVA_BYTE, i) != FILL) {
                    return false;
                }
            }
            return true;
        }

        void refill() {
            inner.fill(FILL);
        }
    }

    /** The jndk QP of one connection and what the consumer saw of it. */
    static final class Accepting {
        final NdkQp qp;
        final int ird;
        final int ord;
        volatile NdkConnector connector;
        final CompletableFuture<Integer> accepted = new CompletableFuture<>();
        final CompletableFuture<Void> disconnected = new CompletableFuture<>();
        /** Run in the disconnect callback (on the adapter's callback thread), as a consumer that closes at once. */
        volatile Runnable onDisconnect;

        Accepting(NdkQp qp, int ird, int ord) {
            this.qp = qp;
            this.ird = ird;
            this.ord = ord;
        }
    }

    final Leaks.Snapshot baseline = Leaks.snapshot();
    /** Exceptions that escaped a thread, and warnings with a runtime exception logged under {@code io.jndk}. */
    private final List<Throwable> escaped = new CopyOnWriteArrayList<>();
    private final Thread.UncaughtExceptionHandler previousHandler = Thread.getDefaultUncaughtExceptionHandler();
    private final Logger jndkLog = Logger.getLogger("io.jndk");
    private final Handler logWatch = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()
                && (r.getThrown() instanceof RuntimeException || r.getThrown() instanceof Error)) {
                escaped.add(new AssertionError("logged by " + r.getLoggerName() + ": " + r.getMessage(), r.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Deque<NdkClosable> objects = new ConcurrentLinkedDeque<>();
    private final Arena arena = Arena.ofShared();
    private final List<Guarded> guarded = new ArrayList<>();
    final NdkAdapter adapter;
    final NdkPd pd;
    final NdkPd otherPd;
    final NdkCq cq;
    /** Receive buffers: {@value #RECEIVES} slices of {@value #RECEIVE_LENGTH} octets. */
    final Guarded receives;
    /** Remote read and write. */
    final Guarded rw;
    /** Remote read only. */
    final Guarded readOnly;
    /** Remote read and write, registered in {@link #otherPd}. */
    final Guarded foreign;
    final NdkListener listener;
    final InetSocketAddress address;
    final AtomicInteger connectEvents = new AtomicInteger();
    private volatile Accepting next;

    HostileKit() {
        this(Map.of());
    }

    /** @param extra adapter options on top of the short MPA timeouts */
    HostileKit(Map<String, String> extra) {
        Map<String, String> options = new HashMap<>();
        options.put("mpa.timeout.ms", Long.toString(MPA_TIMEOUT_MS));
        options.put("accept.timeout.ms", "3000");
        options.putAll(extra);
        Thread.setDefaultUncaughtExceptionHandler((th, e) -> escaped.add(new AssertionError("uncaught in " + th, e)));
        jndkLog.addHandler(logWatch);
        adapter = Ndk.open(NdkOpenParameters.of("iwarp", InetAddress.getLoopbackAddress()).withOptions(options));
        try {
            pd = create(r -> adapter.createPd(null, null, r));
            otherPd = create(r -> adapter.createPd(null, null, r));
            cq = create(r -> adapter.createCq(256, null, null, null, null, null, r));
            receives = register("receives", pd, RECEIVES * RECEIVE_LENGTH, NdkMrFlags.ALLOW_LOCAL_WRITE);
            rw = register("rw", pd, LENGTH, ALL);
            readOnly = register("readOnly", pd, LENGTH, NdkMrFlags.ALLOW_REMOTE_READ);
            foreign = register("foreign", otherPd, LENGTH, ALL);
            listener = create(r -> adapter.createListener((ctx, c) -> onConnect(c), null, null, null, r));
            InetAddress lo = InetAddress.getLoopbackAddress();
            ok("listen", request(rc -> listener.listen(new InetSocketAddress(lo, 0), rc, null)));
            Ref<InetSocketAddress> where = new Ref<>();
            ok("address", listener.getLocalAddress(where, new IntRef(28)));
            address = where.get();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Registers {@code length} octets (filled with {@link #FILL}) between two guards. */
    Guarded register(String name, NdkPd in, int length, int flags) {
        MemorySegment whole = arena.allocate(length + 2L * GUARD, 4096);
        whole.fill(GUARD_BYTE);
        MemorySegment inner = whole.asSlice(GUARD, length);
        inner.fill(FILL);
        NdkMr mr = create(r -> in.createMr(false, null, null, r));
        ok("register " + name, request(rc -> mr.registerMr(Mdl.of(inner), length, flags, rc, null)));
        Guarded g = new Guarded(name, whole, inner, mr);
        guarded.add(g);
        return g;
    }

    private void onConnect(NdkConnector c) {
        connectEvents.incrementAndGet();
        Accepting a = next;
        next = null;
        if (a == null) {
            c.close(null, null);
            return;
        }
        a.connector = c;
        objects.push(c);
        int s = c.accept(a.qp, a.ird, a.ord, null, ctx -> {
            a.disconnected.complete(null);
            Runnable r = a.onDisconnect;
            if (r != null) {
                r.run();
            }
        }, null,
            (ctx, st) -> a.accepted.complete(st), null);
        if (s != NtStatus.STATUS_PENDING) {
            a.accepted.complete(s);
        }
    }

    /**
     * Creates a QP with {@value #RECEIVES} receives posted (slice i of {@link #receives} for receive i) that the
     * next incoming request is accepted into, with inbound read limit {@code ird} (and outbound 1).
     */
    Accepting prepare(int ird) {
        return prepare(ird, 1);
    }

    /** As {@link #prepare(int)}, with outbound read limit {@code ord}. */
    Accepting prepare(int ird, int ord) {
        NdkQp qp = create(r -> pd.createQp(cq, cq, "hostile", RECEIVES, 4, 1, 1, 0, null, null, r));
        for (int i = 0; i < RECEIVES; i++) {
            NdkSge sge = new NdkSge(receives.base() + (long) i * RECEIVE_LENGTH, RECEIVE_LENGTH,
                receives.mr().getLocalToken());
            ok("receive", qp.receive("r" + i, new NdkSge[] {sge}, 1));
        }
        Accepting a = new Accepting(qp, ird, ord);
        next = a;
        return a;
    }

    /**
     * A fresh valid connection to the listener moves data (a Write lands in {@link #rw}, a Send in a receive) and
     * closes gracefully; the leak counters see its socket and threads while it is open.
     */
    void servesAValidConnection() throws Exception {
        rw.refill();
        receives.refill();
        Accepting established = prepare(1);
        byte[] text = "valid after hostile".getBytes(StandardCharsets.US_ASCII);
        try (RawPeer p = RawPeer.establish(address, false, 1)) {
            assertThat(NtStatus.name(join(established.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
            byte[] written = "written!".getBytes(StandardCharsets.US_ASCII);
            p.write(RawPeer.concat(p.rdmaWrite(rw.token(), rw.base() + 8, written), p.send(1, text)));
            NdkResultEx r = receiveCompletions(1).get(0);
            assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_SUCCESS");
            assertThat(r.bytesTransferred).isEqualTo(text.length);
            assertThat(receives.inner().asSlice(0, text.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(text);
            assertThat(rw.inner().asSlice(8, written.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(written);
            assertThat(Leaks.jndkThreads()).as("the thread count sees the connection's virtual threads")
                .anyMatch(n -> n.startsWith("iwarp-"));
            assertThat(Leaks.sockets()).as("the socket count sees the connection").isGreaterThanOrEqualTo(2);
            // a graceful close: the consumer hears of it and closes its side, then jndk's socket closes
            p.socket.shutdownOutput();
            established.disconnected.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            finish(established);
            assertThat(CmTestSupport.readUntilClose(p.socket)).isEmpty();
        }
        assertThat(receiveCompletions(RECEIVES - 1)).as("the other receives, flushed by the QP's close")
            .allMatch(r -> r.status == NtStatus.STATUS_CANCELLED);
        assertGuardsIntact();
    }

    /** Closes the connector (if any) and the QP of a finished connection. */
    void finish(Accepting a) {
        next = null;
        if (a.connector != null) {
            close(a.connector);
        }
        close(a.qp);
    }

    /** Waits for {@code n} receive completions (initiator completions are skipped) and returns them in order. */
    List<NdkResultEx> receiveCompletions(int n) {
        List<NdkResultEx> all = new ArrayList<>();
        await(n + " receive completions", () -> {
            takeCompletions(all);
            return all.stream().filter(HostileKit::isReceive).count() >= n;
        });
        return all.stream().filter(HostileKit::isReceive).toList();
    }

    /** Appends every completion the CQ holds now to {@code into}, in order. */
    void takeCompletions(List<NdkResultEx> into) {
        NdkResultEx[] r = {new NdkResultEx()};
        while (cq.getCqResultsEx(r, 1) == 1) {
            into.add(r[0]);
            r[0] = new NdkResultEx();
        }
    }

    static boolean isReceive(NdkResultEx r) {
        return r.type == NdkOperationType.RECEIVE || r.type == NdkOperationType.RECEIVE_AND_INVALIDATE;
    }

    /** The next completion of any kind. */
    NdkResultEx completion() {
        NdkResultEx[] r = {new NdkResultEx()};
        await("a completion", () -> cq.getCqResultsEx(r, 1) == 1);
        return r[0];
    }

    /** Every guard octet around every registered buffer still holds {@link #GUARD_BYTE}. */
    void assertGuardsIntact() {
        for (Guarded g : guarded) {
            assertThat(g.guardsIntact()).as("guards around %s", g.name()).isTrue();
        }
    }

    <T extends NdkObject> T create(Function<Ref<T>, Integer> call) {
        Ref<T> out = new Ref<>();
        ok("create", call.apply(out));
        T o = out.get();
        assertThat(o).isNotNull();
        if (o instanceof NdkClosable c) {
            objects.push(c);
        }
        return o;
    }

    /** Closes {@code o} and waits for its close completion. */
    void close(NdkClosable o) {
        objects.remove(o);
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (o.close(ctx -> f.complete(null), null) != NtStatus.STATUS_PENDING) {
            f.complete(null);
        }
        try {
            f.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            throw new AssertionError("close of " + o + " did not complete", e);
        }
    }

    /**
     * Starts closing {@code o} without waiting (callbacks may do this): the future completes with its close
     * completion.
     */
    CompletableFuture<Void> closeLater(NdkClosable o) {
        objects.remove(o);
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (o.close(ctx -> f.complete(null), null) != NtStatus.STATUS_PENDING) {
            f.complete(null);
        }
        return f;
    }

    /** Closes every object (newest first) and the adapter; then sockets and jndk threads return to the baseline. */
    @Override
    public void close() {
        close(() -> { });
    }

    /**
     * As {@link #close()}, running {@code afterArena} once the arena is closed (or failed to close), before the leak
     * check: a test's own sockets close there.
     */
    void close(Runnable afterArena) {
        try {
            while (!objects.isEmpty()) {
                close(objects.peek());
            }
            if (adapter != null) {
                adapter.close();
            }
            assertGuardsIntact();
        } finally {
            try {
                arena.close();
            } finally {
                afterArena.run();
                jndkLog.removeHandler(logWatch);
                Thread.setDefaultUncaughtExceptionHandler(previousHandler);
            }
        }
        Leaks.assertBackTo(baseline);
        if (!escaped.isEmpty()) {
            throw new AssertionError(escaped.size() + " exception(s) escaped jndk threads", escaped.get(0));
        }
    }

    interface RequestCall {
        int call(RequestCompletion completion);
    }

    static int request(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((ctx, st) -> f.complete(st));
        return s == NtStatus.STATUS_PENDING ? join(f) : s;
    }

    static int join(CompletableFuture<Integer> f) {
        try {
            return f.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            throw new AssertionError("request did not complete", e);
        }
    }

    static void ok(String what, int status) {
        assertThat(NtStatus.name(status)).as(what).isEqualTo("STATUS_SUCCESS");
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(POLL_NANOS); // polling with a deadline, not a synchronisation sleep
        }
    }
}
