package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Conn.Listening;
import io.jndk.conformance.support.Conn.Peer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Listeners. Covers {@code NdkCreateListener}, {@code NdkListen}, {@code NdkGetListenerLocalAddress},
 * {@code NdkControlConnectEvents}, the connect event callback and {@code NdkCloseObject} on a listener.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class ListenerConformanceTest {
    @Parameter
    Mode mode;

    World w;

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    void tearDown() {
        w.close();
    }

    private NdkListener listener(NdkAdapter a, ConcurrentLinkedQueue<NdkConnector> incoming) {
        return w.track(Kit.<NdkListener>create((cc, c, o) -> a.createListener((ctx, conn) -> {
            assertThat(ctx).isEqualTo("lctx");
            incoming.add(w.track(conn));
        }, "lctx", cc, c, o)));
    }

    private static int listen(NdkListener l, InetSocketAddress addr) {
        return Kit.request((rc, c) -> l.listen(addr, rc, c));
    }

    private static String name(int status) {
        return NtStatus.describe(status);
    }

    @Test
    void createListenerReturnsAListener() {
        NdkListener l = listener(w.adapter(), new ConcurrentLinkedQueue<>());
        Kit.assertType(l, NdkObjectType.LISTENER);
    }

    @Test
    void createListenerBeyondTheObjectLimitIsInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.listener", "1"));
        listener(a, new ConcurrentLinkedQueue<>());
        Kit.Created<NdkListener> second = Kit.tryCreate((cc, c, o) -> a.createListener((x, y) -> { }, null, cc, c, o));
        assertThat(name(second.status())).isEqualTo(name(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
    }

    @Test
    void listenOnPortZeroPicksAnEphemeralPortReadableWithGetLocalAddress() {
        NdkListener l = listener(w.adapter(), new ConcurrentLinkedQueue<>());
        boolean[] pended = {false};
        int s = Kit.request((rc, c) -> {
            int r = l.listen(Conn.local(0), rc, c);
            pended[0] = r == NtStatus.STATUS_PENDING;
            return r;
        });
        assertThat(s).isEqualTo(NtStatus.STATUS_SUCCESS);
        if (mode.pend()) {
            assertThat(pended[0]).as("forced pending path").isTrue();
        }
        Ref<InetSocketAddress> out = new Ref<>();
        IntRef len = new IntRef(16);
        assertThat(l.getLocalAddress(out, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(len.value).isEqualTo(16);
        assertThat(out.get().getAddress()).isEqualTo(Conn.local(0).getAddress());
        assertThat(out.get().getPort()).isBetween(49152, 65535);
    }

    @Test
    void getListenerLocalAddressWithAShortBufferIsBufferTooSmall() {
        Listening l = Conn.listen(w, w.adapter());
        Ref<InetSocketAddress> out = new Ref<>();
        IntRef len = new IntRef(4);
        assertThat(name(l.listener.getLocalAddress(out, len))).isEqualTo(name(NtStatus.STATUS_BUFFER_TOO_SMALL));
        assertThat(len.value).isEqualTo(16);
        assertThat(out.get()).isNull();
    }

    @Test
    void getListenerLocalAddressBeforeListenIsInvalidDeviceState() {
        NdkListener l = listener(w.adapter(), new ConcurrentLinkedQueue<>());
        assertThat(name(l.getLocalAddress(new Ref<>(), new IntRef(28)))).isEqualTo(name(NtStatus.STATUS_INVALID_DEVICE_STATE));
    }

    @Test
    void listenTwiceOnOneListenerIsInvalidDeviceState() {
        Listening l = Conn.listen(w, w.adapter());
        assertThat(name(listen(l.listener, Conn.local(0)))).isEqualTo(name(NtStatus.STATUS_INVALID_DEVICE_STATE));
    }

    @Test
    void dualListenOnOneAddressIsSharingViolation() {
        NdkAdapter a = w.adapter();
        Listening first = Conn.listen(w, a);
        NdkListener second = listener(a, new ConcurrentLinkedQueue<>());
        assertThat(name(listen(second, first.address))).isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
        // Another adapter on the same IP shares the port space.
        NdkListener third = listener(w.adapter(), new ConcurrentLinkedQueue<>());
        assertThat(name(listen(third, first.address))).isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
    }

    @Test
    void listenOnAnAddressTheAdapterDoesNotOwnIsInvalidAddress() {
        NdkListener l = listener(w.adapter(), new ConcurrentLinkedQueue<>());
        assertThat(name(listen(l, Conn.at("127.0.0.9", 0)))).isEqualTo(name(NtStatus.STATUS_INVALID_ADDRESS));
    }

    @Test
    void listenOnTheWildcardAddressAcceptsConnectionsToTheAdapterAddress() {
        NdkAdapter a = w.adapter();
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        NdkListener l = listener(a, incoming);
        assertThat(listen(l, Conn.at("0.0.0.0", 0))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Ref<InetSocketAddress> bound = new Ref<>();
        assertThat(l.getLocalAddress(bound, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, Conn.local(bound.get().getPort()), 1, 1, null);
        Kit.awaitTrue("connect event", () -> !incoming.isEmpty());
        CompletableFuture<Integer> accept = Conn.accept(incoming.poll(), pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Conn.sendAndVerify(w, pa, pb, 300, 4);
    }

    @Test
    void eachRequestRaisesOneConnectEventWithANewConnector() {
        NdkAdapter a = w.adapter();
        Listening l = Conn.listen(w, a);
        Peer p1 = Conn.peer(w, a, "q1");
        Peer p2 = Conn.peer(w, a, "q2");
        CompletableFuture<Integer> c1 = Conn.connect(Conn.connector(w, a), p1.qp, l.address, 1, 1, new byte[] {1});
        CompletableFuture<Integer> c2 = Conn.connect(Conn.connector(w, a), p2.qp, l.address, 1, 1, new byte[] {2});
        NdkConnector i1 = l.next();
        NdkConnector i2 = l.next();
        assertThat(i1).isNotSameAs(i2);
        assertThat(l.incoming).isEmpty();
        assertThat(i1.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(i2.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(c1)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
        assertThat(Kit.await(c2)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
    }

    @Test
    void pausedListenerRefusesNewRequestsAndResumedListenerAcceptsThem() {
        NdkAdapter a = w.adapter();
        Listening l = Conn.listen(w, a);
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        NdkConnector ac = Conn.connector(w, a);
        l.listener.controlConnectEvents(true);
        int refused = Kit.await(Conn.connect(ac, pa.qp, l.address, 1, 1, null));
        assertThat(name(refused)).isEqualTo(name(NtStatus.STATUS_CONNECTION_REFUSED));
        assertThat(l.incoming).as("no connect event while paused").isEmpty();
        l.listener.controlConnectEvents(false);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        CompletableFuture<Integer> accept = Conn.accept(l.next(), pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void pauseDoesNotAffectRequestsAlreadyIndicated() {
        NdkAdapter a = w.adapter();
        Listening l = Conn.listen(w, a);
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        l.listener.controlConnectEvents(true);
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void listenerCloseRefusesAtOncePendsUntilAcceptedConnectorsCloseAndHoldsTheAddressUntilThen() {
        NdkAdapter a = w.adapter();
        Listening l = Conn.listen(w, a);
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Peer pc = Conn.peer(w, a, "qpC");
        Conn.Link link = Conn.establish(w, pa, l, pb, null, null);

        CompletableFuture<Void> close = Kit.startClose(l.listener);
        w.untrack(l.listener);
        NdkConnector late = Conn.connector(w, a);
        int refused = Kit.await(Conn.connect(late, pc.qp, l.address, 1, 1, null));
        assertThat(name(refused)).as("new requests refused once the close was requested")
                .isEqualTo(name(NtStatus.STATUS_CONNECTION_REFUSED));
        assertThat(close).as("close pends while an accepted connector is open").isNotDone();
        NdkListener again = listener(a, new ConcurrentLinkedQueue<>());
        assertThat(name(listen(again, l.address))).as("address still in use").isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
        Conn.sendAndVerify(w, pa, pb, 128, 6); // the accepted connection still works

        Kit.close(link.passive());
        w.untrack(link.passive());
        Kit.await(close);
        assertThat(listen(again, l.address)).as("address free once everything closed").isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void requestsNotYetIndicatedWhenTheCloseStartsAreRefusedAndDoNotHoldTheClose() {
        NdkAdapter a = w.adapter();
        NdkAdapter b = w.adapter();
        Peer p1 = Conn.peer(w, a, "q1");
        Peer p2 = Conn.peer(w, a, "q2");
        // The first connect event parks on a gate so that the second request is admitted but not yet indicated
        // when the close starts (a provider with parallel callbacks simply indicates it earlier).
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean entered = new java.util.concurrent.atomic.AtomicBoolean();
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        NdkListener l = w.track(Kit.<NdkListener>create((cc, c, o) -> b.createListener((ctx, conn) -> {
            incoming.add(w.track(conn));
            if (entered.compareAndSet(false, true)) {
                try {
                    gate.await(Kit.WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, null, cc, c, o)));
        assertThat(listen(l, Conn.local(0))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Ref<InetSocketAddress> bound = new Ref<>();
        assertThat(l.getLocalAddress(bound, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        CompletableFuture<Integer> c1 = Conn.connect(Conn.connector(w, a), p1.qp, bound.get(), 1, 1, null);
        Kit.awaitTrue("first connect event entered", entered::get);
        CompletableFuture<Integer> c2 = Conn.connect(Conn.connector(w, a), p2.qp, bound.get(), 1, 1, null);
        CompletableFuture<Void> close = Kit.startClose(l);
        w.untrack(l);
        gate.countDown();
        Kit.awaitTrue("first connector delivered", () -> !incoming.isEmpty());
        NdkConnector first = incoming.poll();
        assertThat(first.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(name(Kit.await(c1))).isEqualTo(name(NtStatus.STATUS_CONNECTION_REFUSED));
        int second = Kit.await(c2);
        if (incoming.isEmpty()) {
            assertThat(name(second)).as("request not indicated before the close").isEqualTo(name(NtStatus.STATUS_CONNECTION_REFUSED));
        } else {
            NdkConnector other = incoming.poll();
            assertThat(other.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.close(other);
            w.untrack(other);
        }
        Kit.close(first);
        w.untrack(first);
        // Every connector the consumer received is closed: the listener close must now complete.
        Kit.await(close);
    }
}
