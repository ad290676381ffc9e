package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** RDMA Write, RDMA Read and Send end to end between two connected QPs, with every byte verified. */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class DataTransferConformanceTest {
    @Parameter
    Mode mode;

    World w;
    World.Pair p;
    Buffer srcA, dstB;
    NdkMr mrA, mrB;

    @BeforeEach
    void setUp() {
        w = new World(mode);
        p = w.connect();
        srcA = w.buffer(1 << 16).fillRandom(1);
        dstB = w.buffer(1 << 16);
        mrA = w.registerAll(p.a.pd, srcA);
        mrB = w.registerAll(p.b.pd, dstB);
    }

    @AfterEach
    void tearDown() {
        w.close();
    }

    @Test
    void writePlacesEveryByteAndCompletesAsWrite() {
        int st = p.a.qp.write("w1", new NdkSge[] {srcA.sge(0, 4096, mrA.getLocalToken())}, 1, dstB.address() + 100, mrB.getRemoteToken(), 0);
        assertThat(st).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.a.cq);
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(r.type).isEqualTo(NdkOperationType.WRITE);
        assertThat(r.requestContext).isEqualTo("w1");
        assertThat(r.qpContext).isEqualTo("qpA");
        // a Write is complete locally once handed to the transport (RDMAP rule 9): placement at the peer follows
        Kit.awaitTrue("write placed", () -> dstB.segment().asSlice(100, 4096).mismatch(srcA.segment().asSlice(0, 4096)) == -1);
        dstB.assertSame(100, srcA, 0, 4096);
        dstB.assertFilled(0, 100, (byte) 0);
        dstB.assertFilled(4196, 100, (byte) 0);
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void readFetchesRemoteBytes() {
        Buffer sink = w.buffer(8192);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        Buffer remote = w.buffer(8192).fillRandom(7);
        NdkMr remoteMr = w.registerAll(p.b.pd, remote);
        int st = p.a.qp.read("r1", new NdkSge[] {sink.sge(10, 5000, sinkMr.getLocalToken())}, 1, remote.address() + 3,
                remoteMr.getRemoteToken(), 0);
        assertThat(st).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.a.cq);
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(r.type).isEqualTo(NdkOperationType.READ);
        sink.assertSame(10, remote, 3, 5000);
    }

    @Test
    void sendConsumesReceiveWithByteCount() {
        assertThat(p.b.qp.receive("rx", new NdkSge[] {dstB.sge(0, 1000, mrB.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("tx", new NdkSge[] {srcA.sge(5, 777, mrA.getLocalToken())}, 1, NdkOpFlags.SEND_AND_SOLICIT_EVENT))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx rx = Kit.poll(p.b.cq);
        assertThat(rx.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(rx.type).isEqualTo(NdkOperationType.RECEIVE);
        assertThat(rx.bytesTransferred).isEqualTo(777);
        assertThat(rx.qpContext).isEqualTo("qpB");
        NdkResultEx tx = Kit.poll(p.a.cq);
        assertThat(tx.type).isEqualTo(NdkOperationType.SEND);
        dstB.assertSame(0, srcA, 5, 777);
    }

    @Test
    void writeToBadTokenFailsRemotelyAndFlushes() {
        int st = p.a.qp.write("bad", new NdkSge[] {srcA.sge(0, 64, mrA.getLocalToken())}, 1, dstB.address(),
                mrB.getRemoteToken() ^ 0x1, 0);
        assertThat(st).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.a.cq);
        assertThat(r.status).isIn(NtStatus.STATUS_REMOTE_RESOURCES, NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("QP in error", () -> p.a.qp.write(null, new NdkSge[0], 0, 0, 0, 0) == NtStatus.STATUS_CONNECTION_INVALID);
        dstB.assertFilled(0, 64, (byte) 0);
    }
}
