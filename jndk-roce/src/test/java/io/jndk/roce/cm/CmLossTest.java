package io.jndk.roce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.mad.ConnectRejectFlyweight;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connections over a link that drops, duplicates and reorders MADs (seeded, one run per seed): every attempt ends
 * exactly once on each side within the retry bound, established on both sides or on neither; no attempt gives two
 * connections; every disconnect ends on both sides; and in the end both agents have forgotten every connection.
 */
class CmLossTest {

    static final int CONNECTIONS = 4;
    /** The REQ's retries (16 * 6144 ms) followed by the REP's (16 * 4096 ms), with room for the link's delays. */
    static final long ESTABLISHMENT_BOUND_MILLIS = 16 * 6144 + 16 * 4096 + 1000;

    static LongStream seeds() {
        return LongStream.range(0, 100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyConnectEndsOnceOnBothSides(long seed) {
        exchange(seed, 0.2, true);
    }

    /**
     * At 70 % loss a quarter of the attempts run out of retries: they fail on both sides, except where the last REJ is
     * lost as well and only the active side believes it is connected (never the passive side alone).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void heavyLossFailsOnBothSidesOrNeither(long seed) {
        exchange(seed, 0.7, false);
    }

    private static void exchange(long seed, double drop, boolean light) {
        MemoryLink link = new MemoryLink(seed).lossy(drop, 0.1, 30);
        CmAgent a = link.agent(CmAgentPairTest.A, CmConfig.rdmaCm(CmAgentPairTest.GUID_A), CmIdSource.linuxStyle(new Random(seed)));
        CmAgent b = link.agent(CmAgentPairTest.B, CmConfig.rdmaCm(CmAgentPairTest.GUID_B), CmIdSource.linuxStyle(new Random(~seed)));
        // the server accepts even-numbered requests (first private data octet) and rejects odd ones
        Recorder server = new Recorder(e -> {
            if (e instanceof CmEvent.RequestReceived r) {
                CmStatus s = r.request().privateData()[0] % 2 == 0
                    ? r.connection().accept(new AcceptParams(0x100 + r.request().remoteQpn(), 7, 1, 1, null))
                    : r.connection().reject(new byte[] {1});
                assertThat(s).isEqualTo(CmStatus.OK);
            }
        });
        b.listen(CmAgentPairTest.PORT, server);
        Map<CmConnection, Integer> completed = new HashMap<>();
        Recorder client = new Recorder(e -> {
            if (e instanceof CmEvent.ReplyReceived r) {
                assertThat(r.connection().complete(null)).isEqualTo(CmStatus.OK);
                completed.merge(r.connection(), 1, Integer::sum);
            }
        });
        List<CmConnection> actives = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            CmConnection c = a.newConnection(client);
            assertThat(c.connect(new ConnectParams(CmAgentPairTest.B, 40000 + i, CmAgentPairTest.PORT, 0x20 + i, 100 * i, 1, 1,
                new byte[] {(byte) i}))).isEqualTo(CmStatus.OK);
            actives.add(c);
        }
        link.run(ESTABLISHMENT_BOUND_MILLIS);

        String why = "seed " + seed + ", MADs " + link.sent.size();
        List<CmConnection> up = new ArrayList<>();
        List<CmConnection> halfOpen = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            CmConnection c = actives.get(i);
            int ended = completed.getOrDefault(c, 0) + client.of(CmEvent.Rejected.class, c).size()
                + client.of(CmEvent.TimedOut.class, c).size();
            assertThat(ended).as("%s: connection %d ends once on the active side", why, i).isEqualTo(1);
            List<CmEvent.RequestReceived> requests = server.of(CmEvent.RequestReceived.class).stream()
                .filter(r -> r.connection().remoteCommId() == c.localCommId()).toList();
            assertThat(requests).as("%s: connection %d requested at most once", why, i).hasSizeLessThanOrEqualTo(1);
            boolean activeUp = c.state() == CmState.ESTABLISHED;
            boolean passiveUp = false;
            if (!requests.isEmpty()) {
                CmConnection s = requests.get(0).connection();
                int passiveEnded = server.of(CmEvent.Established.class, s).size() + server.of(CmEvent.Rejected.class, s).size()
                    + server.of(CmEvent.TimedOut.class, s).size() + (i % 2 == 1 ? 1 : 0);
                assertThat(passiveEnded).as("%s: connection %d ends once on the passive side", why, i).isEqualTo(1);
                passiveUp = s.state() == CmState.ESTABLISHED;
                if (activeUp && passiveUp) {
                    up.add(c);
                    up.add(s);
                }
            }
            if (light || !activeUp || passiveUp) {
                assertThat(passiveUp).as("%s: connection %d established on both sides or neither", why, i).isEqualTo(activeUp);
            } else {
                // the RTU is never acknowledged: every REP retry or its RTU lost, the passive side timed out and its REJ
                // (reason 4) was lost too; the active side's first data packet will fail at the RC layer
                CmConnection s = requests.get(0).connection();
                assertThat(server.of(CmEvent.TimedOut.class, s)).as("%s: connection %d", why, i).hasSize(1)
                    .allMatch(t -> t.during() == CmState.REP_SENT);
                halfOpen.add(c);
            }
            if (i % 2 == 0 && light) {
                assertThat(activeUp).as("%s: with these seeds 16 tries always get through", why).isTrue();
            } else if (i % 2 == 1) {
                assertThat(activeUp).as("%s: a rejected request never connects", why).isFalse();
                client.of(CmEvent.Rejected.class, c)
                    .forEach(r -> assertThat(r.reason()).isEqualTo(ConnectRejectFlyweight.REASON_CONSUMER));
            }
            assertThat(c.state()).as("%s: connection %d has an outcome", why, i).isIn(CmState.ESTABLISHED, CmState.CLOSED,
                CmState.TIMEWAIT);
        }

        System.out.printf("seed %d: %d MADs (%d dropped), %d retries, %d duplicates answered, %d up, %d half open%n", seed,
            link.sent.size(),
            link.dropped(), a.counter(CmCounter.RETRIES) + b.counter(CmCounter.RETRIES),
            a.counter(CmCounter.DUPLICATES) + b.counter(CmCounter.DUPLICATES), up.size() / 2, halfOpen.size());

        // disconnect from one side or the other
        Random side = new Random(seed);
        for (int i = 0; i < up.size(); i += 2) {
            assertThat(up.get(i + side.nextInt(2)).disconnect(null)).isEqualTo(CmStatus.OK);
        }
        link.settle();
        for (int i = 0; i < up.size(); i++) {
            CmConnection c = up.get(i);
            Recorder r = c.isActive() ? client : server;
            boolean initiator = c.state() != CmState.ESTABLISHED && (r.of(CmEvent.Disconnected.class, c).stream()
                .anyMatch(d -> d.cause() != DisconnectCause.PEER));
            int disconnects = r.of(CmEvent.Disconnected.class, c).size();
            if (light || initiator) {
                // at light loss both sides always hear of it; the initiator always ends, by DREP or by timeout
                assertThat(disconnects).as("%s: %s disconnected once", why, c).isEqualTo(1);
                assertThat(c.state()).isEqualTo(CmState.CLOSED);
            } else {
                // every DREQ lost: the peer is still connected, as an rdma_cm peer would be
                assertThat(disconnects).as("%s: %s disconnected at most once", why, c).isLessThanOrEqualTo(1);
                c.close();
            }
        }
        halfOpen.forEach(CmConnection::close);
        link.settle();
        assertThat(a.connections()).as(why).isZero();
        assertThat(b.connections()).as(why).isZero();
        assertThat(b.pendingRequests()).as(why).isZero();
    }
}
