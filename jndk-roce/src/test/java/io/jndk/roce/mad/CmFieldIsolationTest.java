package io.jndk.roce.mad;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random values written to every field of every CM flyweight, in a random order, read back unchanged: no two
 * fields overlap and no setter spills into a neighbour. Each field also has the width the IBTA table gives it: a
 * value one bit wider is cut.
 */
class CmFieldIsolationTest {

    private record Field(String name, int bits, IntConsumer set, IntSupplier get) {
    }

    private static Field f(String name, int bits, IntConsumer set, IntSupplier get) {
        return new Field(name, bits, set, get);
    }

    private static Field flag(String name, java.util.function.Consumer<Boolean> set, java.util.function.BooleanSupplier get) {
        return new Field(name, 1, v -> set.accept(v != 0), () -> get.getAsBoolean() ? 1 : 0);
    }

    private static List<Field> req(ConnectRequestFlyweight m) {
        List<Field> l = new ArrayList<>(List.of(f("localCommId", 32, m::localCommId, m::localCommId),
            f("reserved4", 8, m::reserved4, m::reserved4), f("vendorId", 24, m::vendorId, m::vendorId),
            f("serviceIdHigh", 32, v -> m.serviceId((m.serviceId() & 0xFFFFFFFFL) | ((long) v << 32)), () -> (int) (m.serviceId() >>> 32)),
            f("serviceIdLow", 32, v -> m.serviceId((m.serviceId() & ~0xFFFFFFFFL) | (v & 0xFFFFFFFFL)), () -> (int) m.serviceId()),
            f("localCaGuid", 32, v -> m.localCaGuid(((long) v << 32) | (v & 0xFFFFFFFFL)), () -> (int) m.localCaGuid()),
            f("localQkey", 32, m::localQkey, m::localQkey), f("localQpn", 24, m::localQpn, m::localQpn),
            f("responderResources", 8, m::responderResources, m::responderResources), f("localEecn", 24, m::localEecn, m::localEecn),
            f("initiatorDepth", 8, m::initiatorDepth, m::initiatorDepth), f("remoteEecn", 24, m::remoteEecn, m::remoteEecn),
            f("remoteCmResponseTimeout", 5, m::remoteCmResponseTimeout, m::remoteCmResponseTimeout),
            f("transportServiceType", 2, m::transportServiceType, m::transportServiceType),
            flag("endToEndFlowControl", m::endToEndFlowControl, m::endToEndFlowControl),
            f("startingPsn", 24, m::startingPsn, m::startingPsn),
            f("localCmResponseTimeout", 5, m::localCmResponseTimeout, m::localCmResponseTimeout),
            f("retryCount", 3, m::retryCount, m::retryCount), f("pkey", 16, m::pkey, m::pkey), f("pathMtu", 4, m::pathMtu, m::pathMtu),
            flag("rdcExists", m::rdcExists, m::rdcExists), f("rnrRetryCount", 3, m::rnrRetryCount, m::rnrRetryCount),
            f("maxCmRetries", 4, m::maxCmRetries, m::maxCmRetries), flag("srq", m::srq, m::srq),
            f("extendedTransportType", 3, m::extendedTransportType, m::extendedTransportType),
            flag("sapSupported", m::sapSupported, m::sapSupported)));
        l.addAll(path("primary.", m.primaryPath()));
        l.addAll(path("alternate.", m.alternatePath()));
        return l;
    }

    private static List<Field> path(String p, CmPathFlyweight m) {
        return List.of(f(p + "localLid", 16, m::localLid, m::localLid), f(p + "remoteLid", 16, m::remoteLid, m::remoteLid),
            f(p + "localGid", 32, v -> m.putLocalGid(gid(v), 0), () -> gidValue(m, true)),
            f(p + "remoteGid", 32, v -> m.putRemoteGid(gid(v), 0), () -> gidValue(m, false)),
            f(p + "flowLabel", 20, m::flowLabel, m::flowLabel), f(p + "packetRate", 6, m::packetRate, m::packetRate),
            f(p + "trafficClass", 8, m::trafficClass, m::trafficClass), f(p + "hopLimit", 8, m::hopLimit, m::hopLimit),
            f(p + "sl", 4, m::sl, m::sl), flag(p + "subnetLocal", m::subnetLocal, m::subnetLocal),
            f(p + "localAckTimeout", 5, m::localAckTimeout, m::localAckTimeout));
    }

    private static byte[] gid(int v) {
        byte[] g = new byte[16];
        for (int i = 0; i < 16; i++) {
            g[i] = (byte) (v >>> ((i & 3) * 8));
        }
        return g;
    }

