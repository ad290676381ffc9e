package io.jndk.roce.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.jndk.roce.mad.CmAttribute;
import io.jndk.roce.mad.CmServiceId;
import io.jndk.roce.mad.CmaHeader;
import io.jndk.roce.mad.ConnectRejectFlyweight;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import io.jndk.roce.mad.DisconnectRequestFlyweight;
import io.jndk.roce.mad.MadHeaderFlyweight;
import io.jndk.roce.mad.MraFlyweight;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Malformed MADs, MADs for unknown connections or in the wrong state, and storms of REQs: never an exception, never
 * more state than the bounds, and only the stateless answers ib_cm gives.
 */
class CmHostileTest {

    static final Gid PEER = CmAgentPairTest.A;
    static final Gid LOCAL = CmAgentPairTest.B;
    static final int PENDING = 64;

    VirtualClock clock;
    List<ByteBuffer> out;
    CmAgent agent;
    Recorder server;

    /** A MAD sent by the agent, decoded for the test. */
    record Answer(CmAttribute attribute, int local, int remote, int reason) {
    }

    @BeforeEach
    void setUp() {
        clock = new VirtualClock();
        out = new ArrayList<>();
        agent = new CmAgent(LOCAL, CmConfig.rdmaCm(CmAgentPairTest.GUID_B).withBounds(PENDING, 4 * PENDING), clock,
            new FixedIds(3), (to, mad) -> out.add(CmCaptureReplayTest.copy(mad)));
        server = new Recorder();
        agent.listen(7174, server);
    }

    /** rping's captured REQ to port 7174. */
    static final CmCaptureReplayTest.Mad RPING_REQ = CmCaptureReplayTest.first(CmCaptureReplayTest.mads("pair_rping.pcap"),
        CmAttribute.REQ);

    /** @return a copy of rping's captured REQ */
    static ByteBuffer capturedReq() {
        return RPING_REQ.buffer();
    }

    static ByteBuffer req(int commId, Consumer<ConnectRequestFlyweight> change) {
        ByteBuffer b = capturedReq();
        ConnectRequestFlyweight f = new ConnectRequestFlyweight().wrap(b, 0);
        f.localCommId(commId);
        change.accept(f);
        return b;
    }

    void receive(ByteBuffer mad) {
        agent.receive(PEER, mad, 0, mad.limit());
    }

    Answer answer(int i) {
        ByteBuffer b = out.get(i);
        CmAttribute a = CmAttribute.of(b.getShort(MadHeaderFlyweight.ATTRIBUTE_ID_OFFSET) & 0xFFFF);
        int reason = a == CmAttribute.REJ ? new ConnectRejectFlyweight().wrap(b, 0).reason() : -1;
        return new Answer(a, b.getInt(24), b.getInt(28), reason);
    }

    long rejects(int reason) {
        return out.stream().filter(b -> b.getShort(MadHeaderFlyweight.ATTRIBUTE_ID_OFFSET) == CmAttribute.REJ.id()
            && new ConnectRejectFlyweight().wrap(b, 0).reason() == reason).count();
    }

    static ByteBuffer cm(CmAttribute attribute, int local, int remote) {
        ByteBuffer b = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
        new MadHeaderFlyweight().wrap(b, 0).cm(attribute, 42);
        b.putInt(24, local);
        b.putInt(28, remote);
        return b;
    }

    @Test
    void malformedMadsAreCountedAndDropped() {
        ByteBuffer good = capturedReq();
        assertThatCode(() -> {
            agent.receive(PEER, null, 0, 256);
            agent.receive(null, good, 0, 256);
            agent.receive(PEER, good, 0, 255);
            agent.receive(PEER, good, 1, 256);
            agent.receive(PEER, good, -1, 256);
            agent.receive(PEER, ByteBuffer.allocate(10), 0, 256);
            for (int[] bad : new int[][] {{0, 2}, {1, 0x81}, {2, 1}, {3, 0x83}, {3, 0x01}, {17, 0x00}}) {
                ByteBuffer b = capturedReq();
                b.put(bad[0], (byte) bad[1]);
                receive(b);
            }
            ByteBuffer unknown = capturedReq();
            unknown.putShort(MadHeaderFlyweight.ATTRIBUTE_ID_OFFSET, (short) 0x0019);
            receive(unknown);
        }).doesNotThrowAnyException();
        assertThat(agent.counter(CmCounter.MALFORMED)).isEqualTo(13);
        assertThat(out).isEmpty();
        assertThat(server.events).isEmpty();
        assertThat(agent.connections()).isZero();
    }

