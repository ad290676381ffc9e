package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.SrqNotificationCallback;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/** Helpers for the queue, completion and lifetime conformance classes: notification recorders, custom QP pairs, closes. */
public final class Queues {
    private Queues() {}

    /** Records CQ or SRQ notifications: statuses in order, contexts, and the largest number of concurrent callbacks. */
    public static final class Notes implements CqNotificationCallback, SrqNotificationCallback {
        public final List<Integer> statuses = new CopyOnWriteArrayList<>();
        public final List<Object> contexts = new CopyOnWriteArrayList<>();
        public final AtomicInteger inside = new AtomicInteger();
        public final AtomicInteger maxInside = new AtomicInteger();
        /** Runs inside the callback (after recording), e.g. to re-arm or poll. */
        public volatile Consumer<Integer> hook;

        @Override
        public void onNotification(Object context, int status) {
            int n = inside.incrementAndGet();
            maxInside.accumulateAndGet(n, Math::max);
            try {
                contexts.add(context == null ? "null" : context);
                statuses.add(status);
                Consumer<Integer> h = hook;
                if (h != null) {
                    h.accept(status);
                }
            } finally {
                inside.decrementAndGet();
            }
        }

        public int count() {
            return statuses.size();
        }

        /** Waits until at least {@code n} notifications arrived. */
        public void await(int n) {
            Kit.awaitTrue(n + " notification(s), have " + statuses, () -> statuses.size() >= n);
        }
    }

    /** A close that was started: the status the close call returned and the future of its completion. */
    public record Closing(int status, CompletableFuture<Void> done, AtomicInteger completions) {}

    /** Starts a close and records how it returned and how many close completions arrive. */
    public static Closing startClose(NdkClosable o) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        AtomicInteger n = new AtomicInteger();
        Object ctx = new Object();
        int s = o.close(c -> {
            n.incrementAndGet();
            if (c == ctx) {
                f.complete(null);
            } else {
                f.completeExceptionally(new AssertionError("close completion must echo the context"));
            }
        }, ctx);
        assertThat(s).as("a close returns SUCCESS or PENDING").isIn(NtStatus.STATUS_SUCCESS, NtStatus.STATUS_PENDING);
        if (s == NtStatus.STATUS_SUCCESS) {
            f.complete(null);
        }
        return new Closing(s, f, n);
    }

    /** Opens an adapter with explicit parameters; returns the status, closing the adapter again on success. */
    public static int openStatus(Mode mode, io.jndk.api.NdkVersion version, Map<String, String> options,
            Ref<io.jndk.api.NdkVersion> ran) {
        Ref<NdkAdapter> ref = new Ref<>();
        int s = io.jndk.api.Ndk.openAdapter(mode.params(options).withVersion(version), ref);
        if (s == NtStatus.NDIS_STATUS_SUCCESS) {
            assertThat(ref.get()).isNotNull();
            if (ran != null) {
                ran.set(ref.get().version());
            }
            ref.get().close();
        } else {
            assertThat(ref.get()).as("a failed open returns no adapter").isNull();
        }
        return s;
    }

    /** One side of a custom connection: separate receive and initiator CQs. */
    public static final class End {
        public NdkAdapter adapter;
        public NdkPd pd;
        public NdkCq rcq;
        public NdkCq icq;
        public NdkQp qp;
        public NdkConnector connector;
        /** The World side whose disconnect callback the connector was given. */
        public World.Side side;

        /** Disconnect events indicated to this end's connector. */
        public int disconnects() {
            return side == null ? 0 : side.disconnects.get();
        }
    }

    /** The shape of the QPs and CQs of a custom connection. */
    public record Shape(int cqDepth, int rqDepth, int iqDepth, int rSge, int iSge, int inline, boolean splitCq) {
        public static Shape standard() {
            return new Shape(256, 32, 32, 4, 4, 64, false);
        }

        public Shape withCqDepth(int d) {
            return new Shape(d, rqDepth, iqDepth, rSge, iSge, inline, splitCq);
        }

        public Shape withIqDepth(int d) {
            return new Shape(cqDepth, rqDepth, d, rSge, iSge, inline, splitCq);
        }

        public Shape split() {
            return new Shape(cqDepth, rqDepth, iqDepth, rSge, iSge, inline, true);
        }
    }

    /** Two connected QPs ({@code a} active, {@code b} passive) on two adapters opened with {@code options}. */
    public static End[] connect(World w, Map<String, String> options, Shape shape) {
        End a = new End();
        End b = new End();
        a.adapter = w.adapter(options);
        b.adapter = w.adapter(options);
        for (End e : new End[] {a, b}) {
            e.pd = w.pd(e.adapter);
            e.rcq = w.cq(e.adapter, shape.cqDepth());
            e.icq = shape.splitCq() ? w.cq(e.adapter, shape.cqDepth()) : e.rcq;
            e.qp = w.qp(e.pd, e.rcq, e.icq, e == a ? "qpA" : "qpB", shape.rqDepth(), shape.iqDepth(), shape.rSge(),
                    shape.iSge(), shape.inline());
        }
        connect(w, a, b);
        return new End[] {a, b};
    }

    /** Connects {@code a.qp} (active) to {@code b.qp} (passive) through a fresh listener on {@code b.adapter}. */
    public static void connect(World w, End a, End b) {
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        Ref<InetSocketAddress> bound = new Ref<>();
        w.listen(b.adapter, incoming, bound);
        World.Pair p = new World.Pair();
        p.address = bound.get();
        p.a.adapter = a.adapter;
        p.a.qp = a.qp;
        p.b.adapter = b.adapter;
        p.b.qp = b.qp;
        w.connectPair(p, incoming, 16, 16);
        a.connector = p.a.connector;
        b.connector = p.b.connector;
        a.side = p.a;
        b.side = p.b;
    }

    /** Polls until a completion with {@code requestContext} shows up; other completions are collected in {@code others}. */
    public static NdkResultEx pollFor(NdkCq cq, Object requestContext, List<NdkResultEx> others) {
        long deadline = System.nanoTime() + Kit.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            NdkResultEx r = Kit.poll(cq);
            if (r.requestContext == requestContext || (r.requestContext != null && r.requestContext.equals(requestContext))) {
                return r;
            }
            if (others != null) {
                others.add(r);
            }
        }
        throw new AssertionError("no completion for " + requestContext);
    }

    /** Drains every queued completion. */
    public static List<NdkResultEx> drain(NdkCq cq) {
        List<NdkResultEx> out = new ArrayList<>();
        NdkResultEx[] r = {new NdkResultEx()};
        while (cq.getCqResultsEx(r, 1) == 1) {
            out.add(r[0]);
            r[0] = new NdkResultEx();
        }
        return out;
    }

    /** Posts {@code n} zero-length receives with contexts {@code prefix + i}. */
    public static void postReceives(NdkQp qp, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(qp.receive(prefix + i, new NdkSge[0], 0)).as("receive %d", i).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
    }

    /** Posts {@code n} zero-length SRQ receives with contexts {@code prefix + i}. */
    public static void postSrqReceives(NdkSrq srq, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(srq.srqReceive(prefix + i, new NdkSge[0], 0)).as("srq receive %d", i)
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
        }
    }

    /** Applies {@code f} to each element; for terse status tables. */
    public static <T> List<Integer> each(List<T> xs, Function<T, Integer> f) {
        List<Integer> out = new ArrayList<>();
        for (T x : xs) {
            out.add(f.apply(x));
        }
        return out;
    }
}
