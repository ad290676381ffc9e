package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Connection-management helpers on top of {@link World}: endpoints with a QP, listeners, connect and accept. */
public final class Conn {
    private Conn() {}

    /** 127.0.0.1 with {@code port}. */
    public static InetSocketAddress local(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** An address literal with {@code port} (for addresses no adapter owns). */
    public static InetSocketAddress at(String ip, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** One QP with its PD and CQ on an adapter. */
    public static final class Peer {
        public final NdkAdapter adapter;
        public final NdkPd pd;
        public final NdkCq cq;
        public final NdkQp qp;

        Peer(NdkAdapter adapter, NdkPd pd, NdkCq cq, NdkQp qp) {
            this.adapter = adapter;
            this.pd = pd;
            this.cq = cq;
            this.qp = qp;
        }
    }

    /** The QP (with its PD and CQ) of an existing side, e.g. of a {@link World.Pair}. */
    public static Peer of(World.Side s) {
        return new Peer(s.adapter, s.pd, s.cq, s.qp);
    }

    /** Listens on {@code address} of {@code a} (e.g. a wildcard); incoming connectors are tracked by {@code w}. */
    public static Listening listen(World w, NdkAdapter a, InetSocketAddress address) {
        Listening l = new Listening();
        l.listener = w.track(Kit.<NdkListener>create((cc, c, o) -> a.createListener((ctx, conn) -> l.incoming.add(w.track(conn)),
                null, cc, c, o)));
        int s = Kit.request((rc, c) -> l.listener.listen(address, rc, c));
        assertThat(s).as("listen %s", NtStatus.describe(s)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Ref<InetSocketAddress> bound = new Ref<>();
        IntRef len = new IntRef(28);
        assertThat(l.listener.getLocalAddress(bound, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        l.address = bound.get();
        return l;
    }

    /** A fresh PD, CQ and QP (context {@code name}) on {@code a}. */
    public static Peer peer(World w, NdkAdapter a, String name) {
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 64);
        NdkQp qp = w.qp(pd, cq, name);
        return new Peer(a, pd, cq, qp);
    }

    /** A listener that queues incoming connectors (tracked by the world) and its bound address. */
    public static final class Listening {
        public NdkListener listener;
        public InetSocketAddress address;
        public final ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();

        /** Waits for the next incoming connector. */
        public NdkConnector next() {
            Kit.awaitTrue("connect event", () -> !incoming.isEmpty());
            return incoming.poll();
        }
    }

    /** Listens on 127.0.0.1 port 0 of {@code a}; incoming connectors are tracked by {@code w}. */
    public static Listening listen(World w, NdkAdapter a) {
        return listen(w, a, local(0));
    }

    /** Reads the peer's private data (exactly the required size) and the read limits. */
    public static byte[] connectionData(NdkConnector c, IntRef ird, IntRef ord) {
        IntRef len = new IntRef(0);
        assertThat(c.getConnectionData(null, null, null, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        byte[] buf = new byte[len.value];
        IntRef len2 = new IntRef(buf.length);
        assertThat(c.getConnectionData(ird, ord, buf, len2)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(len2.value).isEqualTo(buf.length);
        return buf;
    }

    public static NdkConnector connector(World w, NdkAdapter a) {
        return w.track(Kit.create(a::createConnector));
    }

    /** Starts {@code NdkConnect} from 127.0.0.1 port 0. */
    public static CompletableFuture<Integer> connect(NdkConnector c, NdkQp qp, InetSocketAddress dst, int ird, int ord,
            byte[] pd) {
        return Kit.start((rc, x) -> c.connect(qp, local(0), dst, ird, ord, pd, rc, x));
    }

    /** Starts {@code NdkConnectWithSharedEndpoint}. */
    public static CompletableFuture<Integer> connect(NdkConnector c, NdkQp qp, NdkSharedEndpoint se, InetSocketAddress dst) {
        return Kit.start((rc, x) -> c.connectWithSharedEndpoint(qp, se, dst, 4, 4, null, rc, x));
    }

    public static CompletableFuture<Integer> accept(NdkConnector c, NdkQp qp, int ird, int ord, byte[] pd,
            World.Side disconnects) {
        return Kit.start((rc, x) -> c.accept(qp, ird, ord, pd, disconnects == null ? null : disconnects.onDisconnect, null, rc, x));
    }

    public static int completeConnect(NdkConnector c, World.Side disconnects) {
        return Kit.request((rc, x) -> c.completeConnect(disconnects == null ? null : disconnects.onDisconnect, null, rc, x));
    }

    /**
     * CompleteConnect after the passive side abandoned the establishment: {@code STATUS_CONNECTION_ABORTED}; over a
     * wire the abandonment can still be in flight when CompleteConnect runs, so SUCCESS followed by the
     * disconnect event of the dead connection is accepted there too.
     */
    public static void assertCompleteConnectAborted(NdkConnector c, Mode mode) {
        World.Side events = new World.Side();
        int cc = completeConnect(c, events);
        if (cc == NtStatus.STATUS_SUCCESS && !mode.transport().equals("loopback")) {
            Kit.awaitTrue("disconnect event of the abandoned connection", () -> events.disconnects.get() > 0);
            return;
        }
        org.assertj.core.api.Assertions.assertThat(NtStatus.describe(cc))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ABORTED));
    }

    /** A connection made of two connectors. */
    public record Link(NdkConnector active, NdkConnector passive) {}

    /** Connects {@code a} to the listener and accepts on {@code b}; every step must succeed. */
    public static Link establish(World w, Peer a, Listening l, Peer b, World.Side aEvents, World.Side bEvents) {
        NdkConnector ac = connector(w, a.adapter);
        CompletableFuture<Integer> connect = connect(ac, a.qp, l.address, 4, 4, new byte[] {1});
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = accept(pc, b.qp, 4, 4, new byte[] {2}, bEvents);
        assertThat(Kit.await(connect)).as("connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(completeConnect(ac, aEvents)).as("complete connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).as("accept").isEqualTo(NtStatus.STATUS_SUCCESS);
        return new Link(ac, pc);
    }

    /**
     * Connects {@code a} from {@code local} (an address of its adapter, port 0) to the listener and accepts on
     * {@code b}, IRD/ORD 2, with private data {@code pd}; every step must succeed.
     */
    public static Link establishFrom(World w, Peer a, InetSocketAddress local, Listening l, Peer b, byte[] pd) {
        NdkConnector ac = connector(w, a.adapter);
        CompletableFuture<Integer> connect = Kit.start((rc, x) -> ac.connect(a.qp, local, l.address, 2, 2, pd, rc, x));
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = accept(pc, b.qp, 2, 2, null, null);
        assertThat(Kit.await(connect)).as("connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(completeConnect(ac, null)).as("complete connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).as("accept").isEqualTo(NtStatus.STATUS_SUCCESS);
        return new Link(ac, pc);
    }

    /** Sends {@code len} seeded bytes from {@code from} to {@code to} and verifies every byte arrived. */
    public static void sendAndVerify(World w, Peer from, Peer to, int len, long seed) {
        Buffer src = w.buffer(len).fillRandom(seed);
        Buffer dst = w.buffer(len);
        NdkMr smr = w.registerAll(from.pd, src);
        NdkMr dmr = w.registerAll(to.pd, dst);
        assertThat(to.qp.receive("rx", new NdkSge[] {dst.sge(0, len, dmr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(from.qp.send("tx", new NdkSge[] {src.sge(0, len, smr.getLocalToken())}, 1, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx rx = Kit.poll(to.cq);
        assertThat(rx.status).as("receive %s", NtStatus.describe(rx.status)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(rx.type).isEqualTo(NdkOperationType.RECEIVE);
        assertThat(rx.bytesTransferred).isEqualTo(len);
        NdkResultEx tx = Kit.poll(from.cq);
        assertThat(tx.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        dst.assertSame(0, src, 0, len);
    }
}
