package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.DisconnectEventCallback;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.IntRef;
import io.jndk.api.Ref;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test world: adapters opened in one {@link Mode}, every object created through it tracked and closed
 * (children first) at the end, native memory with guard bytes, and a helper that connects two QPs through
 * a listener. Closing the world closes the adapters, which blocks until every object is closed: a leaked
 * object makes the test time out.
 */
public final class World implements AutoCloseable {
    public final Mode mode;
    public final Arena arena = Arena.ofShared();
    private final Deque<NdkClosable> objects = new ArrayDeque<>();
    private final List<NdkAdapter> adapters = new ArrayList<>();
    private final List<Buffer> buffers = new ArrayList<>();

    public World(Mode mode) {
        this.mode = mode;
    }

    public NdkAdapter adapter() {
        return adapter(Map.of());
    }

    public NdkAdapter adapter(Map<String, String> options) {
        NdkAdapter a = Ndk.open(mode.params(options));
        adapters.add(a);
        return a;
    }

    /** Tracks an object so that {@link #close()} closes it (most recent first). */
    public <T extends NdkClosable> T track(T o) {
        objects.push(o);
        return o;
    }

    /** Forgets an object the test closed itself. */
    public void untrack(NdkClosable o) {
        objects.remove(o);
    }

    public NdkPd pd(NdkAdapter a) {
        return track(Kit.create(a::createPd));
    }

    public NdkCq cq(NdkAdapter a, int depth) {
        return cq(a, depth, null);
    }

    /** A CQ whose notifications go to {@code onNotify} (none when null). */
    public NdkCq cq(NdkAdapter a, int depth, io.jndk.api.CqNotificationCallback onNotify) {
        return track(Kit.<NdkCq>create((cc, c, o) -> a.createCq(depth, onNotify, null, null, cc, c, o)));
    }

    public NdkQp qp(NdkPd pd, NdkCq cq, Object ctx) {
        return qp(pd, cq, cq, ctx, 64, 64, 4, 4, 64);
    }

    public NdkQp qp(NdkPd pd, NdkCq rcq, NdkCq icq, Object ctx, int rqDepth, int iqDepth, int rSge, int iSge, int inline) {
        return track(Kit.<NdkQp>create((cc, c, o) -> pd.createQp(rcq, icq, ctx, rqDepth, iqDepth, rSge, iSge, inline, cc, c, o)));
    }

    public NdkMr mr(NdkPd pd, boolean fast) {
        return track(Kit.<NdkMr>create((cc, c, o) -> pd.createMr(fast, cc, c, o)));
    }

    public Buffer buffer(long size) {
        Buffer b = Buffer.allocate(arena, size);
        buffers.add(b);
        return b;
    }

    /** A normal MR registered over the whole buffer with {@code flags}. */
    public NdkMr register(NdkPd pd, Buffer b, int flags) {
        NdkMr mr = mr(pd, false);
        int s = Kit.request((rc, c) -> mr.registerMr(b.mdl(), b.size(), flags, rc, c));
        assertThat(s).as("RegisterMr %s", NtStatus.describe(s)).isEqualTo(NtStatus.STATUS_SUCCESS);
        return mr;
    }

    /** A registered MR with every right. */
    public NdkMr registerAll(NdkPd pd, Buffer b) {
        return register(pd, b, NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE);
    }

    /** Side of a connection. */
    public static final class Side {
        public NdkAdapter adapter;
        public NdkPd pd;
        public NdkCq cq;
        public NdkQp qp;
        public NdkConnector connector;
        public final AtomicInteger disconnects = new AtomicInteger();
        public final DisconnectEventCallback onDisconnect = c -> disconnects.incrementAndGet();
    }

    /** Two connected QPs: {@code a} is the active side, {@code b} the passive one. */
    public static final class Pair {
        public final Side a = new Side();
        public final Side b = new Side();
        public NdkListener listener;
        public InetSocketAddress address;
    }