    @Test
    void randomMadsNeverThrowAndStayBounded() {
        Random random = new Random(7);
        CmAttribute[] attributes = CmAttribute.values();
        for (int i = 0; i < 20_000; i++) {
            ByteBuffer b = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
            random.nextBytes(b.array());
            if (i % 2 == 0) {
                // a valid CM header over random content, half of them for the listened service
                new MadHeaderFlyweight().wrap(b, 0).baseVersion(1).mgmtClass(7).classVersion(2).method(3)
                    .attributeId(attributes[random.nextInt(attributes.length)].id());
                if (random.nextBoolean()) {
                    new ConnectRequestFlyweight().wrap(b, 0).serviceId(CmServiceId.tcp(7174));
                }
            }
            assertThatCode(() -> receive(b)).as("MAD %d", i).doesNotThrowAnyException();
            clock.advanceMillis(random.nextInt(100));
            agent.tick();
        }
        assertThat(agent.pendingRequests()).isLessThanOrEqualTo(PENDING);
        assertThat(agent.connections()).isLessThanOrEqualTo(PENDING);
        assertThat(agent.counter(CmCounter.MADS_SENT)).isLessThanOrEqualTo(agent.counter(CmCounter.MADS_RECEIVED)
            + agent.counter(CmCounter.RETRIES));
        clock.advanceMillis(3_600_000);
        agent.tick();
        agent.tick();
        assertThat(agent.connections()).isZero();
    }

    @Test
    void unknownCommIdsAreAnsweredOnlyWhereIbCmAnswers() {
        for (CmAttribute a : new CmAttribute[] {CmAttribute.MRA, CmAttribute.REJ, CmAttribute.RTU, CmAttribute.DREP}) {
            receive(cm(a, 0x1111, 0x2222));
        }
        assertThat(out).isEmpty();
        receive(cm(CmAttribute.REP, 0x1111, 0x2222));
        assertThat(answer(0)).isEqualTo(new Answer(CmAttribute.REJ, 0x2222, 0x1111, CmAgent.REASON_INVALID_COMM_ID));
        receive(cm(CmAttribute.DREQ, 0x3333, 0x4444));
        assertThat(answer(1)).isEqualTo(new Answer(CmAttribute.DREP, 0x4444, 0x3333, -1));
        assertThat(out.get(1).getLong(MadHeaderFlyweight.TRANSACTION_ID_OFFSET)).isEqualTo(42);
        assertThat(agent.counter(CmCounter.UNKNOWN_CONNECTION)).isEqualTo(6);
        assertThat(agent.connections()).isZero();
    }

    @Test
    void reqStormIsBoundedAndExcessGetsReject3() {
        for (int i = 1; i <= 5000; i++) {
            receive(req(i, f -> {
            }));
        }
        assertThat(server.of(CmEvent.RequestReceived.class)).hasSize(PENDING);
        assertThat(agent.pendingRequests()).isEqualTo(PENDING);
        assertThat(agent.connections()).isEqualTo(PENDING);
        assertThat(rejects(CmAgent.REASON_NO_RESOURCES)).isEqualTo(5000 - PENDING);
        assertThat(agent.counter(CmCounter.REQUEST_OVERFLOW)).isEqualTo(5000 - PENDING);
        assertThat(out).hasSize(5000 - PENDING);
        // undecided requests expire after the active side's retry window (16 REQs, 6144 ms apart)
        clock.advanceMillis(16 * 6144 + 1);
        agent.tick();
        assertThat(server.of(CmEvent.TimedOut.class)).hasSize(PENDING).allMatch(t -> t.during() == CmState.REQ_RECEIVED);
        assertThat(agent.connections()).isZero();
        assertThat(agent.pendingRequests()).isZero();
        receive(req(9999, f -> {
        }));
        assertThat(server.of(CmEvent.RequestReceived.class)).hasSize(PENDING + 1);
    }

    @Test
    void rejectedRequestsAreHeldWithinTheBound() {
        Recorder rejecting = new Recorder(e -> {
            if (e instanceof CmEvent.RequestReceived r) {
                r.connection().reject(null);
            }
        });
        agent.unlisten(7174);
        agent.listen(7174, rejecting);
        for (int i = 1; i <= 5000; i++) {
            receive(req(i, f -> {
            }));
        }
        // a decided (rejected) request no longer counts as pending, and the oldest held rejection makes room for a
        // new request when the connection bound (4 x PENDING here) is reached: every request is decided by the
        // consumer, none is locked out, and the held state stays within the bound
        int held = 4 * PENDING;
        assertThat(rejects(ConnectRejectFlyweight.REASON_CONSUMER)).isEqualTo(5000);
        assertThat(rejects(CmAgent.REASON_NO_RESOURCES)).isZero();
        assertThat(agent.connections()).isEqualTo(held);
        assertThat(agent.pendingRequests()).isZero();
        // a retried REQ of a held rejection gets the same REJ again, no new request
        receive(req(5000, f -> {
        }));
        assertThat(rejecting.of(CmEvent.RequestReceived.class)).hasSize(5000);
        assertThat(rejects(ConnectRejectFlyweight.REASON_CONSUMER)).isEqualTo(5000 + 1);
        clock.advanceMillis(16 * 6144 + 1);
        agent.tick();
        assertThat(agent.connections()).isZero();
    }

