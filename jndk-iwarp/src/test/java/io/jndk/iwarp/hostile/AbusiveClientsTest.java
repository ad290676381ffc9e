package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.RawPeer.REQUEST_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.iwarp.cm.CmTestSupport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Slow and abusive clients of a jndk listener: stalled handshakes, a thousand half-open connections, and the
 * per-adapter {@code limit.*} options, which refuse at creation with {@code STATUS_INSUFFICIENT_RESOURCES}.
 */
@Timeout(120)
class AbusiveClientsTest {

    private static final byte[] HALF_REQUEST = CmTestSupport.hex(REQUEST_KEY + "1002"); // 18 of 24 octets

    @Test
    void stalledHandshakesDoNotDelayAValidClientAndAreDroppedAfterTheMpaTimeout() throws Exception {
        try (HostileKit kit = new HostileKit()) {
            List<Socket> stalled = open(kit, 10);
            try {
                kit.servesAValidConnection();
                for (Socket s : stalled) {
                    assertThat(CmTestSupport.readUntilClose(s)).as("dropped after the MPA timeout").isEmpty();
                }
            } finally {
                closeAll(stalled);
            }
            assertThat(kit.connectEvents).as("only the valid client reached the consumer").hasValue(1);
        }
    }

    @Test
    void aThousandHalfOpenConnectionsNeitherStopServiceNorLeak() throws Exception {
        int n = 1000;
        long limit = openFileLimit();
        // both ends of every connection live in this process, plus the JVM's own descriptors
        assumeTrue(limit >= 2L * n + 512, "open-file limit " + limit + " too low for " + n + " loopback connections");
        // a long MPA timeout: the connections must still be open while the valid client is served
        try (HostileKit kit = new HostileKit(Map.of("mpa.timeout.ms", "30000"))) {
            int before = Leaks.sockets();
            List<Socket> halfOpen = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    Socket s = RawPeer.connect(kit.address);
                    halfOpen.add(s);
                    if (i % 2 == 1) {
                        s.getOutputStream().write(HALF_REQUEST);
                    }
                }
                HostileKit.await("the listener to accept all of them", () -> Leaks.sockets() >= before + 2 * n);
                kit.servesAValidConnection();
            } finally {
                closeAll(halfOpen);
            }
            HostileKit.await("jndk to close its ends", () -> Leaks.sockets() <= before);
            assertThat(kit.connectEvents).hasValue(1);
            kit.servesAValidConnection();
        }
    }

    @Test
    void connectionLimitCountsHandshakesInProgress() throws Exception {
        try (HostileKit kit = new HostileKit(Map.of("limit.connections", "2", "mpa.timeout.ms", "30000"))) {
            int before = Leaks.sockets();
            List<Socket> stalled = open(kit, 2);
            try {
                HostileKit.await("both stalled handshakes held", () -> Leaks.sockets() >= before + 4);
                try (Socket third = RawPeer.connect(kit.address)) {
                    third.getOutputStream().write(HALF_REQUEST);
                    assertThat(CmTestSupport.readUntilClose(third)).as("refused at once, above the limit").isEmpty();
                }
                NdkConnector connector = kit.create(r -> kit.adapter.createConnector(null, null, r));
                NdkQp qp = kit.create(r -> kit.pd.createQp(kit.cq, kit.cq, "out", 1, 1, 1, 1, 0, null, null, r));
                InetAddress lo = InetAddress.getLoopbackAddress();
                int s = HostileKit.request(rc -> connector.connect(qp, new InetSocketAddress(lo, 0), kit.address, 1, 1,
                    null, rc, null));
                assertThat(NtStatus.name(s)).as("connect above the limit").isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
                kit.close(connector);
                kit.close(qp);
            } finally {
                closeAll(stalled);
            }
            HostileKit.await("the stalled handshakes to go", () -> Leaks.sockets() <= before);
            kit.servesAValidConnection();
            assertThat(kit.connectEvents).hasValue(1);
        }
    }

    @Test
    void objectLimitsRefuseAtCreation() throws Exception {
        // the kit itself creates 2 PDs, 1 CQ and 4 MRs and takes no QP or connector before its valid connection
        Map<String, String> limits = Map.of("limit.cq", "1", "limit.mr", "4", "limit.qp", "1", "limit.connector", "1");
        try (HostileKit kit = new HostileKit(limits)) {
            Ref<NdkCq> cq = new Ref<>();
            assertThat(NtStatus.name(kit.adapter.createCq(4, null, null, null, null, null, cq)))
                .isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
            Ref<NdkMr> mr = new Ref<>();
            assertThat(NtStatus.name(kit.pd.createMr(false, null, null, mr))).isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
            NdkQp first = kit.create(r -> kit.pd.createQp(kit.cq, kit.cq, "q", 1, 1, 1, 1, 0, null, null, r));
            Ref<NdkQp> qp = new Ref<>();
            assertThat(NtStatus.name(kit.pd.createQp(kit.cq, kit.cq, "q", 1, 1, 1, 1, 0, null, null, qp)))
                .isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
            NdkConnector one = kit.create(r -> kit.adapter.createConnector(null, null, r));
            Ref<NdkConnector> connector = new Ref<>();
            assertThat(NtStatus.name(kit.adapter.createConnector(null, null, connector)))
                .isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
            assertThat(cq.get()).isNull();
            assertThat(mr.get()).isNull();
            assertThat(qp.get()).isNull();
            assertThat(connector.get()).isNull();
            kit.close(one);
            kit.close(first);
            // closed objects give their slots back: the valid connection needs a QP and a passive connector
            kit.servesAValidConnection();
        }
    }

    private static List<Socket> open(HostileKit kit, int n) throws IOException {
        List<Socket> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = RawPeer.connect(kit.address);
            out.add(s);
            s.getOutputStream().write(HALF_REQUEST);
        }
        return out;
    }

    /**
     * Closes with a reset (SO_LINGER 0): an orderly close from this side would leave a TIME_WAIT entry per client
     * port for a minute, and jndk picks connect source ports itself, in a range that overlaps the kernel's.
     */
    private static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
            }
            s.close();
        }
    }

    /** The soft limit on open files of this process ({@code ulimit -n}). */
    private static long openFileLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return "unlimited".equals(soft) ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return 0;
    }
}
