package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Logical address mappings and the privileged token: {@code NdkBuildLAM}, {@code NdkReleaseLAM},
 * {@code NdkGetPrivilegedMemoryRegionToken}, and privileged-token SGEs carrying logical addresses in
 * {@code NdkSend}, {@code NdkReceive}, {@code NdkWrite} and {@code NdkRead}.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class LamConformanceTest {
    @Parameter
    Mode mode;

    World w;
    final List<Buffer> aligned = new ArrayList<>();
    final List<NdkLogicalAddressMapping> lams = new ArrayList<>();
    final List<NdkAdapter> lamOwners = new ArrayList<>();

    private World.Pair connectPair() {
        return w.connect();
    }

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    void tearDown() {
        try {
            for (int i = 0; i < lams.size(); i++) {
                lamOwners.get(i).releaseLam(lams.get(i));
            }
            for (Buffer b : aligned) {
                b.assertGuardsIntact();
            }
        } finally {
            w.close();
        }
    }

    private Buffer aligned(long size, int offset) {
        Buffer b = Buffer.pageAligned(w.arena, size, offset);
        aligned.add(b);
        return b;
    }

    private Mem.Lam lam(NdkAdapter a, Buffer b) {
        Mem.Lam l = Mem.buildLam(a, b.mdl(), b.size());
        lams.add(l.mapping());
        lamOwners.add(a);
        return l;
    }

    private static long pages(long fbo, long length) {
        return (fbo + length + Mem.PAGE - 1) / Mem.PAGE;
    }

    // ---- NdkBuildLAM -----------------------------------------------------------------------------

    @Test
    void buildLamPageCountIsCeilOfFboPlusLengthAndFboIsVaModPage() {
        NdkAdapter a = w.adapter();
        int[][] cases = {{0, 1}, {0, 4096}, {0, 4097}, {100, 3996}, {100, 3997}, {4000, 200}, {123, 3 * 4096}, {4095, 1}};
        for (int[] c : cases) {
            Buffer b = aligned(c[1], c[0]);
            Mem.Lam l = lam(a, b);
            long expectPages = pages(c[0], c[1]);
            assertThat(l.fbo()).as("FBO of %s", b).isEqualTo((int) (b.address() % Mem.PAGE)).isEqualTo(c[0]);
            assertThat(l.mapping().adapterPageCount()).as("pages of offset %d length %d", c[0], c[1]).isEqualTo(expectPages);
            assertThat(l.lamSize()).isEqualTo(16 + 8 * (int) expectPages);
            Set<Long> distinct = new HashSet<>();
            for (long page : l.pages()) {
                assertThat(page % Mem.PAGE).as("page alignment").isZero();
                distinct.add(page);
            }
            assertThat(distinct).hasSize((int) expectPages);
        }
    }

    @Test
    void buildLamTooSmallIsBufferTooSmallWithTheRequiredSize() {
        NdkAdapter a = w.adapter();
        Buffer b = aligned(3 * 4096, 10); // 4 pages
        for (int capacity : new int[] {0, 3}) {
            NdkLogicalAddressMapping m = new NdkLogicalAddressMapping(capacity);
            IntRef size = new IntRef(m.capacityBytes());
            IntRef fbo = new IntRef();
            int s = Kit.request((rc, c) -> a.buildLam(b.mdl(), b.size(), rc, c, m, size, fbo));
            Mem.assertStatus(s, NtStatus.STATUS_BUFFER_TOO_SMALL);
            assertThat(size.value).as("required size").isEqualTo(16 + 8 * 4);
            assertThat(m.adapterPageCount()).isZero();
        }
        NdkLogicalAddressMapping exact = new NdkLogicalAddressMapping(4);
        IntRef size = new IntRef(exact.capacityBytes());
        IntRef fbo = new IntRef();
        Mem.assertStatus(Kit.request((rc, c) -> a.buildLam(b.mdl(), b.size(), rc, c, exact, size, fbo)), NtStatus.STATUS_SUCCESS);
        lams.add(exact);
        lamOwners.add(a);
        assertThat(exact.adapterPageCount()).isEqualTo(4);
        assertThat(size.value).isEqualTo(16 + 8 * 4);
        assertThat(fbo.value).isEqualTo(10);
    }

    @Test
    void buildLamNonContiguousChainIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        Buffer b1 = aligned(4096, 0);
        Buffer b2 = aligned(4096, 0);
        NdkLogicalAddressMapping m = new NdkLogicalAddressMapping(4);
        IntRef size = new IntRef(m.capacityBytes());
        IntRef fbo = new IntRef();
        Mdl chain = Mdl.chain(b1.segment(), b2.segment());
        Mem.assertStatus(Kit.request((rc, c) -> a.buildLam(chain, 8192, rc, c, m, size, fbo)), NtStatus.STATUS_INVALID_PARAMETER);
        assertThat(m.adapterPageCount()).isZero();
    }

    @Test
    void buildLamOfAChainSplitOnAPageBoundaryMapsEverySegment() {
        chainMapsEverySegment(4096);
    }

    @Test
    void buildLamOfAChainSplitInsideAPageMapsTheWholePage() {
        chainMapsEverySegment(3000);
    }

    /** Maps a two-segment contiguous chain split at {@code split} and receives across the split through logical addresses. */
    private void chainMapsEverySegment(int split) {
        World.Pair p = connectPair();
        Buffer b = aligned(2 * 4096, 0);
        var s = b.segment();
        Mdl chain = Mdl.chain(s.asSlice(0, split), s.asSlice(split, 2 * 4096 - split));
        Mem.Lam l = Mem.buildLam(p.b.adapter, chain, b.size());
        lams.add(l.mapping());
        lamOwners.add(p.b.adapter);
        assertThat(l.mapping().adapterPageCount()).isEqualTo(2);
        // receive into the tail of the first page and the head of the second one (across the split)
        int priv = p.b.pd.getPrivilegedMemoryRegionToken();
        Buffer src = w.buffer(4096).fillRandom(21);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.b.qp.receive("rx", new NdkSge[] {Mem.sge(l, 2000, 2096, priv), Mem.sge(l, 4096, 1000, priv)}, 2))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("tx", new NdkSge[] {src.sge(0, 3096, mrA.getLocalToken())}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        b.assertSame(2000, src, 0, 3096);
        b.assertFilled(0, 2000, (byte) 0);
    }

    @Test
    void buildLamPendsAndCompletesThroughTheCallbackWhenForced() {
        NdkAdapter a = w.adapter();
        Buffer b = aligned(5000, 7);
        NdkLogicalAddressMapping m = new NdkLogicalAddressMapping(4);
        IntRef size = new IntRef(m.capacityBytes());
        IntRef fbo = new IntRef(-1);
        lams.add(m);
        lamOwners.add(a);
        Mem.assertPath(mode, (rc, c) -> a.buildLam(b.mdl(), b.size(), rc, c, m, size, fbo), NtStatus.STATUS_SUCCESS);
        assertThat(m.adapterPageCount()).isEqualTo(2);
        assertThat(fbo.value).isEqualTo(7);
        assertThat(size.value).isEqualTo(16 + 8 * 2);
    }

    @Test
    void releaseLamEmptiesTheMapping() {
        NdkAdapter a = w.adapter();
        Buffer b = aligned(4096, 0);
        Mem.Lam l = Mem.buildLam(a, b.mdl(), b.size());
        a.releaseLam(l.mapping());
        assertThat(l.mapping().adapterPageCount()).isZero();
    }

    // ---- NdkGetPrivilegedMemoryRegionToken -------------------------------------------------------

    @Test
    void privilegedTokenIsStablePerPdAndDistinctFromRegionTokens() {
        NdkAdapter a = w.adapter();
        NdkPd pd1 = w.pd(a);
        NdkPd pd2 = w.pd(a);
        int t1 = pd1.getPrivilegedMemoryRegionToken();
        assertThat(pd1.getPrivilegedMemoryRegionToken()).isEqualTo(t1);
        assertThat(pd2.getPrivilegedMemoryRegionToken()).isNotEqualTo(t1);
        Buffer b = w.buffer(4096);
        NdkMr mr = w.registerAll(pd1, b);
        assertThat(mr.getLocalToken()).isNotEqualTo(t1);
        assertThat(mr.getRemoteToken()).isNotEqualTo(t1);
    }

    // ---- privileged-token SGEs -------------------------------------------------------------------

    @Test
    void privilegedSgesWorkForSendAndReceive() {
        World.Pair p = connectPair();
        Buffer srcBuf = aligned(3 * 4096, 300).fillRandom(31);
        Buffer dstBuf = aligned(3 * 4096, 700);
        Mem.Lam src = lam(p.a.adapter, srcBuf);
        Mem.Lam dst = lam(p.b.adapter, dstBuf);
        int privA = p.a.pd.getPrivilegedMemoryRegionToken();
        int privB = p.b.pd.getPrivilegedMemoryRegionToken();
        // gather: rest of page 0, then 1000 bytes of page 1; scatter: rest of page 0, then page 1
        int n0 = 4096 - 300;
        int total = n0 + 1000;
        int m0 = 4096 - 700;
        assertThat(p.b.qp.receive("rx", new NdkSge[] {Mem.sge(dst, 0, m0, privB), Mem.sge(dst, m0, total - m0, privB)}, 2))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("tx", new NdkSge[] {Mem.sge(src, 0, n0, privA), Mem.sge(src, n0, 1000, privA)}, 2, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx rx = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        assertThat(rx.bytesTransferred).isEqualTo(total);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        dstBuf.assertSame(0, srcBuf, 0, total);
        dstBuf.assertFilled(total, dstBuf.size() - total, (byte) 0);
    }

    @Test
    void privilegedSgesWorkAsWriteSourceAndReadSink() {
        World.Pair p = connectPair();
        Buffer local = aligned(2 * 4096, 0).fillRandom(41);
        Mem.Lam l = lam(p.a.adapter, local);
        int priv = p.a.pd.getPrivilegedMemoryRegionToken();
        Buffer remote = w.buffer(8192);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        // write source: two SGEs, one per page (pages need not be logically adjacent)
        assertThat(p.a.qp.write("w", new NdkSge[] {Mem.sge(l, 4000, 96, priv), Mem.sge(l, 4096, 904, priv)}, 2,
                remote.address() + 10, mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        remote.assertSame(10, local, 4000, 1000);
        remote.assertFilled(0, 10, (byte) 0);
        remote.assertFilled(1010, 8192 - 1010, (byte) 0);
        // read sink: allowed because the adapter sets RDMA_READ_SINK_NOT_REQUIRED
        remote.fillRandom(42);
        assertThat(p.a.qp.read("r", new NdkSge[] {Mem.sge(l, 4096 + 100, 3000, priv)}, 1, remote.address() + 5000,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        local.assertSame(4096 + 100, remote, 5000, 3000);
    }

    @Test
    void privilegedSgeCrossingIntoTheNextPageIsAccessViolation() {
        World.Pair p = connectPair();
        Buffer local = aligned(2 * 4096, 0).fillRandom(41);
        Mem.Lam l = lam(p.a.adapter, local);
        int priv = p.a.pd.getPrivilegedMemoryRegionToken();
        Buffer remote = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        assertThat(p.a.qp.write("w", new NdkSge[] {Mem.sge(l, 4090, 12, priv)}, 1, remote.address(), mrB.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        remote.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void privilegedSgeBeforeTheFirstByteOfTheMappingIsAccessViolation() {
        World.Pair p = connectPair();
        Buffer local = aligned(4096, 512).fillRandom(41);
        Mem.Lam l = lam(p.a.adapter, local);
        int priv = p.a.pd.getPrivilegedMemoryRegionToken();
        Buffer remote = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        // bytes [0, FBO) of the first page are not part of the mapped range (they are the guard bytes here)
        assertThat(p.a.qp.write("w", new NdkSge[] {new NdkSge(l.mapping().adapterPage(0) + 500, 16, priv)}, 1,
                remote.address(), mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        remote.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void privilegedTokenOfAnotherPdIsAccessViolation() {
        World.Pair p = connectPair();
        NdkPd other = w.pd(p.a.adapter);
        Buffer local = aligned(4096, 0).fillRandom(41);
        Mem.Lam l = lam(p.a.adapter, local);
        Buffer remote = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        assertThat(p.a.qp.write("w", new NdkSge[] {Mem.sge(l, 0, 64, other.getPrivilegedMemoryRegionToken())}, 1,
                remote.address(), mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        remote.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void remoteWriteNamingThePrivilegedTokenFails() {
        World.Pair p = connectPair();
        Buffer target = aligned(4096, 0);
        Mem.Lam l = lam(p.b.adapter, target);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, l.logical(0),
                p.b.pd.getPrivilegedMemoryRegionToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void remoteReadNamingThePrivilegedTokenFails() {
        World.Pair p = connectPair();
        Buffer source = aligned(4096, 0).fillRandom(8);
        Mem.Lam l = lam(p.b.adapter, source);
        Buffer sink = w.buffer(64);
        NdkMr mrA = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 64, mrA.getLocalToken())}, 1, l.logical(0),
                p.b.pd.getPrivilegedMemoryRegionToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
        sink.assertFilled(0, 64, (byte) 0);
    }

    @Test
    void logicalAddressesFailAfterReleaseLam() {
        World.Pair p = connectPair();
        Buffer local = aligned(4096, 0).fillRandom(41);
        Mem.Lam l = Mem.buildLam(p.a.adapter, local.mdl(), local.size());
        long logical = l.logical(0);
        int priv = p.a.pd.getPrivilegedMemoryRegionToken();
        Buffer remote = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        assertThat(p.a.qp.write("ok", new NdkSge[] {new NdkSge(logical, 64, priv)}, 1, remote.address(), mrB.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        remote.assertSame(0, local, 0, 64);
        p.a.adapter.releaseLam(l.mapping());
        assertThat(p.a.qp.write("released", new NdkSge[] {new NdkSge(logical + 64, 64, priv)}, 1, remote.address() + 64,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        remote.assertFilled(64, 4096 - 64, (byte) 0);
    }
}
