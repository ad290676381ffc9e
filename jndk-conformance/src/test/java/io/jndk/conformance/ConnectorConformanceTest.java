package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.DisconnectReason;
import io.jndk.api.ConnectFailure;
import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkVersion;
import io.jndk.api.NdkOutOfBandEndpoint;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Conn.Listening;
import io.jndk.conformance.support.Conn.Peer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connection establishment and teardown through connectors. Covers {@code NdkCreateConnector},
 * {@code NdkConnect}, {@code NdkCompleteConnect}, {@code NdkCompleteConnectEx}, {@code NdkAccept},
 * {@code NdkAcceptEx}, {@code NdkReject}, {@code NdkGetConnectionData}, {@code NdkGetLocalAddress},
 * {@code NdkGetPeerAddress}, {@code NdkDisconnect} and {@code NdkCloseObject} on a connector.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class ConnectorConformanceTest {
    @Parameter
    Mode mode;

    World w;
    final List<NdkAdapter> extraAdapters = new ArrayList<>();

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    void tearDown() {
        try {
            w.close();
        } finally {
            extraAdapters.forEach(NdkAdapter::close);
        }
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 7 * i);
        }
        return b;
    }

    @Test
    void createConnectorReturnsAConnector() {
        NdkAdapter a = w.adapter();
        NdkConnector c = Conn.connector(w, a);
        Kit.assertType(c, NdkObjectType.CONNECTOR);
    }

    @Test
    void createConnectorBeyondTheObjectLimitIsInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.connector", "1"));
        Conn.connector(w, a);
        Kit.Created<NdkConnector> second = Kit.tryCreate(a::createConnector);
        assertThat(NtStatus.describe(second.status())).isEqualTo(NtStatus.describe(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        assertThat(second.object()).isNull();
    }

    @Test
    void fullHandshakeCarriesPrivateDataBothWaysAndNegotiatesReadLimits() {
        NdkAdapter aa = w.adapter();
        // Asymmetric caps on the passive adapter: inbound 8, outbound 5.
        NdkAdapter ba = w.adapter(Map.of("maxInboundReadLimit", "8", "maxOutboundReadLimit", "5"));
        NdkAdapterInfo ai = aa.info();
        assertThat(ai.maxInboundReadLimit()).isGreaterThanOrEqualTo(10);
        assertThat(ai.maxOutboundReadLimit()).isGreaterThanOrEqualTo(3);
        Peer a = Conn.peer(w, aa, "qpA");
        Peer b = Conn.peer(w, ba, "qpB");
        Listening l = Conn.listen(w, ba);
        byte[] req = bytes(40, 3);
        byte[] rep = bytes(25, 9);
        NdkConnector ac = Conn.connector(w, aa);
        CompletableFuture<Integer> connect = Conn.connect(ac, a.qp, l.address, 10, 3, req);
        NdkConnector pc = l.next();
        Kit.assertType(pc, NdkObjectType.CONNECTOR);
        assertThat(connect).as("connect completes only once the peer accepted").isNotDone();

        // Passive side before accept: requester's data; inbound <- requester's ORD, outbound <- requester's IRD, capped locally.
        IntRef ird = new IntRef(-1);
        IntRef ord = new IntRef(-1);
        assertThat(Conn.connectionData(pc, ird, ord)).isEqualTo(mode.carried(req, Mode.REQ));
        assertThat(ird.value).as("passive inbound before accept").isEqualTo(3);
        assertThat(ord.value).as("passive outbound before accept (10 capped to 5)").isEqualTo(5);

        World.Side bEvents = new World.Side();
        CompletableFuture<Integer> accept = Conn.accept(pc, b.qp, 2, 20, rep, bEvents);
        assertThat(Kit.await(connect)).as("connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(accept).as("accept completes only after CompleteConnect").isNotDone();

        // Active side: accepter's data; effIRD = min(10, cap, peer ORD 20->5) = 5; effORD = min(3, cap, peer IRD 2) = 2.
        IntRef aird = new IntRef(-1);
        IntRef aord = new IntRef(-1);
        assertThat(Conn.connectionData(ac, aird, aord)).isEqualTo(mode.carried(rep, Mode.REP));
        assertThat(aird.value).as("active effective IRD").isEqualTo(5);
        assertThat(aord.value).as("active effective ORD").isEqualTo(2);

        World.Side aEvents = new World.Side();
        assertThat(Conn.completeConnect(ac, aEvents)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Conn.sendAndVerify(w, a, b, 3000, 11);
        Conn.sendAndVerify(w, b, a, 1200, 12);
        assertThat(aEvents.disconnects.get() + bEvents.disconnects.get()).isZero();
    }

    @Test
    void readLimitsAboveTheAdapterCapsAreCappedOnBothSides() {
        NdkAdapter aa = w.adapter();
        NdkAdapter ba = w.adapter(Map.of("maxInboundReadLimit", "6", "maxOutboundReadLimit", "7"));
        NdkAdapterInfo ai = aa.info();
        Peer a = Conn.peer(w, aa, "qpA");
        Peer b = Conn.peer(w, ba, "qpB");
        Listening l = Conn.listen(w, ba);
        NdkConnector ac = Conn.connector(w, aa);
        CompletableFuture<Integer> connect = Conn.connect(ac, a.qp, l.address, 100_000, 100_000, null);
        NdkConnector pc = l.next();
        IntRef ird = new IntRef(-1);
        IntRef ord = new IntRef(-1);
        assertThat(Conn.connectionData(pc, ird, ord)).isEqualTo(mode.carried(null, Mode.REQ));
        assertThat(ird.value).isEqualTo(Math.min(6, ai.maxOutboundReadLimit()));
        assertThat(ord.value).isEqualTo(Math.min(7, ai.maxInboundReadLimit()));
        CompletableFuture<Integer> accept = Conn.accept(pc, b.qp, 100_000, 100_000, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.connectionData(ac, ird, ord)).isEqualTo(mode.carried(null, Mode.REP));
        assertThat(ird.value).as("active effIRD = min(own cap, peer ORD cap 7)").isEqualTo(Math.min(ai.maxInboundReadLimit(), 7));
        assertThat(ord.value).as("active effORD = min(own cap, peer IRD cap 6)").isEqualTo(Math.min(ai.maxOutboundReadLimit(), 6));
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void getConnectionDataSizeQueryAndBufferTooSmall() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        byte[] req = bytes(30, 1);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, req);
        NdkConnector pc = l.next();
        IntRef len = new IntRef(0);
        assertThat(pc.getConnectionData(null, null, null, len)).as("size query").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(len.value).isEqualTo(mode.carried(req, Mode.REQ).length);
        byte[] small = new byte[10];
        Arrays.fill(small, (byte) 0x5A);
        IntRef smallLen = new IntRef(8);
        assertThat(NtStatus.describe(pc.getConnectionData(null, null, small, smallLen)))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_BUFFER_TOO_SMALL));
        assertThat(smallLen.value).as("required size").isEqualTo(mode.carried(req, Mode.REQ).length);
        assertThat(Arrays.copyOf(small, 8)).as("first bytes copied").isEqualTo(Arrays.copyOf(req, 8));
        assertThat(small[8]).as("nothing past the given length").isEqualTo((byte) 0x5A);
        assertThat(pc.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
    }

    @Test
    void getConnectionDataOnAnIdleConnectorIsConnectionInvalid() {
        NdkConnector c = Conn.connector(w, w.adapter());
        IntRef len = new IntRef(0);
        assertThat(NtStatus.describe(c.getConnectionData(null, null, null, len)))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID));
    }

    @Test
    void privateDataUpToTheAdapterLimitsIsCarriedAndOneMoreIsInvalidBufferSize() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo info = a.info();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);

        int tooLong = Kit.await(Conn.connect(ac, pa.qp, l.address, 1, 1, new byte[info.maxCallerData() + 1]));
        assertThat(NtStatus.describe(tooLong)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_BUFFER_SIZE));
        assertThat(l.incoming).as("nothing reached the listener").isEmpty();

        byte[] caller = bytes(info.maxCallerData(), 5);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, caller);
        NdkConnector pc = l.next();
        assertThat(Conn.connectionData(pc, null, null)).isEqualTo(mode.carried(caller, Mode.REQ));
        int acceptTooLong = Kit.await(Conn.accept(pc, pb.qp, 1, 1, new byte[info.maxCalleeData() + 1], null));
        assertThat(NtStatus.describe(acceptTooLong)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_BUFFER_SIZE));
        assertThat(NtStatus.describe(pc.reject(new byte[info.maxCalleeData() + 1])))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_BUFFER_SIZE));
        assertThat(connect).as("failed accept/reject calls leave the request undecided").isNotDone();

        byte[] callee = bytes(info.maxCalleeData(), 8);
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, callee, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.connectionData(ac, null, null)).isEqualTo(mode.carried(callee, Mode.REP));
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void rejectCarriesMaxCalleeDataBytes() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        byte[] callee = bytes(a.info().maxCalleeData(), 4);
        assertThat(l.next().reject(callee)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
        assertThat(Conn.connectionData(ac, null, null)).isEqualTo(mode.carried(callee, Mode.REJ));
    }

    @Test
    void connectWithNothingListeningIsConnectionRefused() throws java.io.IOException {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        // A port that was listened on and released: nothing of this test listens there now. Over TCP another test
        // running beside this one could take the freed port for its own listener, so there the port stays bound to
        // a socket that does not listen (a connect to it is refused; nobody else can bind it) until the end.
        Listening gone = Conn.listen(w, a);
        Kit.close(gone.listener);
        w.untrack(gone.listener);
        try (java.net.Socket hold = new java.net.Socket()) {
            InetSocketAddress target = gone.address;
            if (mode.transport().equals("iwarp")) {
                hold.bind(new InetSocketAddress(gone.address.getAddress(), 0));
                target = (InetSocketAddress) hold.getLocalSocketAddress();
            }
            connectToNothing(a, pa, target);
        }
    }

    private void connectToNothing(NdkAdapter a, Peer pa, InetSocketAddress target) {
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.await(Conn.connect(c, pa.qp, target, 1, 1, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
        assertThat(c.connectFailure()).as("the reason beside the status: %s", c.connectFailure()).get()
                .extracting(ConnectFailure::reason, ConnectFailure::status)
                .containsExactly(ConnectFailure.Reason.NO_LISTENER, NtStatus.STATUS_CONNECTION_REFUSED);
    }

    /**
     * jndk's out-of-band extension (not NDKPI): roce connects two QPs on numbers the consumers exchanged themselves,
     * with no CM message, and they move data both ways after CompleteConnect; the statuses of its misuse hold; the
     * transports without wire numbers answer NOT_SUPPORTED to the reservation (so a connect out of band finds nothing
     * reserved) and the connector still connects normally afterwards.
     */
    @Test
    void outOfBandConnectionsMoveDataOnRoceAndAreNotSupportedElsewhere() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        NdkConnector ac = Conn.connector(w, a);
        NdkConnector bc = Conn.connector(w, a);
        Ref<NdkOutOfBandEndpoint> ra = new Ref<>();
        Ref<NdkOutOfBandEndpoint> rb = new Ref<>();
        assertThat(NtStatus.describe(ac.reserveOutOfBand(null)))
            .isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_PARAMETER));
        int reserved = ac.reserveOutOfBand(ra);
        if (!mode.transport().equals("roce")) {
            assertThat(NtStatus.describe(reserved)).isEqualTo(NtStatus.describe(NtStatus.STATUS_NOT_SUPPORTED));
            NdkOutOfBandEndpoint made = new NdkOutOfBandEndpoint(1, 1, new byte[16], 1024);
            int st = Kit.await(Kit.start((rc, x) -> ac.connectOutOfBand(pa.qp, Conn.local(0), Conn.local(1), made, 1, 1,
                rc, x)));
            assertThat(NtStatus.describe(st)).as("nothing reserved")
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_DEVICE_STATE));
            Listening l = Conn.listen(w, a);
            CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
            CompletableFuture<Integer> accept = Conn.accept(l.next(), pb.qp, 1, 1, null, null);
            assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Conn.sendAndVerify(w, pa, pb, 100, 5);
            return;
        }
        assertThat(NtStatus.describe(reserved)).isEqualTo(NtStatus.describe(NtStatus.STATUS_SUCCESS));
        assertThat(NtStatus.describe(ac.reserveOutOfBand(new Ref<>()))).as("reserved already")
            .isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_DEVICE_STATE));
        int unreserved = Kit.await(Kit.start((rc, x) -> bc.connectOutOfBand(pb.qp, Conn.local(0), Conn.local(1), ra.get(),
            1, 1, rc, x)));
        assertThat(NtStatus.describe(unreserved)).as("nothing reserved")
            .isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_DEVICE_STATE));
        assertThat(bc.reserveOutOfBand(rb)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(rb.get().qpn()).as("each reservation its own QPN").isNotEqualTo(ra.get().qpn());
        CompletableFuture<Integer> ca = Kit.start((rc, x) -> ac.connectOutOfBand(pa.qp, Conn.local(0), Conn.local(1),
            rb.get(), 1, 1, rc, x));
        CompletableFuture<Integer> cb = Kit.start((rc, x) -> bc.connectOutOfBand(pb.qp, Conn.local(0), Conn.local(1),
            ra.get(), 1, 1, rc, x));
        assertThat(Kit.await(ca)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(cb)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(bc, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Conn.sendAndVerify(w, pa, pb, 3000, 6);
        Conn.sendAndVerify(w, pb, pa, 100, 7);
    }

    @Test
    void passiveRejectRefusesConnectWithReadablePrivateDataAndTheSameConnectorAndQpCanRetry() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> first = Conn.connect(ac, pa.qp, l.address, 1, 1, bytes(3, 1));
        byte[] why = bytes(12, 99);
        assertThat(l.next().reject(why)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(NtStatus.describe(Kit.await(first))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
        assertThat(Conn.connectionData(ac, null, null)).as("reject private data").isEqualTo(mode.carried(why, Mode.REJ));
        ConnectFailure f = ac.connectFailure().orElseThrow();
        assertThat(f.reason()).isEqualTo(ConnectFailure.Reason.REJECTED);
        assertThat(f.status()).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
        assertThat(f.privateData()).as("the reason carries the reject's private data").isEqualTo(mode.carried(why, Mode.REJ));

        CompletableFuture<Integer> retry = Conn.connect(ac, pa.qp, l.address, 1, 1, bytes(3, 2));
        NdkConnector pc = l.next();
        assertThat(Conn.connectionData(pc, null, null)).isEqualTo(mode.carried(bytes(3, 2), Mode.REQ));
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, null, null);
        assertThat(Kit.await(retry)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(ac.connectFailure()).as("cleared by the retry").isEmpty();
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Conn.sendAndVerify(w, pa, pb, 100, 3);
    }

    @Test
    void activeRejectAfterConnectAbortsThePassiveAccept() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, bytes(4, 4), null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(ac.reject(bytes(2, 2))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(NtStatus.describe(Kit.await(accept))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ABORTED));
        // After a reject the connector can only be closed.
        assertThat(NtStatus.describe(Conn.completeConnect(ac, null))).isIn(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID),
                NtStatus.describe(NtStatus.STATUS_CONNECTION_ABORTED));
    }

    @Test
    void rejectThenCloseCompletesAndTheRequesterIsRefused() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        assertThat(pc.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.close(pc);
        w.untrack(pc);
        assertThat(NtStatus.describe(Kit.await(connect))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
    }

    @Test
    void closingAnUndecidedIncomingConnectorRejectsTheRequest() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        Kit.close(pc);
        w.untrack(pc);
        assertThat(NtStatus.describe(Kit.await(connect))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
    }

    @Test
    void rejectOrAcceptAfterTheRequesterGaveUpIsConnectionAborted() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        Kit.close(ac);
        w.untrack(ac);
        assertThat(NtStatus.describe(Kit.await(connect))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        // On a real network the abandonment reaches the passive side later: an Accept issued before then pends and
        // is aborted when it arrives, one issued after is aborted at once. Either way it ends CONNECTION_ABORTED.
        int acc = Kit.await(Conn.accept(pc, pb.qp, 1, 1, null, null));
        assertThat(NtStatus.describe(acc)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ABORTED));
        assertThat(NtStatus.describe(pc.reject(null))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ABORTED));
        // The QP the failed Accept named is unaffected: it can still be connected.
        Listening l2 = Conn.listen(w, a);
        Peer pa2 = Conn.peer(w, a, "qpA2");
        Conn.establish(w, pa2, l2, pb, null, null);
        Conn.sendAndVerify(w, pa2, pb, 32, 8);
    }

    @Test
    void completeConnectWhenNotConnectingIsConnectionInvalid() {
        NdkConnector c = Conn.connector(w, w.adapter());
        assertThat(NtStatus.describe(Conn.completeConnect(c, null))).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID));
    }

    @Test
    void connectWithAConnectedQpIsConnectionActive() {
        World.Pair p = w.connect();
        NdkConnector c = Conn.connector(w, p.a.adapter);
        int s = Kit.await(Conn.connect(c, p.a.qp, p.address, 1, 1, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ACTIVE));
    }

    @Test
    void acceptWithAConnectedQpIsConnectionActive() {
        World.Pair p = w.connect();
        Peer x = Conn.peer(w, p.b.adapter, "qpX");
        Listening l = Conn.listen(w, p.b.adapter);
        NdkConnector ac = Conn.connector(w, p.b.adapter);
        CompletableFuture<Integer> connect = Conn.connect(ac, x.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        int s = Kit.await(Conn.accept(pc, p.b.qp, 1, 1, null, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_ACTIVE));
        assertThat(pc.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
    }

    @Test
    void connectOnAConnectorAlreadyUsedIsInvalidDeviceState() {
        World.Pair p = w.connect();
        Peer x = Conn.peer(w, p.a.adapter, "qpX");
        int s = Kit.await(Conn.connect(p.a.connector, x.qp, p.address, 1, 1, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_DEVICE_STATE));
    }

    @Test
    void acceptOnAnActiveConnectorIsInvalidDeviceState() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.await(Conn.accept(c, pa.qp, 1, 1, null, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_DEVICE_STATE));
    }

    @Test
    void connectWithAQpOfAnotherAdapterIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapter other = w.adapter();
        Peer po = Conn.peer(w, other, "qpO");
        Listening l = Conn.listen(w, a);
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.await(Conn.connect(c, po.qp, l.address, 1, 1, null));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void connectNeverAcceptedTimesOutWithIoTimeout() {
        NdkAdapter a = w.adapter(Map.of("connect.timeout.ms", "300"));
        NdkAdapter b = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, b);
        NdkConnector c = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(c, pa.qp, l.address, 1, 1, null);
        l.next(); // the callback queues it and never accepts
        assertThat(NtStatus.describe(Kit.await(connect))).isEqualTo(NtStatus.describe(NtStatus.STATUS_IO_TIMEOUT));
    }

    @Test
    void acceptWithoutCompleteConnectTimesOutAndCompleteConnectIsThenAborted() {
        NdkAdapter a = w.adapter();
        NdkAdapter b = w.adapter(Map.of("accept.timeout.ms", "300"));
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, b, "qpB");
        Listening l = Conn.listen(w, b);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        CompletableFuture<Integer> accept = Conn.accept(l.next(), pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(NtStatus.describe(Kit.await(accept))).isEqualTo(NtStatus.describe(NtStatus.STATUS_IO_TIMEOUT));
        // The abort reaches the active side asynchronously on a real network: CompleteConnect is aborted once it has.
        Conn.assertCompleteConnectAborted(ac, mode);
    }

    @Test
    void localAndPeerAddressesMatchTheListenerAndTheActivePort() {
        World.Pair p = w.connect();
        Ref<InetSocketAddress> aLocal = new Ref<>();
        Ref<InetSocketAddress> aPeer = new Ref<>();
        Ref<InetSocketAddress> bLocal = new Ref<>();
        Ref<InetSocketAddress> bPeer = new Ref<>();
        IntRef len = new IntRef(16);
        assertThat(p.a.connector.getLocalAddress(aLocal, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(len.value).isEqualTo(16);
        assertThat(p.a.connector.getPeerAddress(aPeer, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.connector.getLocalAddress(bLocal, new IntRef(28))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.connector.getPeerAddress(bPeer, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(aPeer.get()).isEqualTo(p.address);
        assertThat(bLocal.get()).isEqualTo(p.address);
        assertThat(bPeer.get()).isEqualTo(aLocal.get());
        assertThat(aLocal.get().getAddress()).isEqualTo(p.address.getAddress());
        assertThat(aLocal.get().getPort()).as("port 0 picks an ephemeral port").isBetween(49152, 65535);
    }

    @Test
    void addressQueriesWithAShortBufferAreBufferTooSmallWithTheRequiredSize() {
        World.Pair p = w.connect();
        Ref<InetSocketAddress> out = new Ref<>();
        IntRef len = new IntRef(8);
        assertThat(NtStatus.describe(p.a.connector.getLocalAddress(out, len)))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_BUFFER_TOO_SMALL));
        assertThat(len.value).isEqualTo(16);
        IntRef len2 = new IntRef(15);
        assertThat(NtStatus.describe(p.b.connector.getPeerAddress(out, len2)))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_BUFFER_TOO_SMALL));
        assertThat(len2.value).isEqualTo(16);
        assertThat(out.get()).isNull();
    }

    @Test
    void addressQueriesOnANeverConnectedConnectorAreConnectionInvalid() {
        NdkConnector c = Conn.connector(w, w.adapter());
        Ref<InetSocketAddress> out = new Ref<>();
        assertThat(NtStatus.describe(c.getLocalAddress(out, new IntRef(28))))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID));
        assertThat(NtStatus.describe(c.getPeerAddress(out, new IntRef(28))))
                .isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID));
    }

    @Test
    void passivePeerAddressIsKnownFromTheConnectEvent() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        Ref<InetSocketAddress> peer = new Ref<>();
        assertThat(pc.getPeerAddress(peer, new IntRef(16))).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(peer.get().getAddress()).isEqualTo(l.address.getAddress());
        assertThat(peer.get().getPort()).isNotEqualTo(l.address.getPort()).isBetween(49152, 65535);
        assertThat(pc.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
    }

    @Test
    void disconnectFlushesLocallyWithCancelledAndThePeerGetsOneDisconnectEvent() {
        World.Pair p = w.connect();
        Buffer buf = w.buffer(256);
        NdkMr mr = w.registerAll(p.a.pd, buf);
        assertThat(p.a.qp.receive("r1", new NdkSge[] {buf.sge(0, 256, mr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        CompletableFuture<Integer> d = Kit.start((rc, c) -> {
            int s = p.a.connector.disconnect(rc, c);
            if (mode.pend()) {
                assertThat(NtStatus.describe(s)).as("forced pending path").isEqualTo(NtStatus.describe(NtStatus.STATUS_PENDING));
            }
            return s;
        });
        assertThat(Kit.await(d)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.a.cq);
        assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        assertThat(r.requestContext).isEqualTo("r1");
        Kit.awaitTrue("peer disconnect event", () -> p.b.disconnects.get() == 1);
        assertThat(Kit.request((rc, c) -> p.b.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        // Closing the connectors makes every callback final (the close completion is the last one).
        Kit.close(p.a.connector);
        Kit.close(p.b.connector);
        assertThat(p.b.disconnects.get()).as("exactly one disconnect event").isEqualTo(1);
        assertThat(p.a.disconnects.get()).as("the side that disconnected first gets none").isZero();
        buf.assertFilled(0, 256, (byte) 0);
    }

    @Test
    void disconnectOnANeverConnectedConnectorIsConnectionInvalid() {
        NdkConnector c = Conn.connector(w, w.adapter());
        int s = Kit.request((rc, x) -> c.disconnect(rc, x));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CONNECTION_INVALID));
    }

    @Test
    void disconnectAfterThePeerDisconnectedSucceedsAndFlushes() {
        World.Pair p = w.connect();
        Buffer buf = w.buffer(64);
        NdkMr mr = w.registerAll(p.b.pd, buf);
        assertThat(p.b.qp.receive("rb", new NdkSge[] {buf.sge(0, 64, mr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.request((rc, c) -> p.a.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("peer disconnect event", () -> p.b.disconnects.get() == 1);
        Kit.assertEmpty(p.b.cq); // a peer's graceful disconnect does not flush
        assertThat(Kit.request((rc, c) -> p.b.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.b.cq);
        assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        assertThat(r.requestContext).isEqualTo("rb");
    }

    @Test
    void closingAConnectedConnectorAbortsAndThePeerFlushesAndGetsTheDisconnectEvent() {
        World.Pair p = w.connect();
        Buffer buf = w.buffer(64);
        NdkMr mr = w.registerAll(p.b.pd, buf);
        assertThat(p.b.qp.receive("rb", new NdkSge[] {buf.sge(0, 64, mr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.close(p.a.connector);
        w.untrack(p.a.connector);
        NdkResultEx r = Kit.poll(p.b.cq);
        assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        assertThat(r.requestContext).isEqualTo("rb");
        Kit.awaitTrue("peer disconnect event", () -> p.b.disconnects.get() == 1);
        Kit.close(p.b.connector);
        w.untrack(p.b.connector);
        assertThat(p.b.disconnects.get()).isEqualTo(1);
        assertThat(p.a.disconnects.get()).as("no callback after the close").isZero();
    }

    @Test
    void closingAConnectorWithAPendingConnectCancelsItBeforeTheCloseCompletes() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector c = Conn.connector(w, a);
        AtomicInteger seq = new AtomicInteger();
        int[] order = new int[2];
        CompletableFuture<Integer> connect = Conn.connect(c, pa.qp, l.address, 1, 1, null);
        connect.thenRun(() -> order[0] = seq.incrementAndGet());
        l.next(); // never decided
        assertThat(connect).isNotDone();
        CompletableFuture<Void> close = Kit.startClose(c);
        w.untrack(c);
        close.thenRun(() -> order[1] = seq.incrementAndGet());
        Kit.await(close);
        assertThat(connect).as("connect completed before the close").isDone();
        assertThat(NtStatus.describe(connect.join())).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        Kit.awaitTrue("both recorded", () -> order[0] != 0 && order[1] != 0);
        assertThat(order[0]).as("connect completion first").isLessThan(order[1]);
    }

    @Test
    void closingAConnectorWithAPendingAcceptCancelsItBeforeTheCloseCompletesAndAbortsThePeer() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(accept).as("accept waits for CompleteConnect").isNotDone();
        CompletableFuture<Void> close = Kit.startClose(pc);
        w.untrack(pc);
        Kit.await(close);
        assertThat(accept).as("accept completed before the close").isDone();
        assertThat(NtStatus.describe(accept.join())).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        Conn.assertCompleteConnectAborted(ac, mode);
    }

    private final class ExFixture {
        final NdkAdapter adapter = w.adapter();
        final Peer a = Conn.peer(w, adapter, "qpA");
        final Peer b = Conn.peer(w, adapter, "qpB");
        final Listening l = Conn.listen(w, adapter);
        final NdkConnector ac = Conn.connector(w, adapter);
        final ConcurrentLinkedQueue<Integer> aReasons = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Integer> bReasons = new ConcurrentLinkedQueue<>();
        NdkConnector pc;

        ExFixture() {
            CompletableFuture<Integer> connect = Conn.connect(ac, a.qp, l.address, 1, 1, null);
            pc = l.next();
            CompletableFuture<Integer> accept = Kit.start((rc, c) -> pc.acceptEx(b.qp, 1, 1, null,
                    (ctx, reason) -> bReasons.add(reason), "bctx", rc, c));
            assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(Kit.request((rc, c) -> ac.completeConnectEx((ctx, reason) -> aReasons.add(reason), "actx", rc, c)))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
    }

    @Test
    void acceptExDisconnectCallbackCarriesANonZeroProviderReason() {
        ExFixture f = new ExFixture();
        Conn.sendAndVerify(w, f.a, f.b, 64, 5);
        assertThat(Kit.request((rc, c) -> f.ac.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("Ex disconnect event on the passive side", () -> !f.bReasons.isEmpty());
        assertThat(f.bReasons.peek()).isNotEqualTo(DisconnectReason.NONE);
    }

    @Test
    void completeConnectExDisconnectCallbackCarriesANonZeroProviderReason() {
        ExFixture f = new ExFixture();
        Kit.close(f.pc);
        w.untrack(f.pc);
        Kit.awaitTrue("Ex disconnect event on the active side", () -> !f.aReasons.isEmpty());
        assertThat(f.aReasons.peek()).isNotEqualTo(DisconnectReason.NONE);
    }

    @Test
    void exFunctionsOnAVersion12AdapterAreNotSupported() {
        NdkAdapter a = Ndk.open(mode.params(Map.of()).withVersion(NdkVersion.V1_2));
        extraAdapters.add(a);
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector ac = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ac, pa.qp, l.address, 1, 1, null);
        NdkConnector pc = l.next();
        int ax = Kit.request((rc, c) -> pc.acceptEx(pb.qp, 1, 1, null, (x, r) -> { }, null, rc, c));
        assertThat(NtStatus.describe(ax)).isEqualTo(NtStatus.describe(NtStatus.STATUS_NOT_SUPPORTED));
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, null, null);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_SUCCESS);
        int cx = Kit.request((rc, c) -> ac.completeConnectEx((x, r) -> { }, null, rc, c));
        assertThat(NtStatus.describe(cx)).isEqualTo(NtStatus.describe(NtStatus.STATUS_NOT_SUPPORTED));
        assertThat(Conn.completeConnect(ac, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void loopbackConnectionOnTheSameAdapterCarriesData() {
        NdkAdapter a = w.adapter();
        assertThat(a.info().adapterFlags() & NdkAdapterFlags.LOOPBACK_CONNECTIONS_SUPPORTED).isNotZero();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        Conn.establish(w, pa, l, pb, null, null);
        Conn.sendAndVerify(w, pa, pb, 5000, 21);
        Conn.sendAndVerify(w, pb, pa, 17, 22);
    }

    @Test
    void connectToAnAddressNoAdapterOwnsIsUnreachableAndTheConnectorCanRetry() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        Listening l = Conn.listen(w, a);
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.await(Conn.connect(c, pa.qp, Conn.at("127.0.0.77", l.address.getPort()), 1, 1, null));
        // Transport-neutral: a real network may report the missing host as unreachable or as a refusal.
        assertThat(NtStatus.describe(s)).isIn(NtStatus.describe(NtStatus.STATUS_HOST_UNREACHABLE),
                NtStatus.describe(NtStatus.STATUS_NETWORK_UNREACHABLE), NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
        CompletableFuture<Integer> retry = Conn.connect(c, pa.qp, l.address, 1, 1, null);
        CompletableFuture<Integer> accept = Conn.accept(l.next(), pb.qp, 1, 1, null, null);
        assertThat(Kit.await(retry)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(c, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void connectToAnUnownedLoopbackAddressIsHostUnreachable() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.await(Conn.connect(c, pa.qp, Conn.at("127.0.0.77", 50000), 1, 1, null));
        if (mode.transport().equals("loopback")) {
            assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_HOST_UNREACHABLE));
        } else {
            assertThat(NtStatus.describe(s)).isIn(NtStatus.describe(NtStatus.STATUS_HOST_UNREACHABLE),
                    NtStatus.describe(NtStatus.STATUS_NETWORK_UNREACHABLE), NtStatus.describe(NtStatus.STATUS_CONNECTION_REFUSED));
        }
    }

    @Test
    void connectFromASourceAddressTheAdapterDoesNotOwnIsInvalidAddress() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.request((rc, x) -> c.connect(pa.qp, Conn.at("127.0.0.9", 0), l.address, 1, 1, null, rc, x));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_ADDRESS));
        assertThat(l.incoming).isEmpty();
    }

    /** Destinations no connection can go to: wildcards, broadcast, IPv4 (224.0.0.0/4) and IPv6 (ff00::/8) multicast. */
    static final List<String> NOT_A_HOST = List.of("0.0.0.0", "::", "255.255.255.255", "224.0.0.0", "224.0.0.1",
            "239.255.255.250", "239.255.255.255", "ff02::1", "ff0e::1234", "::ffff:224.0.0.5");

    @Test
    void connectToAWildcardBroadcastOrMulticastDestinationIsInvalidAddressBeforeTheTransportIsAsked() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Peer pb = Conn.peer(w, a, "qpB");
        // a listener on the IPv4 wildcard: a connect to 0.0.0.0 that reached a transport would be indicated there
        // (loopback: the wildcard listener itself; iwarp: Linux turns a TCP connect to 0.0.0.0 into one to this host)
        Listening any = Conn.listen(w, a, Conn.at("0.0.0.0", 0));
        int port = any.address.getPort();
        NdkConnector c = Conn.connector(w, a);
        long failuresBefore = a.counters().get(io.jndk.api.NdkCounter.CONNECT_FAILURES);
        for (String ip : NOT_A_HOST) {
            int s = Kit.await(Conn.connect(c, pa.qp, Conn.at(ip, port), 1, 1, new byte[] {1}));
            assertThat(NtStatus.describe(s)).as("connect to %s", ip).isEqualTo(NtStatus.describe(NtStatus.STATUS_INVALID_ADDRESS));
        }
        assertThat(a.counters().get(io.jndk.api.NdkCounter.CONNECT_FAILURES)).as("connection attempts the transport ended")
                .isEqualTo(failuresBefore);
        // the same connector and QP (and the ephemeral source port range) are still usable: a connect to the host
        // reaches the wildcard listener, and it is the only request that listener ever saw
        CompletableFuture<Integer> real = Conn.connect(c, pa.qp, Conn.local(port), 1, 1, new byte[] {2});
        NdkConnector pc = any.next();
        assertThat(Conn.connectionData(pc, null, null)).as("private data of the first request the listener saw")
                .isEqualTo(mode.carried(new byte[] {2}, Mode.REQ));
        CompletableFuture<Integer> accept = Conn.accept(pc, pb.qp, 1, 1, null, null);
        assertThat(Kit.await(real)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(c, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(any.incoming).as("no other request reached the listener").isEmpty();
        Conn.sendAndVerify(w, pa, pb, 64, 3);
    }

    @Test
    void connectFromALocalAddressInUseIsSharingViolation() {
        NdkAdapter a = w.adapter();
        Peer pa = Conn.peer(w, a, "qpA");
        Listening l = Conn.listen(w, a);
        Listening other = Conn.listen(w, a);
        NdkConnector c = Conn.connector(w, a);
        int s = Kit.request((rc, x) -> c.connect(pa.qp, other.address, l.address, 1, 1, null, rc, x));
        assertThat(NtStatus.describe(s)).isEqualTo(NtStatus.describe(NtStatus.STATUS_SHARING_VIOLATION));
        assertThat(l.incoming).isEmpty();
    }
}