    /** A listener on 127.0.0.1 (port 0) of {@code adapter} that queues incoming connectors. */
    public NdkListener listen(NdkAdapter adapter, ConcurrentLinkedQueue<NdkConnector> incoming, Ref<InetSocketAddress> bound) {
        NdkListener l = track(Kit.<NdkListener>create((cc, c, o) -> adapter.createListener((ctx, conn) -> incoming.add(conn),
                null, cc, c, o)));
        int s = Kit.request((rc, c) -> l.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), rc, c));
        assertThat(s).isEqualTo(NtStatus.STATUS_SUCCESS);
        IntRef len = new IntRef(28);
        assertThat(l.getLocalAddress(bound, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        return l;
    }

    /** Connects two fresh QPs (on two adapters unless {@code sameAdapter}) with default sizes. */
    public Pair connect() {
        return connect(false, 64, 16, 16);
    }

    public Pair connect(boolean sameAdapter, int depth, int ird, int ord) {
        return connect(sameAdapter, depth, ird, ord, Map.of());
    }

    /** Connects two fresh QPs on adapters opened with extra {@code options}. */
    public Pair connect(boolean sameAdapter, int depth, int ird, int ord, Map<String, String> options) {
        return connect(sameAdapter, depth, ird, ord, options, null);
    }

    /** The same, with side A's CQ notifying {@code onNotifyA}. */
    public Pair connect(boolean sameAdapter, int depth, int ird, int ord, Map<String, String> options,
            io.jndk.api.CqNotificationCallback onNotifyA) {
        Pair p = new Pair();
        p.a.adapter = adapter(options);
        p.b.adapter = sameAdapter ? p.a.adapter : adapter(options);
        return established(p, depth, ird, ord, onNotifyA);
    }

    /**
     * A second connection into {@code passive}'s adapter and PD, with default sizes: a new active side on an adapter
     * of its own, and a new QP (with its own CQ) in {@code passive}'s PD, accepted through a listener of its own.
     */
    public Pair connectInto(Side passive) {
        Pair q = new Pair();
        q.a.adapter = adapter();
        q.b.adapter = passive.adapter;
        q.b.pd = passive.pd;
        return established(q, 64, 16, 16, null);
    }

    /**
     * Gives each side of {@code p} a PD (unless it has one), a CQ and a QP of {@code depth}, then connects them
     * through a listener on B's adapter.
     */
    private Pair established(Pair p, int depth, int ird, int ord, io.jndk.api.CqNotificationCallback onNotifyA) {
        for (Side s : new Side[] {p.a, p.b}) {
            if (s.pd == null) {
                s.pd = pd(s.adapter);
            }
            s.cq = cq(s.adapter, 4 * depth, s == p.a ? onNotifyA : null);
            s.qp = qp(s.pd, s.cq, s.cq, s == p.a ? "qpA" : "qpB", depth, depth, 4, 4, 64);
        }
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        Ref<InetSocketAddress> bound = new Ref<>();
        p.listener = listen(p.b.adapter, incoming, bound);
        p.address = bound.get();
        connectPair(p, incoming, ird, ord);
        return p;
    }

    /** Connects {@code p.a.qp} to the listener at {@code p.address} and accepts on {@code p.b.qp}. */
    public void connectPair(Pair p, ConcurrentLinkedQueue<NdkConnector> incoming, int ird, int ord) {
        p.a.connector = track(Kit.create(p.a.adapter::createConnector));
        CompletableFuture<Integer> connect = Kit.start((rc, c) -> p.a.connector.connect(p.a.qp,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), p.address, ird, ord, new byte[] {1, 2, 3}, rc, c));
        Kit.awaitTrue("connect event", () -> !incoming.isEmpty() || connect.isDone());
        assertThat(connect.isDone() ? NtStatus.describe(connect.join()) : "pending").isEqualTo("pending");
        p.b.connector = track(incoming.poll());
        CompletableFuture<Integer> accept = Kit.start((rc, c) -> p.b.connector.accept(p.b.qp, ird, ord, new byte[] {4, 5},
                p.b.onDisconnect, null, rc, c));
        assertThat(Kit.await(connect)).as("connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        int cc = Kit.request((rc, c) -> p.a.connector.completeConnect(p.a.onDisconnect, null, rc, c));
        assertThat(cc).as("complete connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).as("accept").isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    /** Closes every tracked object (children first), checks guard bytes, then closes the adapters. */
    @Override
    public void close() {
        try {
            while (!objects.isEmpty()) {
                Kit.close(objects.pop());
            }
            for (Buffer b : buffers) {
                b.assertGuardsIntact();
            }
        } finally {
            for (NdkAdapter a : adapters) {
                a.close();
            }
            arena.close();
        }
    }
}