    @Test
    void duplicateReqStormMakesOneRequest() {
        for (int i = 0; i < 5000; i++) {
            receive(req(77, f -> {
            }));
        }
        assertThat(server.of(CmEvent.RequestReceived.class)).hasSize(1);
        assertThat(agent.connections()).isEqualTo(1);
        assertThat(out).hasSize(4999).allMatch(b -> b.getShort(MadHeaderFlyweight.ATTRIBUTE_ID_OFFSET) == CmAttribute.MRA.id());
        assertThat(new MraFlyweight().wrap(out.get(0), 0).messageMraed()).isEqualTo(CmAgent.MRAED_REQ);
    }

    @Test
    void reqStormWithoutListenerLeavesNoState() {
        agent.unlisten(7174);
        for (int i = 1; i <= 5000; i++) {
            receive(req(i, f -> {
            }));
        }
        assertThat(rejects(ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID)).isEqualTo(5000);
        assertThat(answer(0)).isEqualTo(new Answer(CmAttribute.REJ, 0, 1, ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID));
        assertThat(agent.connections()).isZero();
        assertThat(server.events).isEmpty();
    }

    @Test
    void unusableRequestsAreRejected() {
        receive(req(1, f -> f.serviceId(CmServiceId.of(CmServiceId.PS_UDP, 7174))));
        receive(req(2, f -> f.serviceId(CmServiceId.tcp(7174) | (1L << 40))));
        receive(req(3, f -> new CmaHeader().wrap(f.buffer(), f.privateDataIndex()).cmaVersion(1)));
        receive(req(4, f -> new CmaHeader().wrap(f.buffer(), f.privateDataIndex()).ipVersion(5)));
        receive(req(5, f -> f.transportServiceType(1)));
        assertThat(out).hasSize(5);
        assertThat(answer(0).reason()).isEqualTo(ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID);
        assertThat(answer(1).reason()).isEqualTo(ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID);
        assertThat(answer(2).reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER);
        assertThat(answer(3).reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER);
        assertThat(answer(4).reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER);
        assertThat(server.events).isEmpty();
        assertThat(agent.connections()).isZero();
    }

    @Test
    void messagesThatDoNotFitTheStateAreDropped() {
        receive(req(0x77, f -> {
        }));
        CmConnection s = server.only(CmEvent.RequestReceived.class).connection();
        int us = s.localCommId();
        // before the accept: RTU, DREQ and DREP mean nothing
        receive(cm(CmAttribute.RTU, 0x77, us));
        ByteBuffer dreq = cm(CmAttribute.DREQ, 0x77, us);
        receive(dreq);
        receive(cm(CmAttribute.DREP, 0x77, us));
        assertThat(s.state()).isEqualTo(CmState.REQ_RECEIVED);
        assertThat(s.accept(new AcceptParams(0x11, 1, 1, 1, null))).isEqualTo(CmStatus.OK);
        // the right IDs from the wrong GID, or the wrong sender ID: not this connection
        agent.receive(Gid.ipv4Mapped(0x01020304), cm(CmAttribute.RTU, 0x77, us), 0, 256);
        receive(cm(CmAttribute.RTU, 0x78, us));
        assertThat(s.state()).isEqualTo(CmState.REP_SENT);
        // a DREQ naming another QP than ours
        ByteBuffer wrongQp = cm(CmAttribute.DREQ, 0x77, us);
        new DisconnectRequestFlyweight().wrap(wrongQp, 0).remoteQpn(0x12);
        receive(wrongQp);
        assertThat(s.state()).isEqualTo(CmState.REP_SENT);
        // consumer calls in the wrong state
        assertThat(s.accept(new AcceptParams(0x11, 1, 1, 1, null))).isEqualTo(CmStatus.INVALID_STATE);
        assertThat(s.complete(null)).isEqualTo(CmStatus.INVALID_STATE);
        assertThat(s.connect(CmAgentPairTest.params(7174, null))).isEqualTo(CmStatus.INVALID_STATE);
        assertThat(s.disconnect(null)).isEqualTo(CmStatus.INVALID_STATE);
        assertThat(s.reject(null)).isEqualTo(CmStatus.INVALID_STATE);
        receive(cm(CmAttribute.RTU, 0x77, us));
        assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
        receive(cm(CmAttribute.RTU, 0x77, us));
        assertThat(server.of(CmEvent.Established.class)).hasSize(1);
        assertThat(agent.counter(CmCounter.WRONG_STATE)).isEqualTo(5);
        assertThat(agent.counter(CmCounter.UNKNOWN_CONNECTION)).isEqualTo(2);
    }
}