    private static int gidValue(CmPathFlyweight m, boolean local) {
        byte[] g = new byte[16];
        if (local) {
            m.getLocalGid(g, 0);
        } else {
            m.getRemoteGid(g, 0);
        }
        for (int i = 4; i < 16; i++) {
            if (g[i] != g[i & 3]) {
                return ~((g[0] & 0xFF) | (g[1] & 0xFF) << 8); // torn: cannot equal the value written
            }
        }
        return (g[0] & 0xFF) | (g[1] & 0xFF) << 8 | (g[2] & 0xFF) << 16 | (g[3] & 0xFF) << 24;
    }

    private static List<Field> rep(ConnectReplyFlyweight m) {
        return List.of(f("localCommId", 32, m::localCommId, m::localCommId), f("remoteCommId", 32, m::remoteCommId, m::remoteCommId),
            f("localQkey", 32, m::localQkey, m::localQkey), f("localQpn", 24, m::localQpn, m::localQpn),
            f("vendorId", 24, m::vendorId, m::vendorId), f("localEecn", 24, m::localEecn, m::localEecn),
            f("startingPsn", 24, m::startingPsn, m::startingPsn),
            f("responderResources", 8, m::responderResources, m::responderResources),
            f("initiatorDepth", 8, m::initiatorDepth, m::initiatorDepth), f("targetAckDelay", 5, m::targetAckDelay, m::targetAckDelay),
            f("failoverAccepted", 2, m::failoverAccepted, m::failoverAccepted),
            flag("endToEndFlowControl", m::endToEndFlowControl, m::endToEndFlowControl),
            f("rnrRetryCount", 3, m::rnrRetryCount, m::rnrRetryCount), flag("srq", m::srq, m::srq),
            f("localCaGuid", 32, v -> m.localCaGuid(((long) v << 32) | (v & 0xFFFFFFFFL)), () -> (int) (m.localCaGuid() >>> 32)));
    }

    private static List<Field> others(MraFlyweight mra, ConnectRejectFlyweight rej, DisconnectRequestFlyweight dreq) {
        return List.of(f("mra.localCommId", 32, mra::localCommId, mra::localCommId),
            f("mra.remoteCommId", 32, mra::remoteCommId, mra::remoteCommId), f("mra.messageMraed", 2, mra::messageMraed, mra::messageMraed),
            f("mra.serviceTimeout", 5, mra::serviceTimeout, mra::serviceTimeout),
            f("rej.localCommId", 32, rej::localCommId, rej::localCommId), f("rej.remoteCommId", 32, rej::remoteCommId, rej::remoteCommId),
            f("rej.messageRejected", 2, rej::messageRejected, rej::messageRejected),
            f("rej.rejectInfoLength", 7, rej::rejectInfoLength, rej::rejectInfoLength), f("rej.reason", 16, rej::reason, rej::reason),
            f("dreq.localCommId", 32, dreq::localCommId, dreq::localCommId),
            f("dreq.remoteCommId", 32, dreq::remoteCommId, dreq::remoteCommId), f("dreq.remoteQpn", 24, dreq::remoteQpn, dreq::remoteQpn));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 99, 123456789})
    void everyFieldKeepsItsValue(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int round = 0; round < 50; round++) {
            ByteBuffer b = ByteBuffer.allocate(5 * MadHeaderFlyweight.MAD_LENGTH);
            List<Field> fields = new ArrayList<>();
            fields.addAll(req(new ConnectRequestFlyweight().wrap(b, 0)));
            fields.addAll(rep(new ConnectReplyFlyweight().wrap(b, 256)));
            fields.addAll(others(new MraFlyweight().wrap(b, 512), new ConnectRejectFlyweight().wrap(b, 512 + 256),
                new DisconnectRequestFlyweight().wrap(b, 1024)));
            int[] values = new int[fields.size()];
            for (int n = 0; n < fields.size() * 3; n++) {
                int i = r.nextInt(fields.size());
                Field x = fields.get(i);
                values[i] = r.nextInt() & mask(x.bits());
                x.set().accept(values[i] | (x.bits() == 1 || r.nextBoolean() ? 0 : ~mask(x.bits()) & r.nextInt()));
            }
            for (int i = 0; i < fields.size(); i++) {
                assertThat(fields.get(i).get().getAsInt()).as("seed %d round %d: %s", seed, round, fields.get(i).name())
                    .isEqualTo(values[i]);
            }
        }
    }

    private static int mask(int bits) {
        return bits == 32 ? -1 : (1 << bits) - 1;
    }
}
