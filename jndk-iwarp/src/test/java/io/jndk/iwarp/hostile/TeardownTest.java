package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.HostileKit.WAIT_NANOS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Teardown never leaves an engine thread in consumer memory: a QP closes while a large Read Response streams from its
 * memory to a peer that has stopped reading (the transmit thread waits inside a write of that memory), then the
 * connector, the adapter and the memory's arena close. The QP's close completes only once the engine has left the
 * memory (bounded by the Terminate's linger: the peer never reads it), so closing the arena afterwards succeeds; had
 * the close returned first, the arena would refuse ("Session is acquired by 1 clients"), and with raw memory the write
 * would read freed memory. (The transmit thread then failed with "Already closed" at its next write of the closed
 * memory, or the arena's close found the memory still acquired by the write in progress.)
 */
@Timeout(60)
class TeardownTest {

    private static final int SIZE = 32 << 20; // far more than the (small) socket buffers hold

    @Test
    void aQpClosedWithALargeReadResponseInFlightReleasesItsMemoryBeforeTheCloseCompletes() throws Exception {
        // small socket buffers: the response cannot all sit in them, the transmit thread waits in its write
        HostileKit kit = new HostileKit(java.util.Map.of("tcp.sndbuf", "16384", "tcp.rcvbuf", "16384"));
        RawPeer peer = null;
        try {
            HostileKit.Guarded big = kit.register("big", kit.pd, SIZE, HostileKit.ALL);
            HostileKit.Accepting a = kit.prepare(1);
            peer = RawPeer.establish(kit.address, false, 1);
            assertThat(NtStatus.name(HostileKit.join(a.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
            peer.write(peer.readRequest(1, SIZE, big.token(), big.base()));
            byte[] first = peer.readFpdu();
            assertThat(first[3] & 0x0F).as("the response streams").isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE.code());
            // the peer reads no more: the transmit thread fills the socket and waits inside a write of `big`
            long start = System.nanoTime();
            CompletableFuture<Void> qpClosed = kit.closeLater(a.qp); // connected: a local abort (a Terminate)
            CompletableFuture<Void> connectorClosed = kit.closeLater(a.connector);
            connectorClosed.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            qpClosed.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
            long took = System.nanoTime() - start;
            assertThat(TimeUnit.NANOSECONDS.toMillis(took)).as("the close's wait is bounded by the linger")
                .isLessThan(10_000);
            kit.receiveCompletions(HostileKit.RECEIVES);
        } finally {
            RawPeer p = peer;
            // the peer stays connected (and silent) until the arena has closed
            assertThatCode(() -> kit.close(() -> closeQuietly(p))).as("adapter and arena close: nothing holds the memory")
                .doesNotThrowAnyException();
        }
    }

    private static void closeQuietly(RawPeer p) {
        if (p != null) {
            try {
                p.close();
            } catch (java.io.IOException ignored) {
                // closing anyway
            }
        }
    }
}
