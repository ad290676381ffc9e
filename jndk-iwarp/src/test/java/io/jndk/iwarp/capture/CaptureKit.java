package io.jndk.iwarp.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * NDK calls for the capture tests through the public API, inline or pending, with bounded waits (polling with a
 * deadline, no sleeps). Objects created through {@link #create} are closed by {@link #closeAll()}, newest first.
 */
final class CaptureKit {

    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    static final int ALL = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;

    private final Deque<NdkClosable> objects = new ArrayDeque<>();

    /** One side of a connection. */
    static final class Side {
        NdkPd pd;
        NdkCq cq;
        NdkQp qp;
        NdkConnector connector;
        final AtomicInteger disconnects = new AtomicInteger();
    }

    /** Two connected QPs: {@code a} connected to {@code b}'s listener. */
    static final class Pair {
        final Side a = new Side();
        final Side b = new Side();
        NdkListener listener;
    }

    /** A request call given a completion and its context. */
    interface RequestCall {
        int call(RequestCompletion completion, Object context);
    }

    <T extends NdkObject> T create(Function<Ref<T>, Integer> call) {
        Ref<T> out = new Ref<>();
        int s = call.apply(out);
        assertThat(NtStatus.name(s)).as("create").isEqualTo("STATUS_SUCCESS");
        T o = out.get();
        assertThat(o).isNotNull();
        if (o instanceof NdkClosable c) {
            objects.push(c);
        }
        return o;
    }

    /** Creates PD, CQ and QP on each adapter and connects them (a active, b passive). */
    Pair connect(NdkAdapter a, NdkAdapter b) {
        Pair p = new Pair();
        for (Side s : new Side[] {p.a, p.b}) {
            NdkAdapter adapter = s == p.a ? a : b;
            s.pd = create(r -> adapter.createPd(null, null, r));
            s.cq = create(r -> adapter.createCq(64, null, null, null, null, null, r));
            String name = s == p.a ? "qpA" : "qpB";
            s.qp = create(r -> s.pd.createQp(s.cq, s.cq, name, 16, 16, 2, 2, 0, null, null, r));
        }
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        p.listener = create(r -> b.createListener((ctx, c) -> incoming.add(c), null, null, null, r));
        InetAddress lo = InetAddress.getLoopbackAddress();
        assertThat(NtStatus.name(request((rc, c) -> p.listener.listen(new InetSocketAddress(lo, 0), rc, c))))
            .isEqualTo("STATUS_SUCCESS");
        Ref<InetSocketAddress> where = new Ref<>();
        assertThat(p.listener.getLocalAddress(where, new IntRef(28))).isEqualTo(NtStatus.STATUS_SUCCESS);
        p.a.connector = create(r -> a.createConnector(null, null, r));
        CompletableFuture<Integer> connected = start((rc, c) -> p.a.connector.connect(p.a.qp,
            new InetSocketAddress(lo, 0), where.get(), 4, 4, "hi".getBytes(StandardCharsets.US_ASCII), rc, c));
        await("connect event", () -> !incoming.isEmpty() || connected.isDone());
        p.b.connector = incoming.poll();
        assertThat(p.b.connector).as("connect event (connect ended with %s)", connected.getNow(null)).isNotNull();
        objects.push(p.b.connector);
        CompletableFuture<Integer> accepted = start((rc, c) -> p.b.connector.accept(p.b.qp, 4, 4, new byte[] {1},
            ctx -> p.b.disconnects.incrementAndGet(), null, rc, c));
        assertThat(NtStatus.name(join(connected))).as("connect").isEqualTo("STATUS_SUCCESS");
        assertThat(NtStatus.name(request((rc, c) -> p.a.connector.completeConnect(
            ctx -> p.a.disconnects.incrementAndGet(), null, rc, c)))).as("complete connect").isEqualTo("STATUS_SUCCESS");
        assertThat(NtStatus.name(join(accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
        return p;
    }

    NdkMr register(NdkPd pd, MemorySegment buffer) {
        NdkMr mr = create(r -> pd.createMr(false, null, null, r));
        assertThat(NtStatus.name(request((rc, c) -> mr.registerMr(Mdl.of(buffer), buffer.byteSize(), ALL, rc, c))))
            .isEqualTo("STATUS_SUCCESS");
        return mr;
    }

    /** Closes {@code o} now (and forgets it). */
    void close(NdkClosable o) {
        objects.remove(o);
        CompletableFuture<Void> f = new CompletableFuture<>();
        int s = o.close(ctx -> f.complete(null), null);
        if (s == NtStatus.STATUS_SUCCESS) {
            f.complete(null);
        }
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("close of " + o + " did not complete", e);
        }
    }

    /** Closes every object still open, newest first (connectors before the QPs, QPs before CQs and PDs). */
    void closeAll() {
        while (!objects.isEmpty()) {
            close(objects.peek());
        }
    }

    static CompletableFuture<Integer> start(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((ctx, st) -> f.complete(st), null);
        if (s != NtStatus.STATUS_PENDING) {
            f.complete(s);
        }
        return f;
    }

    static int request(RequestCall call) {
        return join(start(call));
    }

    static int join(CompletableFuture<Integer> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("request did not complete", e);
        }
    }

    static void ok(int status) {
        assertThat(NtStatus.name(status)).as("post").isEqualTo("STATUS_SUCCESS");
    }

    static NdkResultEx poll(NdkCq cq) {
        NdkResultEx[] r = {new NdkResultEx()};
        await("a completion", () -> cq.getCqResultsEx(r, 1) == 1);
        return r[0];
    }

    static NdkResultEx expect(NdkCq cq, int status, int type) {
        NdkResultEx r = poll(cq);
        assertThat(NtStatus.name(r.status)).as("completion %s", r).isEqualTo(NtStatus.name(status));
        assertThat(NdkOperationType.name(r.type)).as("type of %s", r).isEqualTo(NdkOperationType.name(type));
        return r;
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
