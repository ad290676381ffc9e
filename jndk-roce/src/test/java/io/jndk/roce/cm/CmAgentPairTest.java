package io.jndk.roce.cm;

import static io.jndk.roce.mad.CmAttribute.DREP;
import static io.jndk.roce.mad.CmAttribute.DREQ;
import static io.jndk.roce.mad.CmAttribute.MRA;
import static io.jndk.roce.mad.CmAttribute.REJ;
import static io.jndk.roce.mad.CmAttribute.REP;
import static io.jndk.roce.mad.CmAttribute.REQ;
import static io.jndk.roce.mad.CmAttribute.RTU;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.mad.ConnectRejectFlyweight;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import io.jndk.roce.mad.MraFlyweight;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An active and a passive agent through an in-memory link with a virtual clock. */
class CmAgentPairTest {

    static final Gid A = Gid.ipv4Mapped(0xc000020b);
    static final Gid B = Gid.ipv4Mapped(0xc000020a);
    static final int PORT = 7174;
    static final long GUID_A = 0x505400fffe00020bL;
    static final long GUID_B = 0x505400fffe00020aL;

    MemoryLink link;
    CmAgent active;
    CmAgent passive;
    Recorder client;
    Recorder server;

    @BeforeEach
    void setUp() {
        link = new MemoryLink(1);
        active = link.agent(A, CmConfig.rdmaCm(GUID_A), new FixedIds(2, 0x0338fbd6));
        passive = link.agent(B, CmConfig.rdmaCm(GUID_B), new FixedIds(3, 0x539ab59b));
        client = new Recorder();
        server = new Recorder();
        assertThat(passive.listen(PORT, server)).isEqualTo(CmStatus.OK);
    }

