package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkSharedEndpoint;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shared endpoints. Covers {@code NdkCreateSharedEndpoint}, {@code NdkGetSharedEndpointLocalAddress},
 * {@code NdkConnectWithSharedEndpoint} and {@code NdkCloseObject} on a shared endpoint.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class SharedEndpointConformanceTest {
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

    private static String name(int status) {
        return NtStatus.describe(status);
    }

    private static Kit.Created<NdkSharedEndpoint> tryEndpoint(NdkAdapter a, InetSocketAddress addr) {
        return Kit.tryCreate((cc, c, o) -> a.createSharedEndpoint(addr, cc, c, o));
    }

    private NdkSharedEndpoint endpoint(NdkAdapter a, InetSocketAddress addr) {
        Kit.Created<NdkSharedEndpoint> c = tryEndpoint(a, addr);
        assertThat(name(c.status())).isEqualTo(name(NtStatus.STATUS_SUCCESS));
        if (mode.pend()) {
            assertThat(c.pended()).as("forced pending path").isTrue();
        }
        return w.track(c.object());
    }

    private static InetSocketAddress localAddress(NdkSharedEndpoint se) {
        Ref<InetSocketAddress> out = new Ref<>();
        IntRef len = new IntRef(16);
        assertThat(se.getLocalAddress(out, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(len.value).isEqualTo(16);
        return out.get();
    }

    /** Connects through {@code se} to {@code l} and accepts on {@code b}. */
    private NdkConnector[] connectVia(NdkSharedEndpoint se, Peer a, Listening l, Peer b) {
        NdkConnector ac = Conn.connector(w, a.adapter);
        CompletableFuture<Integer> connect = Conn.connect(ac, a.qp, se, l.address);
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = Conn.accept(pc, b.qp, 4, 4, null, null);
        assertThat(name(Kit.await(connect))).isEqualTo(name(NtStatus.STATUS_SUCCESS));
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        return new NdkConnector[] {ac, pc};
    }

    @Test
    void createOnPortZeroPicksAnEphemeralPortReadableWithGetLocalAddress() {
        NdkSharedEndpoint se = endpoint(w.adapter(), Conn.local(0));
        Kit.assertType(se, NdkObjectType.SHARED_ENDPOINT);
        InetSocketAddress a = localAddress(se);
        assertThat(a.getAddress()).isEqualTo(Conn.local(0).getAddress());
        assertThat(a.getPort()).isBetween(49152, 65535);
    }

    @Test
    void getLocalAddressWithAShortBufferIsBufferTooSmall() {
        NdkSharedEndpoint se = endpoint(w.adapter(), Conn.local(0));
        Ref<InetSocketAddress> out = new Ref<>();
        IntRef len = new IntRef(2);
        assertThat(name(se.getLocalAddress(out, len))).isEqualTo(name(NtStatus.STATUS_BUFFER_TOO_SMALL));
        assertThat(len.value).isEqualTo(16);
        assertThat(out.get()).isNull();
    }

    @Test
    void createOnAnAddressInUseIsSharingViolation() {
        NdkAdapter a = w.adapter();
        NdkSharedEndpoint se = endpoint(a, Conn.local(0));
        assertThat(name(tryEndpoint(a, localAddress(se)).status())).as("held by another shared endpoint")
                .isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
        Listening l = Conn.listen(w, a);
        assertThat(name(tryEndpoint(a, l.address).status())).as("held by a listener")
                .isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
    }

    @Test
    void createOnAnAddressTheAdapterDoesNotOwnIsInvalidAddress() {
        Kit.Created<NdkSharedEndpoint> c = tryEndpoint(w.adapter(), Conn.at("127.0.0.9", 0));
        assertThat(name(c.status())).isEqualTo(name(NtStatus.STATUS_INVALID_ADDRESS));
        assertThat(c.object()).isNull();
    }

    @Test
    void createBeyondTheObjectLimitIsInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.shared_endpoint", "1"));
        endpoint(a, Conn.local(0));
        assertThat(name(tryEndpoint(a, Conn.local(0)).status())).isEqualTo(name(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
    }

    @Test
    void oneEndpointConnectsToTwoDifferentListenersFromTheSameAddress() {
        NdkAdapter a = w.adapter();
        NdkAdapter b = w.adapter();
        NdkSharedEndpoint se = endpoint(a, Conn.local(0));
        InetSocketAddress shared = localAddress(se);
        Peer a1 = Conn.peer(w, a, "a1");
        Peer a2 = Conn.peer(w, a, "a2");
        Peer b1 = Conn.peer(w, b, "b1");
        Peer b2 = Conn.peer(w, b, "b2");
        Listening l1 = Conn.listen(w, b);
        Listening l2 = Conn.listen(w, b);
        NdkConnector[] c1 = connectVia(se, a1, l1, b1);
        NdkConnector[] c2 = connectVia(se, a2, l2, b2);
        for (NdkConnector[] c : new NdkConnector[][] {c1, c2}) {
            Ref<InetSocketAddress> local = new Ref<>();
            Ref<InetSocketAddress> peer = new Ref<>();
            assertThat(c[0].getLocalAddress(local, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(c[1].getPeerAddress(peer, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(local.get()).isEqualTo(shared);
            assertThat(peer.get()).isEqualTo(shared);
        }
        Conn.sendAndVerify(w, a1, b1, 700, 1);
        Conn.sendAndVerify(w, a2, b2, 900, 2);
    }

    @Test
    void connectToAWildcardBroadcastOrMulticastDestinationIsInvalidAddressBeforeTheTransportIsAsked() {
        NdkAdapter a = w.adapter();
        NdkAdapter b = w.adapter();
        NdkSharedEndpoint se = endpoint(a, Conn.local(0));
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, b, "qpB");
        // a wildcard listener on b: a connect to 0.0.0.0 that reached a transport would be indicated there
        Listening any = Conn.listen(w, b, Conn.at("0.0.0.0", 0));
        int port = any.address.getPort();
        NdkConnector c = Conn.connector(w, a);
        long failuresBefore = a.counters().get(NdkCounter.CONNECT_FAILURES);
        for (String ip : ConnectorConformanceTest.NOT_A_HOST) {
            int s = Kit.await(Conn.connect(c, pa.qp, se, Conn.at(ip, port)));
            assertThat(name(s)).as("connect to %s", ip).isEqualTo(name(NtStatus.STATUS_INVALID_ADDRESS));
        }
        assertThat(a.counters().get(NdkCounter.CONNECT_FAILURES)).as("connection attempts the transport ended")
                .isEqualTo(failuresBefore);
        assertThat(any.incoming).as("requests indicated to the wildcard listener").isEmpty();
        // connector, QP and endpoint are untouched: the same connector connects through the endpoint to the listener
        CompletableFuture<Integer> real = Conn.connect(c, pa.qp, se, Conn.local(port));
        NdkConnector pc = any.next();
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 4, 4, null, null);
        assertThat(name(Kit.await(real))).isEqualTo(name(NtStatus.STATUS_SUCCESS));
        assertThat(Conn.completeConnect(c, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(any.incoming).as("no other request reached the listener").isEmpty();
        Ref<InetSocketAddress> local = new Ref<>();
        assertThat(c.getLocalAddress(local, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(local.get()).isEqualTo(localAddress(se));
        Conn.sendAndVerify(w, pa, pb, 64, 4);
    }

    @Test
    void sameDestinationTwiceWhileTheFirstIsConnectedIsAddressAlreadyExists() {
        NdkAdapter a = w.adapter();
        NdkSharedEndpoint se = endpoint(a, Conn.local(0));
        Peer a1 = Conn.peer(w, a, "a1");
        Peer a2 = Conn.peer(w, a, "a2");
        Peer b1 = Conn.peer(w, a, "b1");
        Peer b2 = Conn.peer(w, a, "b2");
        Listening l = Conn.listen(w, a);
        NdkConnector[] first = connectVia(se, a1, l, b1);
        NdkConnector second = Conn.connector(w, a);
        int s = Kit.await(Conn.connect(second, a2.qp, se, l.address));
        assertThat(name(s)).isEqualTo(name(NtStatus.STATUS_ADDRESS_ALREADY_EXISTS));
        assertThat(l.incoming).as("nothing reached the listener").isEmpty();

        // Closing the first connection's connectors alone need not free the 4-tuple at once: it stays taken until the
        // transport has let the connection go (its socket closed), which the QP's close waits for. Once the connectors
        // and the QP are closed, the 4-tuple is free again.
        Kit.close(first[0]);
        w.untrack(first[0]);
        Kit.close(first[1]);
        w.untrack(first[1]);
        Kit.close(a1.qp);
        w.untrack(a1.qp);
        CompletableFuture<Integer> retry = Conn.connect(second, a2.qp, se, l.address);
        CompletableFuture<Integer> accept = Conn.accept(l.next(), b2.qp, 4, 4, null, null);
        assertThat(name(Kit.await(retry))).isEqualTo(name(NtStatus.STATUS_SUCCESS));
        assertThat(Conn.completeConnect(second, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Conn.sendAndVerify(w, a2, b2, 64, 3);
    }

    @Test
    void endpointClosePendsUntilItsConnectorsCloseAndHoldsTheAddressUntilThen() {
        NdkAdapter a = w.adapter();
        NdkSharedEndpoint se = endpoint(a, Conn.local(0));
        InetSocketAddress shared = localAddress(se);
        Peer a1 = Conn.peer(w, a, "a1");
        Peer b1 = Conn.peer(w, a, "b1");
        Listening l = Conn.listen(w, a);
        NdkConnector[] c = connectVia(se, a1, l, b1);

        CompletableFuture<Void> close = Kit.startClose(se);
        w.untrack(se);
        assertThat(close).as("close pends while a connector uses the endpoint").isNotDone();
        assertThat(name(tryEndpoint(a, shared).status())).as("address still in use")
                .isEqualTo(name(NtStatus.STATUS_SHARING_VIOLATION));
        Conn.sendAndVerify(w, a1, b1, 256, 4); // the connection still works

        Kit.close(c[0]);
        w.untrack(c[0]);
        Kit.await(close);
        NdkSharedEndpoint again = endpoint(a, shared);
        assertThat(localAddress(again)).isEqualTo(shared);
    }
}
