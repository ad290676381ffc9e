package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fast-register memory regions (seed rules A1-A10): {@code NdkCreateMr(FastRegister=TRUE)},
 * {@code NdkInitializeFastRegisterMr}, {@code NdkFastRegister}, {@code NdkInvalidate} of a fast-registered MR,
 * {@code NdkGetRemoteTokenFromMr}/{@code NdkGetLocalTokenFromMr} of a fast-register MR, and deferred chains
 * ({@code NDK_OP_FLAG_DEFER}). The fast-registered region lives on side B; side A reaches it remotely.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class FastRegisterConformanceTest {
    @Parameter
    Mode mode;

    World w;
    final List<Buffer> aligned = new ArrayList<>();
    final List<Runnable> releases = new ArrayList<>();

    static final int REMOTE_RW = NdkOpFlags.ALLOW_REMOTE_READ | NdkOpFlags.ALLOW_REMOTE_WRITE;
    static final long BASE = 0x10_0000_0000L;

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
            releases.forEach(Runnable::run);
            for (Buffer b : aligned) {
                b.assertGuardsIntact();
            }
        } finally {
            w.close();
        }
    }

    /** Page-aligned memory (plus {@code offset}), mapped on {@code a}; the mapping is released at the end. */
    private Fr mapped(NdkAdapter a, long size, int offset) {
        Buffer b = Buffer.pageAligned(w.arena, size, offset);
        aligned.add(b);
        Mem.Lam l = Mem.buildLam(a, b.mdl(), b.size());
        releases.add(() -> a.releaseLam(l.mapping()));
        return new Fr(b, l);
    }

    record Fr(Buffer mem, Mem.Lam lam) {
        long[] pages() {
            return lam.pages();
        }

        int fbo() {
            return lam.fbo();
        }
    }

    private NdkMr initialized(NdkPd pd, int pages, boolean remote) {
        NdkMr mr = w.mr(pd, true);
        Mem.assertStatus(Mem.initialize(mr, pages, remote), NtStatus.STATUS_SUCCESS);
        return mr;
    }

    private static int fastRegister(NdkQp qp, Object ctx, NdkMr mr, long[] pages, int fbo, long length, long baseVa, int flags) {
        return qp.fastRegister(ctx, mr, pages.length, pages, fbo, length, baseVa, flags);
    }

    /**
     * Initializes a fast-register MR of {@code pages} pages in {@code s}'s PD and fast-registers all of {@code m}'s
     * pages at {@link #BASE} with {@code flags} on {@code s}'s QP; waits for the successful completion.
     */
    private NdkMr fastRegistered(World.Side s, Fr m, int pages, boolean remote, int flags) {
        NdkMr mr = initialized(s.pd, pages, remote);
        assertThat(fastRegister(s.qp, "fr", mr, m.pages(), 0, pages * 4096L, BASE, flags))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(s.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        return mr;
    }

    // ---- NdkInitializeFastRegisterMr -------------------------------------------------------------

    @Test
    void initializeBeyondMaxRegistrationSizePagesIsImplementationLimit() {
        NdkAdapter a = w.adapter(Map.of("maxRegistrationSize", String.valueOf(16 * 4096)));
        assertThat(a.info().maxRegistrationSize()).isEqualTo(16 * 4096);
        NdkPd pd = w.pd(a);
        NdkMr mr = w.mr(pd, true);
        Mem.assertStatus(Mem.initialize(mr, 17, true), NtStatus.STATUS_IMPLEMENTATION_LIMIT);
        Mem.assertStatus(Mem.initialize(mr, 16, true), NtStatus.STATUS_SUCCESS);
    }

    @Test
    void initializeBeyondTheDefaultAdapterLimitIsImplementationLimit() {
        NdkAdapter a = w.adapter();
        long limit = a.info().maxRegistrationSize() / 4096;
        NdkMr mr = w.mr(w.pd(a), true);
        Mem.assertStatus(Mem.initialize(mr, (int) Math.min(Integer.MAX_VALUE, limit + 1), true),
                NtStatus.STATUS_IMPLEMENTATION_LIMIT);
    }

    @Test
    void initializeOnANormalMrIsInvalidDeviceRequest() {
        NdkMr mr = w.mr(w.pd(w.adapter()), false);
        Mem.assertStatus(Mem.initialize(mr, 4, true), NtStatus.STATUS_INVALID_DEVICE_REQUEST);
    }

    @Test
    void initializeWithZeroPagesIsInvalidParameter() {
        NdkMr mr = w.mr(w.pd(w.adapter()), true);
        Mem.assertStatus(Mem.initialize(mr, 0, true), NtStatus.STATUS_INVALID_PARAMETER);
    }

    @Test
    void initializePendsAndCompletesThroughTheCallbackWhenForced() {
        NdkMr mr = w.mr(w.pd(w.adapter()), true);
        Mem.assertPath(mode, (rc, c) -> mr.initializeFastRegisterMr(4, true, rc, c), NtStatus.STATUS_SUCCESS);
        // re-initializing a region that is not fast-registered is allowed
        Mem.assertPath(mode, (rc, c) -> mr.initializeFastRegisterMr(8, false, rc, c), NtStatus.STATUS_SUCCESS);
    }

    // ---- NdkFastRegister: flags and inline checks ------------------------------------------------

    @Test
    void everyDocumentedFlagIsAccepted_A1_A6_A9_A10() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        int[] accepted = {0x0, 0x1, 0x2, 0x8, 0x10, 0x30, 0x80, 0x200, 0x8 | 0x30 | 0x80 | 0x2};
        for (int flags : accepted) {
            assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, flags)).as("flags 0x%x", flags)
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            // a non-deferred request ends the chain (consumer rule of DEFER)
            assertThat(p.b.qp.invalidate("inv", mr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            if ((flags & NdkOpFlags.SILENT_SUCCESS) == 0) {
                NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
                assertThat(r.requestContext).isEqualTo("fr");
                assertThat(r.qpContext).isEqualTo("qpB");
            }
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
            Kit.assertEmpty(p.b.cq);
        }
    }

    @Test
    void undefinedFlagBitsAreInvalidParameterWithoutCqEntry() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        for (int flags : new int[] {0x4, 0x40, 0x100, 0x400, 0x10000, 0x80000000}) {
            Mem.assertStatus(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, flags), NtStatus.STATUS_INVALID_PARAMETER);
        }
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void lengthAbovePagesTimesPageSizeMinusFboIsInvalidParameter_A2() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4 * 4096 - 100, 100);
        assertThat(m.pages()).hasSize(4);
        assertThat(m.fbo()).isEqualTo(100);
        NdkMr mr = initialized(p.b.pd, 4, true);
        long max = 4L * 4096 - 100;
        Mem.assertStatus(fastRegister(p.b.qp, "x", mr, m.pages(), 100, max + 1, BASE + 100, REMOTE_RW),
                NtStatus.STATUS_INVALID_PARAMETER);
        Kit.assertEmpty(p.b.cq);
        assertThat(fastRegister(p.b.qp, "ok", mr, m.pages(), 100, max, BASE + 100, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        // the whole registered length is reachable: write the last byte and the first
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 16, BASE + 100 + max - 16, mr.getRemoteToken());
        Mem.write(p.a, src, srcMr, 16, 16, BASE + 100, mr.getRemoteToken());
        m.mem().assertSame(max - 16, src, 0, 16);
        m.mem().assertSame(0, src, 16, 16);
    }

    @Test
    void baseVirtualAddressMustBeFboPlusAMultipleOfThePageSize_A3_A8() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 2 * 4096 - 100, 100);
        NdkMr mr = initialized(p.b.pd, 2, true);
        long len = 2 * 4096 - 100;
        for (long bad : new long[] {BASE, BASE + 101, BASE + 99, 0, 100 + 4096 + 1}) {
            Mem.assertStatus(fastRegister(p.b.qp, "x", mr, m.pages(), 100, len, bad, REMOTE_RW), NtStatus.STATUS_INVALID_PARAMETER);
        }
        Kit.assertEmpty(p.b.cq);
        assertThat(fastRegister(p.b.qp, "ok", mr, m.pages(), 100, len, 100 + 3 * 4096, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        // remote addresses are base-VA relative, never zero based
        Mem.write(p.a, src, srcMr, 0, 64, 100 + 3 * 4096 + 10, mr.getRemoteToken());
        m.mem().assertSame(10, src, 0, 64);
    }

    @Test
    void baseVirtualAddressZeroIsAllowedWithFboZero_A3() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "ok", mr, m.pages(), 0, 4096, 0, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 64, 16, mr.getRemoteToken());
        m.mem().assertSame(16, src, 0, 64);
    }

    @Test
    void otherInlineParameterViolationsAreInvalidParameter() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 2 * 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        long[] pages = m.pages();
        // more pages than initialized
        Mem.assertStatus(fastRegister(p.b.qp, "x", mr, pages, 0, 4096, BASE, REMOTE_RW), NtStatus.STATUS_INVALID_PARAMETER);
        // a misaligned page address
        Mem.assertStatus(fastRegister(p.b.qp, "x", mr, new long[] {pages[0] + 8}, 0, 4000, BASE, REMOTE_RW),
                NtStatus.STATUS_INVALID_PARAMETER);
        // FBO of a page or more
        Mem.assertStatus(p.b.qp.fastRegister("x", mr, 1, pages, 4096, 0, BASE + 4096, REMOTE_RW), NtStatus.STATUS_INVALID_PARAMETER);
        // a normal MR
        Buffer b = w.buffer(4096);
        NdkMr normal = w.registerAll(p.b.pd, b);
        Mem.assertStatus(fastRegister(p.b.qp, "x", normal, new long[] {pages[0]}, 0, 4096, BASE, REMOTE_RW),
                NtStatus.STATUS_INVALID_PARAMETER);
        // an uninitialized fast-register MR
        NdkMr fresh = w.mr(p.b.pd, true);
        Mem.assertStatus(fastRegister(p.b.qp, "x", fresh, new long[] {pages[0]}, 0, 4096, BASE, REMOTE_RW),
                NtStatus.STATUS_INVALID_PARAMETER);
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void unconnectedQpIsConnectionInvalidWithoutCqEntry_A4() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, "idle");
        Fr m = mapped(a, 4096, 0);
        NdkMr mr = initialized(pd, 1, true);
        Mem.assertStatus(fastRegister(qp, "x", mr, m.pages(), 0, 4096, BASE, REMOTE_RW), NtStatus.STATUS_CONNECTION_INVALID);
        Mem.assertStatus(qp.invalidate("x", mr, 0), NtStatus.STATUS_CONNECTION_INVALID);
        Kit.assertEmpty(cq);
    }

    @Test
    void remoteRightsOnARegionInitializedWithoutRemoteAccessAreAccessViolation_A5() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, false);
        for (int flags : new int[] {NdkOpFlags.ALLOW_REMOTE_READ, NdkOpFlags.ALLOW_REMOTE_WRITE, REMOTE_RW}) {
            Mem.assertStatus(fastRegister(p.b.qp, "x", mr, m.pages(), 0, 4096, BASE, flags), NtStatus.STATUS_ACCESS_VIOLATION);
        }
        Kit.assertEmpty(p.b.cq);
        // local rights are fine
        assertThat(fastRegister(p.b.qp, "ok", mr, m.pages(), 0, 4096, BASE, NdkOpFlags.ALLOW_LOCAL_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
    }

    // ---- NdkFastRegister: effect -----------------------------------------------------------------

    @Test
    void pagesInAnyOrderPlaceBytesInArrayOrder() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4 * 4096, 0);
        long[] lp = m.pages();
        int[] order = {2, 0, 3, 1};
        long[] shuffled = {lp[order[0]], lp[order[1]], lp[order[2]], lp[order[3]]};
        NdkMr mr = initialized(p.b.pd, 4, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, shuffled, 0, 4 * 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(4 * 4096).fillRandom(17);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        // two writes, each crossing region page boundaries
        Mem.write(p.a, src, srcMr, 0, 10000, BASE, mr.getRemoteToken());
        Mem.write(p.a, src, srcMr, 10000, 4 * 4096 - 10000, BASE + 10000, mr.getRemoteToken());
        for (int k = 0; k < 4; k++) {
            m.mem().assertSame((long) order[k] * 4096, src, (long) k * 4096, 4096);
        }
        // and a read across a region page boundary sees the same order
        Buffer sink = w.buffer(2000);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 2000, sinkMr.getLocalToken())}, 1, BASE + 4096 - 1000,
                mr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, src, 4096 - 1000, 2000);
    }

    @Test
    void fboOffsetsTheRegionInsideTheFirstPage() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 3 * 4096, 100);
        assertThat(m.pages()).hasSize(4);
        NdkMr mr = initialized(p.b.pd, 4, true);
        long base = 100 + 5 * 4096;
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 100, 3 * 4096, base, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(3 * 4096).fillRandom(19);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 3 * 4096, base, mr.getRemoteToken());
        m.mem().assertSame(0, src, 0, 3 * 4096);
    }

    @Test
    void successIsOneFastRegisterEntryAndSilentSuccessNone_A6() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        assertThat(r.requestContext).isEqualTo("fr");
        Kit.assertEmpty(p.b.cq);
        assertThat(p.b.qp.invalidate("inv", mr, NdkOpFlags.SILENT_SUCCESS)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(fastRegister(p.b.qp, "silent", mr, m.pages(), 0, 4096, BASE, REMOTE_RW | NdkOpFlags.SILENT_SUCCESS))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        // a later send on the same QP completes after both silent requests have executed
        Buffer rx = w.buffer(16);
        NdkMr rxMr = w.registerAll(p.a.pd, rx);
        assertThat(p.a.qp.receive("rx", new NdkSge[] {rx.sge(0, 16, rxMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.send("marker", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx marker = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        assertThat(marker.requestContext).isEqualTo("marker");
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        Kit.assertEmpty(p.b.cq);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 64, BASE + 64, mr.getRemoteToken());
        m.mem().assertSame(64, src, 0, 64);
    }

    @Test
    void remoteTokenIsReadableRightAfterTheCallAndNewEachTime_A7() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        int initial = mr.getRemoteToken();
        assertThat(fastRegister(p.b.qp, "fr1", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        int first = mr.getRemoteToken();
        assertThat(first).as("token after the first FastRegister returned").isNotEqualTo(initial);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        assertThat(p.b.qp.invalidate("inv", mr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        assertThat(fastRegister(p.b.qp, "fr2", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        int second = mr.getRemoteToken();
        assertThat(second).as("token after the second FastRegister returned").isNotEqualTo(first);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 32, BASE, second);
        m.mem().assertSame(0, src, 0, 32);
        // the token of the earlier registration is stale
        assertThat(p.a.qp.write("stale", new NdkSge[] {src.sge(32, 32, srcMr.getLocalToken())}, 1, BASE + 32, first, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        m.mem().assertFilled(32, 4096 - 32, (byte) 0);
    }

    @Test
    void remoteReadThroughTheFastRegisteredRegion() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 2 * 4096, 0);
        m.mem().fillRandom(23);
        NdkMr mr = fastRegistered(p.b, m, 2, true, NdkOpFlags.ALLOW_REMOTE_READ);
        Buffer sink = w.buffer(5000);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 5000, sinkMr.getLocalToken())}, 1, BASE + 1000,
                mr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, m.mem(), 1000, 5000);
    }

    @Test
    void remoteWriteWithoutTheRemoteWriteRightFails() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = fastRegistered(p.b, m, 1, true, NdkOpFlags.ALLOW_REMOTE_READ);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, BASE, mr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        m.mem().assertFilled(0, 4096, (byte) 0);
    }

    /** Seed: ALLOW_REMOTE_READ is what lets a peer read; a region fast-registered without it refuses the Read. */
    @Test
    void remoteReadWithoutTheRemoteReadRightFails() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        m.mem().fillRandom(31);
        NdkMr mr = fastRegistered(p.b, m, 1, true, NdkOpFlags.ALLOW_REMOTE_WRITE);
        Buffer sink = w.buffer(64);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 64, sinkMr.getLocalToken())}, 1, BASE,
                mr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
        sink.assertFilled(0, 64, (byte) 0);
    }

    /** Seed: ALLOW_LOCAL_WRITE is what lets local requests write the region; without it a Read into it fails. */
    @Test
    void aReadSinkWithoutTheLocalWriteRightIsAccessViolation() {
        World.Pair p = connectPair();
        Fr m = mapped(p.a.adapter, 4096, 0);
        NdkMr mr = fastRegistered(p.a, m, 1, false, NdkOpFlags.RDMA_READ_SINK);
        Buffer remote = w.buffer(4096).fillRandom(37);
        NdkMr remoteMr = w.registerAll(p.b.pd, remote);
        assertThat(p.a.qp.read("r", new NdkSge[] {new NdkSge(BASE, 64, mr.getLocalToken())}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.READ);
        m.mem().assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void remoteWriteBeyondTheRegisteredLengthFails() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 2 * 4096, 0);
        NdkMr mr = initialized(p.b.pd, 2, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 5000, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, BASE + 5000 - 63,
                mr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        m.mem().assertFilled(0, 2 * 4096, (byte) 0);
    }

    @Test
    void fastRegisteredRegionServesLocalSgesAndReadSinks_A9() {
        World.Pair p = connectPair();
        Fr m = mapped(p.a.adapter, 2 * 4096, 0);
        NdkMr mr = initialized(p.a.pd, 2, false);
        assertThat(fastRegister(p.a.qp, "fr", mr, m.pages(), 0, 2 * 4096, BASE,
                NdkOpFlags.ALLOW_LOCAL_WRITE | NdkOpFlags.RDMA_READ_SINK)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer remote = w.buffer(8192).fillRandom(29);
        NdkMr remoteMr = w.registerAll(p.b.pd, remote);
        assertThat(p.a.qp.read("r", new NdkSge[] {new NdkSge(BASE + 3000, 3000, mr.getLocalToken())}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        m.mem().assertSame(3000, remote, 0, 3000);
        assertThat(p.a.qp.write("w", new NdkSge[] {new NdkSge(BASE + 3000, 3000, mr.getLocalToken())}, 1,
                remote.address() + 4096, remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        remote.assertSame(4096, remote, 0, 3000);
    }

    @Test
    void fastRegisteringAValidRegionCompletesInvalidDeviceRequest() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr1", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        assertThat(fastRegister(p.b.qp, "fr2", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_INVALID_DEVICE_REQUEST, NdkOperationType.FAST_REGISTER);
        assertThat(r.requestContext).isEqualTo("fr2");
    }

    /** Seed: with SILENT_SUCCESS a success makes no entry, but "failed requests produce an entry". */
    @Test
    void aSilentFastRegisterThatFailsStillMakesAnEntry() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr1", mr, m.pages(), 0, 4096, BASE, REMOTE_RW | NdkOpFlags.SILENT_SUCCESS))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        // the region is valid now: fast-registering it again fails when the request runs
        assertThat(fastRegister(p.b.qp, "fr2", mr, m.pages(), 0, 4096, BASE, REMOTE_RW | NdkOpFlags.SILENT_SUCCESS))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_INVALID_DEVICE_REQUEST, NdkOperationType.FAST_REGISTER);
        assertThat(r.requestContext).as("the silent success made no entry; the failure did").isEqualTo("fr2");
        Kit.assertEmpty(p.b.cq);
    }

    // ---- NdkInvalidate ---------------------------------------------------------------------------

    @Test
    void invalidateKillsTheToken() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        int token = mr.getRemoteToken();
        assertThat(p.b.qp.invalidate("inv", mr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        assertThat(r.requestContext).isEqualTo("inv");
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, BASE, token, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        m.mem().assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void invalidatingTwiceCompletesInvalidDeviceRequest() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        assertThat(p.b.qp.invalidate("inv1", mr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        assertThat(p.b.qp.invalidate("inv2", mr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_INVALID_DEVICE_REQUEST, NdkOperationType.INVALIDATE);
        assertThat(r.requestContext).isEqualTo("inv2");
    }

    @Test
    void invalidateOfANormalMrIsInvalidParameterInline() {
        World.Pair p = connectPair();
        Buffer b = w.buffer(4096);
        NdkMr normal = w.registerAll(p.b.pd, b);
        Mem.assertStatus(p.b.qp.invalidate("x", normal, 0), NtStatus.STATUS_INVALID_PARAMETER);
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void readWithLocalInvalidateInvalidatesTheFirstSgeRegion() {
        World.Pair p = connectPair();
        assertThat(p.a.adapter.info().hasFlag(io.jndk.api.NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED)).isTrue();
        Fr m = mapped(p.a.adapter, 4096, 0);
        NdkMr mr = initialized(p.a.pd, 1, false);
        assertThat(fastRegister(p.a.qp, "fr", mr, m.pages(), 0, 4096, BASE, NdkOpFlags.ALLOW_LOCAL_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer remote = w.buffer(4096).fillRandom(31);
        NdkMr remoteMr = w.registerAll(p.b.pd, remote);
        int local = mr.getLocalToken();
        assertThat(p.a.qp.read("r", new NdkSge[] {new NdkSge(BASE, 512, local)}, 1, remote.address(), remoteMr.getRemoteToken(),
                NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        m.mem().assertSame(0, remote, 0, 512);
        // the region is free again: it can be fast-registered without an Invalidate
        assertThat(fastRegister(p.a.qp, "fr2", mr, m.pages(), 0, 4096, BASE, NdkOpFlags.ALLOW_LOCAL_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        // and the token used by the read is dead
        assertThat(p.a.qp.read("stale", new NdkSge[] {new NdkSge(BASE, 512, local)}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.READ);
    }

    /**
     * A fast-register fenced behind a Read that invalidates the region (READ_FENCE) starts only once that Read has
     * completed, invalidation included: posted back to back, many times, every pair succeeds in order.
     */
    @Test
    void aFencedFastRegisterWaitsForTheReadThatInvalidatesItsRegion() {
        World.Pair p = connectPair();
        Fr m = mapped(p.a.adapter, 4096, 0);
        NdkMr mr = initialized(p.a.pd, 1, false);
        assertThat(fastRegister(p.a.qp, "fr", mr, m.pages(), 0, 4096, BASE, NdkOpFlags.ALLOW_LOCAL_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Buffer remote = w.buffer(4096).fillRandom(32);
        NdkMr remoteMr = w.registerAll(p.b.pd, remote);
        for (int i = 0; i < 200; i++) {
            assertThat(p.a.qp.read("r" + i, new NdkSge[] {new NdkSge(BASE, 64, mr.getLocalToken())}, 1,
                    remote.address(), remoteMr.getRemoteToken(), NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(fastRegister(p.a.qp, "fr" + i, mr, m.pages(), 0, 4096, BASE,
                    NdkOpFlags.ALLOW_LOCAL_WRITE | NdkOpFlags.READ_FENCE)).isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkResultEx read = Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
            assertThat(read.requestContext).isEqualTo("r" + i);
            NdkResultEx fr = Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
            assertThat(fr.requestContext).isEqualTo("fr" + i);
        }
    }

    // ---- DEFER -----------------------------------------------------------------------------------

    @Test
    void deferredRequestStillCompletesWhenTheNextPostFailsInline_A10() {
        World.Pair p = connectPair();
        Fr m1 = mapped(p.b.adapter, 4096, 0);
        Fr m2 = mapped(p.b.adapter, 4096, 0);
        NdkMr mr1 = initialized(p.b.pd, 1, true);
        NdkMr mr2 = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr1", mr1, m1.pages(), 0, 4096, BASE, REMOTE_RW | NdkOpFlags.DEFER))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertStatus(fastRegister(p.b.qp, "fr2", mr2, m2.pages(), 0, 4097, BASE, REMOTE_RW | NdkOpFlags.DEFER),
                NtStatus.STATUS_INVALID_PARAMETER);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        assertThat(r.requestContext).isEqualTo("fr1");
        Kit.assertEmpty(p.b.cq);
        Buffer src = w.buffer(64).fillRandom(3);
        NdkMr srcMr = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, srcMr, 0, 64, BASE, mr1.getRemoteToken());
        m1.mem().assertSame(0, src, 0, 64);
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void deferredChainEndsWithANonDeferredRequest_A10() {
        World.Pair p = connectPair();
        Fr m = mapped(p.b.adapter, 4096, 0);
        NdkMr mr = initialized(p.b.pd, 1, true);
        assertThat(fastRegister(p.b.qp, "fr", mr, m.pages(), 0, 4096, BASE, REMOTE_RW | NdkOpFlags.DEFER))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.invalidate("inv", mr, NdkOpFlags.DEFER)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(fastRegister(p.b.qp, "fr2", mr, m.pages(), 0, 4096, BASE, REMOTE_RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx[] r = Kit.poll(p.b.cq, 3);
        assertThat(r).extracting(x -> x.requestContext).containsExactly("fr", "inv", "fr2");
        assertThat(r).extracting(x -> NtStatus.name(x.status)).containsOnly("STATUS_SUCCESS");
    }
}