    static byte[] data(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    static ConnectParams params(int port, byte[] data) {
        return new ConnectParams(B, 0x8068, port, 0x11, 0x6a0c4e, 4, 2, data);
    }

    CmConnection connect(byte[] data) {
        CmConnection c = active.newConnection(client);
        assertThat(c.connect(params(PORT, data))).isEqualTo(CmStatus.OK);
        link.run(100);
        return c;
    }

    @Test
    void connectAcceptCompleteEstablishesBothSides() {
        CmConnection c = connect(data(56, 1));
        CmEvent.RequestReceived r = server.only(CmEvent.RequestReceived.class);
        IncomingConnect q = r.request();
        assertThat(q.peer()).isEqualTo(A);
        assertThat(q.ipVersion()).isEqualTo(4);
        assertThat(q.sourceAddress()).containsExactly(0xc0, 0x00, 0x02, 0x0b);
        assertThat(q.destinationAddress()).containsExactly(0xc0, 0x00, 0x02, 0x0a);
        assertThat(q.sourcePort()).isEqualTo(0x8068);
        assertThat(q.destinationPort()).isEqualTo(PORT);
        assertThat(q.remoteQpn()).isEqualTo(0x11);
        assertThat(q.startingPsn()).isEqualTo(0x6a0c4e);
        assertThat(q.responderResources()).isEqualTo(4);
        assertThat(q.initiatorDepth()).isEqualTo(2);
        assertThat(q.remoteCaGuid()).isEqualTo(GUID_A);
        assertThat(q.privateData()).isEqualTo(data(56, 1));
        CmConnection s = r.connection();
        assertThat(s.state()).isEqualTo(CmState.REQ_RECEIVED);
        assertThat(passive.pendingRequests()).isEqualTo(1);

        // IRD/ORD: each lowered to what the REQ offered (REQ IRD 4, ORD 2)
        assertThat(s.accept(new AcceptParams(0x22, 0x2c66f6, 8, 8, data(196, 9)))).isEqualTo(CmStatus.OK);
        link.run(100);
        ConnectReply reply = client.only(CmEvent.ReplyReceived.class).reply();
        assertThat(reply.remoteQpn()).isEqualTo(0x22);
        assertThat(reply.startingPsn()).isEqualTo(0x2c66f6);
        assertThat(reply.responderResources()).isEqualTo(2);
        assertThat(reply.initiatorDepth()).isEqualTo(4);
        assertThat(reply.remoteCaGuid()).isEqualTo(GUID_B);
        assertThat(reply.privateData()).isEqualTo(data(196, 9));
        assertThat(c.state()).isEqualTo(CmState.REP_RECEIVED);

        assertThat(c.complete(null)).isEqualTo(CmStatus.OK);
        assertThat(c.state()).isEqualTo(CmState.ESTABLISHED);
        link.run(100);
        assertThat(server.only(CmEvent.Established.class).connection()).isSameAs(s);
        assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
        assertThat(passive.pendingRequests()).isZero();
        assertThat(link.attributes(A)).containsExactly(REQ, RTU);
        assertThat(link.attributes(B)).containsExactly(REP);
        assertThat(s.remoteCommId()).isEqualTo(c.localCommId()).isEqualTo(0x0338fbd6);
        assertThat(c.remoteCommId()).isEqualTo(s.localCommId()).isEqualTo(0x539ab59b);
        // one transaction ID for the REQ and every answer to it
        assertThat(link.sent.stream().map(m -> m.mad().getLong(8)).distinct()).containsExactly(0x00000002d6fb3803L);
        link.settle();
        assertThat(link.sent).hasSize(3);
    }

    @Test
    void rejectCarriesReason28AndPrivateData() {
        CmConnection c = connect(null);
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        assertThat(s.reject(data(149, 3))).isEqualTo(CmStatus.INVALID_BUFFER_SIZE);
        assertThat(s.reject(data(148, 3))).isEqualTo(CmStatus.OK);
        assertThat(s.accept(new AcceptParams(1, 1, 1, 1, null))).isEqualTo(CmStatus.INVALID_STATE);
        assertThat(s.disconnect(null)).as("never connected").isEqualTo(CmStatus.INVALID_STATE);
        link.run(100);
        CmEvent.Rejected rejected = client.only(CmEvent.Rejected.class);
        assertThat(rejected.during()).isEqualTo(CmState.REQ_SENT);
        assertThat(rejected.reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER);
        assertThat(rejected.privateData()).isEqualTo(data(148, 3));
        assertThat(c.state()).isEqualTo(CmState.CLOSED);
        // ib_cm's form of a REJ of an undecided REQ: no local ID, message rejected = REQ
        ConnectRejectFlyweight rej = new ConnectRejectFlyweight().wrap(link.sent(B, REJ).get(0).mad(), 0);
        assertThat(rej.localCommId()).isZero();
        assertThat(rej.remoteCommId()).isEqualTo(c.localCommId());
        assertThat(rej.messageRejected()).isEqualTo(ConnectRejectFlyweight.REJECTED_REQ);
        link.settle();
        assertThat(active.connections()).isZero();
        assertThat(passive.connections()).isZero();
        assertThat(passive.pendingRequests()).isZero();
    }

    @Test
    void noListenerIsRefusedWithReason8() {
        CmConnection c = active.newConnection(client);
        assertThat(c.connect(params(PORT + 1, null))).isEqualTo(CmStatus.OK);
        link.run(100);
        CmEvent.Rejected rejected = client.only(CmEvent.Rejected.class);
        assertThat(rejected.reason()).isEqualTo(ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID);
        assertThat(rejected.during()).isEqualTo(CmState.REQ_SENT);
        assertThat(server.events).isEmpty();
        assertThat(passive.connections()).isZero();
        passive.unlisten(PORT);
        CmConnection again = active.newConnection(client);
        again.connect(params(PORT, null));
        link.run(100);
        assertThat(client.of(CmEvent.Rejected.class)).hasSize(2);
    }

    @Test
    void privateDataLimitsAreEnforced() {
        CmConnection c = active.newConnection(client);
        assertThat(c.connect(params(PORT, data(57, 0)))).isEqualTo(CmStatus.INVALID_BUFFER_SIZE);
        assertThat(c.state()).isEqualTo(CmState.IDLE);
        assertThat(link.sent).isEmpty();
        assertThat(c.connect(params(PORT, data(56, 0)))).isEqualTo(CmStatus.OK);
        assertThat(c.connect(params(PORT, data(1, 0)))).isEqualTo(CmStatus.INVALID_STATE);
        link.run(100);
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        assertThat(s.accept(new AcceptParams(1, 1, 1, 1, data(197, 0)))).isEqualTo(CmStatus.INVALID_BUFFER_SIZE);
        assertThat(s.accept(new AcceptParams(1 << 24, 1, 1, 1, null))).isEqualTo(CmStatus.INVALID_PARAMETER);
        assertThat(s.accept(new AcceptParams(1, 1, 256, 1, null))).isEqualTo(CmStatus.INVALID_PARAMETER);
        assertThat(s.state()).isEqualTo(CmState.REQ_RECEIVED);
        assertThat(s.accept(new AcceptParams(1, 1, 1, 1, data(196, 0)))).isEqualTo(CmStatus.OK);
        link.run(100);
        assertThat(c.complete(data(225, 0))).isEqualTo(CmStatus.INVALID_BUFFER_SIZE);
        assertThat(c.complete(data(224, 0))).isEqualTo(CmStatus.OK);
        link.run(100);
        assertThat(c.disconnect(data(221, 0))).isEqualTo(CmStatus.INVALID_BUFFER_SIZE);
        assertThat(c.disconnect(data(220, 0))).isEqualTo(CmStatus.OK);
        assertThat(CmAgent.REQ_PRIVATE_DATA).isEqualTo(56);
        assertThat(CmAgent.REP_PRIVATE_DATA).isEqualTo(196);
        assertThat(CmAgent.REJ_PRIVATE_DATA).isEqualTo(148);
        assertThat(CmAgent.RTU_PRIVATE_DATA).isEqualTo(224);
        assertThat(CmAgent.DREQ_PRIVATE_DATA).isEqualTo(220);
        assertThat(CmAgent.DREP_PRIVATE_DATA).isEqualTo(224);
    }

    @Test
    void activeRejectOfTheReplyAbortsThePassiveAccept() {
        CmConnection[] cs = replied();
        CmConnection c = cs[0];
        CmConnection s = cs[1];
        assertThat(c.reject(data(10, 7))).isEqualTo(CmStatus.OK);
        assertThat(c.complete(null)).isEqualTo(CmStatus.INVALID_STATE);
        link.run(100);
        CmEvent.Rejected rejected = server.only(CmEvent.Rejected.class);
        assertThat(rejected.during()).isEqualTo(CmState.REP_SENT);
        assertThat(rejected.reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER);
        assertThat(Arrays.copyOf(rejected.privateData(), 10)).isEqualTo(data(10, 7));
        assertThat(new ConnectRejectFlyweight().wrap(link.sent(A, REJ).get(0).mad(), 0).messageRejected())
            .isEqualTo(ConnectRejectFlyweight.REJECTED_REP);
        assertThat(server.of(CmEvent.Established.class)).isEmpty();
    }

    /** @return the active and passive connections, the REP received by the active side */
    CmConnection[] replied() {
        CmConnection c = connect(null);
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        assertThat(s.accept(new AcceptParams(0x22, 5, 1, 1, null))).isEqualTo(CmStatus.OK);
        link.run(100);
        return new CmConnection[] {c, s};
    }

    /** Completes with the RTU lost on the way. */
    void completeLosingTheRtu(CmConnection c) {
        link.blackhole(true);
        assertThat(c.complete(null)).isEqualTo(CmStatus.OK);
        link.blackhole(false);
    }

    /** @return the active and passive connections, established */
    CmConnection[] established() {
        CmConnection[] cs = replied();
        cs[0].complete(null);
        link.run(100);
        assertThat(cs[1].state()).isEqualTo(CmState.ESTABLISHED);
        return cs;
    }

    @Test
    void activeDisconnects() {
        CmConnection[] cs = established();
        assertThat(cs[0].disconnect(null)).isEqualTo(CmStatus.OK);
        assertThat(cs[0].state()).isEqualTo(CmState.DREQ_SENT);
        link.run(100);
        assertThat(client.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.LOCAL);
        assertThat(server.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.PEER);
        assertThat(cs[0].state()).isEqualTo(CmState.TIMEWAIT);
        assertThat(cs[1].state()).isEqualTo(CmState.TIMEWAIT);
        assertThat(cs[1].disconnect(null)).as("already disconnected by the peer").isEqualTo(CmStatus.OK);
        assertThat(link.attributes(A)).containsExactly(REQ, RTU, DREQ);
        assertThat(link.attributes(B)).containsExactly(REP, DREP);
        link.settle();
        assertThat(client.only(CmEvent.TimewaitExit.class).connection()).isSameAs(cs[0]);
        assertThat(server.only(CmEvent.TimewaitExit.class).connection()).isSameAs(cs[1]);
        assertThat(cs[0].state()).isEqualTo(CmState.CLOSED);
        assertThat(active.connections() + passive.connections()).isZero();
    }

    @Test
    void passiveDisconnects() {
        CmConnection[] cs = established();
        assertThat(cs[1].disconnect(data(3, 3))).isEqualTo(CmStatus.OK);
        link.run(100);
        assertThat(server.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.LOCAL);
        assertThat(client.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.PEER);
        assertThat(link.attributes(B)).containsExactly(REP, DREQ);
        assertThat(link.attributes(A)).containsExactly(REQ, RTU, DREP);
        // the passive side's DREQ starts its own transaction
        assertThat(link.sent(B, DREQ).get(0).mad().getLong(8)).isNotEqualTo(cs[0].transactionId());
        link.settle();
        assertThat(active.connections() + passive.connections()).isZero();
    }

    @Test
    void disconnectRetriesThenTimesOut() {
        CmConnection[] cs = established();
        link.blackhole(true);
        long start = link.clock.getAsLong();
        cs[0].disconnect(null);
        link.settle();
        assertThat(link.sent(A, DREQ)).hasSize(16);
        assertThat(client.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.TIMEOUT);
        long elapsed = link.sent(A, DREQ).get(15).nanos() - start;
        assertThat(elapsed).isEqualTo(15 * 6144 * 1_000_000L);
    }

    @Test
    void reqRetriesUpToMaxCmRetriesThenTimesOut() {
        link.blackhole(true);
        CmConnection c = active.newConnection(client);
        long start = link.clock.getAsLong();
        c.connect(params(PORT, null));
        link.settle();
        // the first REQ and 15 retries, 6144 ms apart (2 * 2^(18-8) + 2^(20-8) ms), then a REJ with reason 4
        assertThat(link.attributes(A)).hasSize(17).endsWith(REJ);
        assertThat(link.sent(A, REQ)).hasSize(16);
        assertThat(link.sent(A, REQ).get(1).nanos() - start).isEqualTo(6144 * 1_000_000L);
        CmEvent.TimedOut t = client.only(CmEvent.TimedOut.class);
        assertThat(t.during()).isEqualTo(CmState.REQ_SENT);
        assertThat(link.clock.getAsLong() - start).isEqualTo(16 * 6144 * 1_000_000L);
        ConnectRejectFlyweight rej = new ConnectRejectFlyweight().wrap(link.sent(A, REJ).get(0).mad(), 0);
        assertThat(rej.reason()).isEqualTo(ConnectRejectFlyweight.REASON_TIMEOUT);
        assertThat(rej.rejectInfoLength()).isEqualTo(8);
        assertThat(rej.buffer().getLong(24 + ConnectRejectFlyweight.ARI)).isEqualTo(GUID_A);
        assertThat(active.connections()).isZero();
    }

    @Test
    void repRetriesUntilTheRtuArrives() {
        CmConnection[] cs = replied();
        CmConnection c = cs[0];
        CmConnection s = cs[1];
        completeLosingTheRtu(c);
        link.run(4096 + 50);
        // the REP was resent after 4096 ms (2^(20-8)), answered by the RTU again
        assertThat(link.attributes(B)).containsExactly(REP, REP);
        assertThat(link.attributes(A)).containsExactly(REQ, RTU, RTU);
        assertThat(server.only(CmEvent.Established.class).connection()).isSameAs(s);
        assertThat(passive.counter(CmCounter.RETRIES)).isEqualTo(1);
    }

    @Test
    void repTimesOutWhenNoRtuEverComes() {
        CmConnection[] cs = replied();
        CmConnection c = cs[0];
        CmConnection s = cs[1];
        link.blackhole(true);
        c.complete(null);
        link.settle();
        assertThat(link.sent(B, REP)).hasSize(16);
        assertThat(server.only(CmEvent.TimedOut.class).during()).isEqualTo(CmState.REP_SENT);
        assertThat(link.sent(B, REJ)).hasSize(1);
        assertThat(passive.connections()).isZero();
    }

    @Test
    void duplicateReqWhileTheRepIsOutstandingGetsTheRepAgain() {
        CmConnection c = active.newConnection(client);
        c.connect(params(PORT, null));
        link.run(100);
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        link.blackhole(true);
        s.accept(new AcceptParams(0x22, 5, 1, 1, null));
        link.blackhole(false);
        // the REP was lost; the passive REP timer (4096 ms) resends it before the active REQ timer (6144 ms) fires
        link.run(6144 + 50);
        assertThat(server.of(CmEvent.RequestReceived.class)).hasSize(1);
        assertThat(client.of(CmEvent.ReplyReceived.class)).hasSize(1);
        assertThat(c.state()).isEqualTo(CmState.REP_RECEIVED);
        // a REQ arriving now (a late retry) is a duplicate: REP again, no second request
        ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(link.sent(A, REQ).get(0).mad(), 0);
        passive.receive(A, req.buffer(), 0, 256);
        link.run(100);
        assertThat(server.of(CmEvent.RequestReceived.class)).hasSize(1);
        assertThat(link.sent(B, REP)).hasSize(3);
        assertThat(passive.counter(CmCounter.DUPLICATES)).isEqualTo(1);
        assertThat(client.of(CmEvent.ReplyReceived.class)).hasSize(1);
        // the REPs that reach the undecided active side are answered by an MRA
        assertThat(link.sent(A, MRA)).isNotEmpty();
    }

    @Test
    void mraFromTheUndecidedPassiveSideExtendsTheActiveWait() {
        CmConnection c = active.newConnection(client);
        c.connect(params(PORT, null));
        link.run(6144 + 50);
        // the consumer has not decided: the retried REQ gets an MRA (service timeout 24), and the REQ timer waits for it
        assertThat(link.attributes(A)).containsExactly(REQ, REQ);
        assertThat(link.attributes(B)).containsExactly(MRA);
        MraFlyweight mra = new MraFlyweight().wrap(link.sent(B, MRA).get(0).mad(), 0);
        assertThat(mra.messageMraed()).isEqualTo(CmAgent.MRAED_REQ);
        assertThat(mra.serviceTimeout()).isEqualTo(24);
        assertThat(mra.localCommId()).isEqualTo(server.only(CmEvent.RequestReceived.class).connection().localCommId());
        link.run(60_000);
        assertThat(link.sent(A, REQ)).hasSize(2);
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        assertThat(s.accept(new AcceptParams(0x22, 5, 1, 1, null))).isEqualTo(CmStatus.OK);
        link.run(100);
        assertThat(c.complete(null)).isEqualTo(CmStatus.OK);
        link.run(100);
        assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
        assertThat(client.of(CmEvent.TimedOut.class)).isEmpty();
    }

    @Test
    void firstDataPacketEstablishesThePassiveSide() {
        CmConnection[] cs = replied();
        CmConnection c = cs[0];
        CmConnection s = cs[1];
        completeLosingTheRtu(c);
        s.dataArrived();
        assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
        assertThat(server.of(CmEvent.Established.class)).hasSize(1);
        link.settle();
        assertThat(link.sent(B, REP)).as("no REP retries once established").hasSize(1);
    }

    @Test
    void dreqBeforeTheRtuEstablishesThenDisconnects() {
        CmConnection[] cs = replied();
        CmConnection c = cs[0];
        CmConnection s = cs[1];
        completeLosingTheRtu(c);
        c.disconnect(null);
        link.run(100);
        assertThat(server.events.stream().map(e -> e.getClass().getSimpleName())).containsExactly("RequestReceived",
            "Established", "Disconnected");
        assertThat(client.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.LOCAL);
    }

    @Test
    void closingWhileTheReqIsOutstandingSendsATimeoutReject() {
        CmConnection c = connect(null);
        c.close();
        link.run(100);
        CmEvent.Rejected r = server.only(CmEvent.Rejected.class);
        assertThat(r.during()).isEqualTo(CmState.REQ_RECEIVED);
        assertThat(r.reason()).isEqualTo(ConnectRejectFlyweight.REASON_TIMEOUT);
        assertThat(client.events).isEmpty();
        assertThat(passive.connections()).isZero();
    }

    @Test
    void listenTwiceOnOnePortIsRefused() {
        assertThat(passive.listen(PORT, new Recorder())).isEqualTo(CmStatus.ADDRESS_IN_USE);
        assertThat(passive.listen(0, new Recorder())).isEqualTo(CmStatus.INVALID_PARAMETER);
        assertThat(passive.listen(PORT + 1, new Recorder())).isEqualTo(CmStatus.OK);
    }

    @Test
    void ipv6GidsGiveAnIpv6RdmaCmHeader() {
        byte[] a6 = new byte[16];
        byte[] b6 = new byte[16];
        a6[0] = (byte) 0xfe;
        a6[1] = (byte) 0x80;
        a6[15] = 1;
        b6[0] = (byte) 0xfe;
        b6[1] = (byte) 0x80;
        b6[15] = 2;
        MemoryLink six = new MemoryLink(2);
        CmAgent a = six.agent(new Gid(a6), CmConfig.rdmaCm(1), new FixedIds(1));
        CmAgent b = six.agent(new Gid(b6), CmConfig.rdmaCm(2), new FixedIds(1));
        Recorder r = new Recorder();
        b.listen(PORT, r);
        a.newConnection(new Recorder()).connect(new ConnectParams(new Gid(b6), 40000, PORT, 1, 1, 1, 1, null));
        six.run(100);
        IncomingConnect q = r.only(CmEvent.RequestReceived.class).request();
        assertThat(q.ipVersion()).isEqualTo(6);
        assertThat(q.sourceAddress()).isEqualTo(a6);
        assertThat(q.destinationAddress()).isEqualTo(b6);
        assertThat(q.sourcePort()).isEqualTo(40000);
    }
}
