package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.World;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Normal memory regions: {@code NdkCreateMr}, {@code NdkRegisterMr} (seed rules B1-B8), {@code NdkDeregisterMr},
 * {@code NdkGetLocalTokenFromMr}, {@code NdkGetRemoteTokenFromMr}, {@code NdkCloseMr} (with bound windows), and the
 * access checks every local SGE and remote access goes through (rights, PD scope, bounds, stale tokens).
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class MrConformanceTest {
    @Parameter
    Mode mode;

    World w;

    private World.Pair connectPair() {
        return w.connect();
    }

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    void tearDown() {
        w.close();
    }

    private NdkPd pd() {
        return w.pd(w.adapter());
    }

    private static final int ALL = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;

    // ---- NdkCreateMr -----------------------------------------------------------------------------

    @Test
    void createMrNormalAndFastRegisterBothSucceed() {
        NdkPd pd = pd();
        NdkMr normal = w.mr(pd, false);
        NdkMr fast = w.mr(pd, true);
        assertThat(normal.objectType()).isEqualTo(NdkObjectType.MR);
        assertThat(fast.objectType()).isEqualTo(NdkObjectType.MR);
    }

    @Test
    void createMrTakesThePendingPathWhenForced() {
        NdkPd pd = pd();
        Kit.Created<NdkMr> c = Kit.tryCreate((cc, ctx, out) -> pd.createMr(false, cc, ctx, out));
        w.track(c.object());
        assertThat(NtStatus.name(c.status())).isEqualTo("STATUS_SUCCESS");
        assertThat(c.pended()).isEqualTo(mode.pend());
    }

    // ---- NdkRegisterMr ---------------------------------------------------------------------------

    @Test
    void registerMrFlagValuesAreExact_B1() {
        assertThat(NdkMrFlags.ALLOW_LOCAL_READ).isEqualTo(0x0);
        assertThat(NdkMrFlags.ALLOW_LOCAL_WRITE).isEqualTo(0x1);
        assertThat(NdkMrFlags.ALLOW_REMOTE_READ).isEqualTo(0x2);
        assertThat(NdkMrFlags.ALLOW_REMOTE_WRITE).isEqualTo(0x5);
        assertThat(NdkMrFlags.RDMA_READ_SINK).isEqualTo(0x8);
    }

    @Test
    void registerMrAcceptsEveryDefinedFlagAndCombination_B1_B7() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        for (int flags : new int[] {0x0, 0x1, 0x2, 0x5, 0x8, 0x1 | 0x8, 0x2 | 0x8, 0x5 | 0x2 | 0x8, 0x4}) {
            assertThat(NtStatus.name(Mem.register(mr, b.mdl(), b.size(), flags))).as("flags 0x%x", flags)
                    .isEqualTo("STATUS_SUCCESS");
            assertThat(NtStatus.name(Mem.deregister(mr))).isEqualTo("STATUS_SUCCESS");
        }
    }

    @Test
    void registerMrPendsAndCompletesThroughTheCallbackWhenForced_B5() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        Mem.assertPath(mode, (rc, c) -> mr.registerMr(b.mdl(), b.size(), ALL, rc, c), NtStatus.STATUS_SUCCESS);
        Mem.assertPath(mode, mr::deregisterMr, NtStatus.STATUS_SUCCESS);
    }

    @Test
    void registerMrOnFastRegisterMrIsInvalidDeviceRequest_B2() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, true);
        Mem.assertStatus(Mem.register(mr, b.mdl(), b.size(), ALL), NtStatus.STATUS_INVALID_DEVICE_REQUEST);
    }

    @Test
    void registerMrNonContiguousChainIsInvalidParameter_B3() {
        NdkPd pd = pd();
        Buffer b1 = w.buffer(4096);
        Buffer b2 = w.buffer(4096); // separate allocations with guards between them: never adjacent
        NdkMr mr = w.mr(pd, false);
        Mdl chain = Mdl.chain(b1.segment(), b2.segment());
        Mem.assertStatus(Mem.register(mr, chain, 8192, ALL), NtStatus.STATUS_INVALID_PARAMETER);
        // the contiguous head of the same chain is fine
        Mem.assertStatus(Mem.register(mr, chain, 4096, ALL), NtStatus.STATUS_SUCCESS);
    }

    @Test
    void registerMrLengthBeyondTheChainIsInvalidParameter_B4() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        Mem.assertStatus(Mem.register(mr, b.mdl(), 4097, ALL), NtStatus.STATUS_INVALID_PARAMETER);
    }

    @Test
    void registerMrZeroLengthIsInvalidParameter() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        Mem.assertStatus(Mem.register(mr, b.mdl(), 0, ALL), NtStatus.STATUS_INVALID_PARAMETER);
    }

    @Test
    void registerMrTwiceIsInvalidDeviceState() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        Mem.assertStatus(Mem.register(mr, b.mdl(), b.size(), ALL), NtStatus.STATUS_SUCCESS);
        Mem.assertStatus(Mem.register(mr, b.mdl(), b.size(), ALL), NtStatus.STATUS_INVALID_DEVICE_STATE);
    }

    @Test
    void registerMrUndefinedFlagBitsAreInvalidParameter() {
        NdkPd pd = pd();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.mr(pd, false);
        for (int flags : new int[] {0x10, 0x20, 0x100, 0x80000000, ALL | 0x40}) {
            Mem.assertStatus(Mem.register(mr, b.mdl(), b.size(), flags), NtStatus.STATUS_INVALID_PARAMETER);
        }
    }

    @Test
    void readSinkFlagIsAcceptedAndNotRequired_A9_B7() {
        World.Pair p = connectPair();
        assertThat(p.a.adapter.info().hasFlag(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED)).isTrue();
        Buffer remote = w.buffer(4096).fillRandom(3);
        NdkMr remoteMr = w.register(p.b.pd, remote, NdkMrFlags.ALLOW_REMOTE_READ);
        Buffer withFlag = w.buffer(4096);
        Buffer without = w.buffer(4096);
        NdkMr mrWith = w.register(p.a.pd, withFlag, NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.RDMA_READ_SINK);
        NdkMr mrWithout = w.register(p.a.pd, without, NdkMrFlags.ALLOW_LOCAL_WRITE);
        assertThat(p.a.qp.read("r1", new NdkSge[] {withFlag.sge(0, 4096, mrWith.getLocalToken())}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        assertThat(p.a.qp.read("r2", new NdkSge[] {without.sge(0, 4096, mrWithout.getLocalToken())}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        withFlag.assertSame(0, remote, 0, 4096);
        without.assertSame(0, remote, 0, 4096);
    }

    @Test
    void contiguousMultiSegmentChainRegistersAndDataCrossesSegmentBoundaries_B4() {
        World.Pair p = connectPair();
        Buffer whole = w.buffer(3 * 4096);
        MemorySegment s = whole.segment();
        Mdl chain = Mdl.chain(s.asSlice(0, 1000), s.asSlice(1000, 5000), s.asSlice(6000, 3 * 4096 - 6000));
        assertThat(chain.virtualAddress()).isEqualTo(whole.address());
        NdkMr mrB = w.mr(p.b.pd, false);
        Mem.assertStatus(Mem.register(mrB, chain, whole.size(), ALL), NtStatus.STATUS_SUCCESS);
        Buffer src = w.buffer(3 * 4096).fillRandom(11);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        // one write spanning both segment boundaries
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 6000, mrA.getLocalToken())}, 1, whole.address() + 500,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        whole.assertSame(500, src, 0, 6000);
        whole.assertFilled(0, 500, (byte) 0);
        whole.assertFilled(6500, 3 * 4096 - 6500, (byte) 0);
        // read back across the same boundaries
        Buffer sink = w.buffer(6000);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 6000, sinkMr.getLocalToken())}, 1, whole.address() + 500,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, src, 0, 6000);
        // a receive whose SGE spans a boundary (local token of the chained region)
        assertThat(p.b.qp.receive("rx", new NdkSge[] {new NdkSge(whole.address() + 900, 300, mrB.getLocalToken())}, 1))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("tx", new NdkSge[] {src.sge(7000, 300, mrA.getLocalToken())}, 1, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx rx = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        assertThat(rx.bytesTransferred).isEqualTo(300);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        whole.assertSame(900, src, 7000, 300);
    }

    // ---- NdkDeregisterMr -------------------------------------------------------------------------

    @Test
    void deregisterMrNotRegisteredIsInvalidDeviceState() {
        NdkPd pd = pd();
        NdkMr mr = w.mr(pd, false);
        Mem.assertStatus(Mem.deregister(mr), NtStatus.STATUS_INVALID_DEVICE_STATE);
        Buffer b = w.buffer(4096);
        Mem.assertStatus(Mem.register(mr, b.mdl(), b.size(), ALL), NtStatus.STATUS_SUCCESS);
        Mem.assertStatus(Mem.deregister(mr), NtStatus.STATUS_SUCCESS);
        Mem.assertStatus(Mem.deregister(mr), NtStatus.STATUS_INVALID_DEVICE_STATE);
    }

    @Test
    void deregisterInUseWithBoundWindowIsDeviceBusyAndChangesNothing() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        NdkMw mw = w.track(Kit.<NdkMw>create(p.b.pd::createMw));
        assertThat(p.b.qp.bind("bind", mrB, mw, target.address(), 1024, NdkOpFlags.ALLOW_REMOTE_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_DEVICE_BUSY);
        // the region is still registered: a write with its token lands
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        Mem.write(p.a, src, mrA, 0, 64, target.address() + 2048, mrB.getRemoteToken());
        target.assertSame(2048, src, 0, 64);
        // once the window is invalidated the region can be deregistered
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_SUCCESS);
    }

    @Test
    void deregisterMrKillsTheTokens_B8() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        int token = mrB.getRemoteToken();
        Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_SUCCESS);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address(), token, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void deregisteredLocalTokenFailsAsLocalSge() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        int local = mrA.getLocalToken();
        Mem.assertStatus(Mem.deregister(mrA), NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, local)}, 1, target.address(), mrB.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        target.assertFilled(0, 4096, (byte) 0);
    }

    // ---- tokens ----------------------------------------------------------------------------------

    @Test
    void tokenKeyChangesOnEveryRegistrationAndAStaleTokenFails() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.mr(p.b.pd, false);
        Mem.assertStatus(Mem.register(mrB, target.mdl(), target.size(), ALL), NtStatus.STATUS_SUCCESS);
        int first = mrB.getRemoteToken();
        assertThat(mrB.getLocalToken()).as("local token after registration").isNotZero();
        int previous = first;
        int current = first;
        for (int i = 0; i < 4; i++) {
            Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_SUCCESS);
            Mem.assertStatus(Mem.register(mrB, target.mdl(), target.size(), ALL), NtStatus.STATUS_SUCCESS);
            current = mrB.getRemoteToken();
            assertThat(current).as("re-registration %d", i).isNotEqualTo(previous);
            previous = current;
        }
        Buffer src = w.buffer(128).fillRandom(9);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("ok", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address(), current, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        target.assertSame(0, src, 0, 64);
        int stale = first == current ? previous ^ 0x1 : first;
        assertThat(p.a.qp.write("stale", new NdkSge[] {src.sge(64, 64, mrA.getLocalToken())}, 1, target.address() + 64,
                stale, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(64, 4096 - 64, (byte) 0);
    }

    // ---- access rights ---------------------------------------------------------------------------

    /** Seed: ALLOW_LOCAL_READ is 0, as local read is always allowed: a region registered with flags 0 is a source. */
    @Test
    void aRegionRegisteredWithNoFlagsIsALocalSource() {
        World.Pair p = connectPair();
        Buffer src = w.buffer(4096).fillRandom(41);
        NdkMr mrA = w.register(p.a.pd, src, 0);
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 4096, mrA.getLocalToken())}, 1, target.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        target.assertSame(0, src, 0, 4096);
        Buffer rx = w.buffer(64);
        NdkMr rxMr = w.registerAll(p.b.pd, rx);
        assertThat(p.b.qp.receive("rx", new NdkSge[] {rx.sge(0, 64, rxMr.getLocalToken())}, 1))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("s", new NdkSge[] {src.sge(100, 64, mrA.getLocalToken())}, 1, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        rx.assertSame(0, src, 100, 64);
    }

    /**
     * Seed: on an adapter without RDMA_READ_SINK_NOT_REQUIRED the consumer registers Read sinks with RDMA_READ_SINK.
     * jndk's adapters report the flag; with it cleared (the {@code adapterFlags} override) a Read into a region
     * registered without RDMA_READ_SINK completes with STATUS_ACCESS_VIOLATION and places nothing, one with it works.
     */
    @Test
    void anAdapterThatNeedsTheReadSinkFlagHoldsReadsToIt() {
        int flags = w.adapter().info().adapterFlags() & ~NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED;
        Queues.End[] e = Queues.connect(w, Map.of("adapterFlags", Integer.toString(flags)), Queues.Shape.standard());
        assertThat(e[0].adapter.info().hasFlag(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED)).isFalse();
        Buffer remote = w.buffer(4096).fillRandom(43);
        NdkMr remoteMr = w.registerAll(e[1].pd, remote);
        Buffer plain = w.buffer(4096);
        NdkMr plainMr = w.register(e[0].pd, plain, NdkMrFlags.ALLOW_LOCAL_WRITE);
        assertThat(e[0].qp.read("plain", new NdkSge[] {plain.sge(0, 64, plainMr.getLocalToken())}, 1, remote.address(),
                remoteMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(e[0].icq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.READ);
        plain.assertFilled(0, 4096, (byte) 0);
        // a local failure moves the QP to error: a second connection reads into a region with the flag
        Queues.End[] f = Queues.connect(w, Map.of("adapterFlags", Integer.toString(flags)), Queues.Shape.standard());
        NdkMr remoteMr2 = w.registerAll(f[1].pd, remote);
        Buffer sink = w.buffer(4096);
        NdkMr sinkMr = w.register(f[0].pd, sink, NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.RDMA_READ_SINK);
        assertThat(f[0].qp.read("sink", new NdkSge[] {sink.sge(0, 64, sinkMr.getLocalToken())}, 1, remote.address(),
                remoteMr2.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(f[0].icq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, remote, 0, 64);
    }

    /**
     * Seed: the consumer passes memory locked in physical memory. Java's equivalent is native memory (its address
     * stays put); a chain of heap memory, which the collector may move, is refused when the MDL is made.
     */
    @Test
    void anMdlOfHeapMemoryIsRefused() {
        assertThatThrownBy(() -> Mdl.of(MemorySegment.ofArray(new byte[4096])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("native memory");
    }

    @Test
    void remoteWriteWithoutRemoteWriteRightFails() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.register(p.b.pd, target, NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void remoteReadWithoutRemoteReadRightFails() {
        World.Pair p = connectPair();
        Buffer remote = w.buffer(4096).fillRandom(4);
        NdkMr mrB = w.register(p.b.pd, remote, NdkMrFlags.ALLOW_REMOTE_WRITE);
        Buffer sink = w.buffer(4096);
        NdkMr mrA = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 64, mrA.getLocalToken())}, 1, remote.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
        sink.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void tokenOfAnotherPdFailsRemotely() {
        World.Pair p = connectPair();
        NdkPd otherPd = w.pd(p.b.adapter);
        Buffer target = w.buffer(4096);
        NdkMr foreign = w.registerAll(otherPd, target);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address(),
                foreign.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void tokenOfAnotherPdFailsAsLocalSge() {
        World.Pair p = connectPair();
        NdkPd otherPd = w.pd(p.a.adapter);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr foreign = w.registerAll(otherPd, src);
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, foreign.getLocalToken())}, 1, target.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void receiveIntoRegionWithoutLocalWriteIsAccessViolation() {
        World.Pair p = connectPair();
        Buffer dst = w.buffer(4096);
        NdkMr mrB = w.register(p.b.pd, dst, NdkMrFlags.ALLOW_LOCAL_READ | NdkMrFlags.ALLOW_REMOTE_READ);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.b.qp.receive("rx", new NdkSge[] {dst.sge(0, 64, mrB.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("tx", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.RECEIVE);
        // the sender learns it through the peer's Terminate: REMOTE_RESOURCES, or SUCCESS when its send had
        // already completed locally before the Terminate arrived (iWARP)
        NdkResultEx tx = Kit.poll(p.a.cq);
        assertThat(NtStatus.name(tx.status)).isIn("STATUS_REMOTE_RESOURCES", "STATUS_SUCCESS");
        Mem.assertTerminated(p);
        dst.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void readIntoSinkWithoutLocalWriteIsAccessViolation() {
        World.Pair p = connectPair();
        Buffer remote = w.buffer(4096).fillRandom(4);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        Buffer sink = w.buffer(4096);
        NdkMr mrA = w.register(p.a.pd, sink, NdkMrFlags.ALLOW_LOCAL_READ | NdkMrFlags.RDMA_READ_SINK);
        assertThat(p.a.qp.read("r", new NdkSge[] {sink.sge(0, 64, mrA.getLocalToken())}, 1, remote.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.READ);
        sink.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void localSgeBeyondTheRegionIsAccessViolation() {
        World.Pair p = connectPair();
        Buffer src = w.buffer(4096).fillRandom(5);
        NdkMr mrA = w.register(p.a.pd, src, NdkMrFlags.ALLOW_LOCAL_READ);
        Buffer target = w.buffer(8192);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(4000, 97, mrA.getLocalToken())}, 1, target.address(),
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.WRITE);
        target.assertFilled(0, 8192, (byte) 0);
    }

    // ---- bounds ----------------------------------------------------------------------------------

    @Test
    void writeViolationOneBytePastTheEndFailsAndPlacesNothing() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        Buffer src = w.buffer(256).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        // exactly up to the last byte is fine
        assertThat(p.a.qp.write("edge", new NdkSge[] {src.sge(0, 100, mrA.getLocalToken())}, 1, target.address() + 3996,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        target.assertSame(3996, src, 0, 100);
        target.fill((byte) 0);
        // one byte more is refused as a whole
        assertThat(p.a.qp.write("past", new NdkSge[] {src.sge(0, 101, mrA.getLocalToken())}, 1, target.address() + 3996,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void writeBelowTheBaseFailsAndPlacesNothing() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("below", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address() - 1,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void overReadPastTheEndOfRemoteMemoryCompletesRemoteResources() {
        World.Pair p = connectPair();
        Buffer remote = w.buffer(4096).fillRandom(4);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        Buffer sink = w.buffer(4096);
        NdkMr mrA = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("edge", new NdkSge[] {sink.sge(0, 96, mrA.getLocalToken())}, 1, remote.address() + 4000,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, remote, 4000, 96);
        sink.fill((byte) 0);
        assertThat(p.a.qp.read("over", new NdkSge[] {sink.sge(0, 97, mrA.getLocalToken())}, 1, remote.address() + 4000,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
    }

    @Test
    void readBelowTheBaseCompletesRemoteResources() {
        World.Pair p = connectPair();
        Buffer remote = w.buffer(4096).fillRandom(4);
        NdkMr mrB = w.registerAll(p.b.pd, remote);
        Buffer sink = w.buffer(4096);
        NdkMr mrA = w.registerAll(p.a.pd, sink);
        assertThat(p.a.qp.read("below", new NdkSge[] {sink.sge(0, 16, mrA.getLocalToken())}, 1, remote.address() - 8,
                mrB.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
    }

    // ---- NdkCloseMr ------------------------------------------------------------------------------

    @Test
    void closeMrWithBoundWindowPendsUntilTheWindowIsClosed() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        NdkMw mw = w.track(Kit.<NdkMw>create(p.b.pd::createMw));
        assertThat(p.b.qp.bind("bind", mrB, mw, target.address(), 4096, NdkOpFlags.ALLOW_REMOTE_READ))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        w.untrack(mrB);
        CompletableFuture<Void> closing = Kit.startClose(mrB);
        assertThat(closing).as("MR close with a bound window").isNotDone();
        w.untrack(mw);
        Kit.close(mw);
        Kit.await(closing);
    }

    @Test
    void closeMrWithBoundWindowPendsUntilTheWindowIsInvalidated() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        NdkMw mw = w.track(Kit.<NdkMw>create(p.b.pd::createMw));
        assertThat(p.b.qp.bind("bind", mrB, mw, target.address(), 4096, NdkOpFlags.ALLOW_REMOTE_READ))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        w.untrack(mrB);
        CompletableFuture<Void> closing = Kit.startClose(mrB);
        assertThat(closing).as("MR close with a bound window").isNotDone();
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        Kit.await(closing);
    }

    @Test
    void closeRegisteredMrDeregistersImplicitly() {
        World.Pair p = connectPair();
        Buffer target = w.buffer(4096);
        NdkMr mrB = w.registerAll(p.b.pd, target);
        int token = mrB.getRemoteToken();
        w.untrack(mrB);
        Kit.close(mrB);
        Buffer src = w.buffer(64).fillRandom(5);
        NdkMr mrA = w.registerAll(p.a.pd, src);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, mrA.getLocalToken())}, 1, target.address(), token, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, 4096, (byte) 0);
    }

    @Test
    void registerOnAdapterWithSmallRegistrationLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter(java.util.Map.of("maxRegistrationSize", "4096"));
        NdkPd pd = w.pd(a);
        Buffer b = w.buffer(8192);
        NdkMr mr = w.mr(pd, false);
        Mem.assertStatus(Mem.register(mr, b.mdl(), 8192, ALL), NtStatus.STATUS_INVALID_PARAMETER);
        Mem.assertStatus(Mem.register(mr, b.mdl(), 4096, ALL), NtStatus.STATUS_SUCCESS);
    }

    @Test
    void registerBeyondTheMrLimitIsInsufficientResourcesAtCreate() {
        NdkAdapter a = w.adapter(java.util.Map.of("limit.mr", "1"));
        NdkPd pd = w.pd(a);
        w.mr(pd, false);
        Kit.Created<NdkMr> c = Kit.tryCreate((cc, ctx, out) -> pd.createMr(false, cc, ctx, out));
        assertThat(NtStatus.name(c.status())).isEqualTo("STATUS_INSUFFICIENT_RESOURCES");
        assertThat(c.object()).isNull();
    }
}
