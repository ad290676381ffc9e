package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every status named in the four seed pages (NdkFastRegister, NdkRegisterMr, NdkCreateQp, NdkBind), provoked and
 * asserted by name, one test per (page, status). The detailed rules live in the per-object classes.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class SeedRulesConformanceTest {
    @Parameter
    Mode mode;

    World w;

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    @Timeout(60)
    void tearDown() {
        w.close();
    }

    // ---- NdkRegisterMr ----------------------------------------------------------------------------

    @Test
    void registerMrStatusSuccessOrPendingThenSuccess() {
        NdkPd pd = w.pd(w.adapter());
        NdkMr mr = w.mr(pd, false);
        Buffer b = w.buffer(4096);
        CompletableFuture<Integer> done = new CompletableFuture<>();
        int s = mr.registerMr(b.mdl(), b.size(), NdkMrFlags.ALLOW_LOCAL_WRITE, (c, st) -> done.complete(st), "ctx");
        if (mode.pend()) {
            assertThat(s).isEqualTo(NtStatus.STATUS_PENDING);
            assertThat(Kit.await(done)).isEqualTo(NtStatus.STATUS_SUCCESS);
        } else {
            assertThat(s).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(done).isNotDone();
        }
    }

    @Test
    void registerMrStatusInvalidParameterForANonContiguousChain() {
        NdkPd pd = w.pd(w.adapter());
        NdkMr mr = w.mr(pd, false);
        Buffer a = w.buffer(4096);
        Buffer b = w.buffer(4096);
        Mdl gap = Mdl.chain(a.segment(), b.segment());
        assertThat(Kit.request((rc, c) -> mr.registerMr(gap, 8192, 0, rc, c))).isEqualTo(NtStatus.STATUS_INVALID_PARAMETER);
    }

    @Test
    void registerMrStatusInsufficientResourcesBeyondTheRegistrationBudget() {
        NdkPd pd = w.pd(w.adapter(Map.of("limit.registered.bytes", "8192")));
        Buffer a = w.buffer(8192);
        Buffer b = w.buffer(4096);
        w.register(pd, a, 0);
        NdkMr second = w.mr(pd, false);
        assertThat(Kit.request((rc, c) -> second.registerMr(b.mdl(), b.size(), 0, rc, c)))
                .isEqualTo(NtStatus.STATUS_INSUFFICIENT_RESOURCES);
    }

    // ---- NdkCreateQp ------------------------------------------------------------------------------

    @Test
    void createQpStatusSuccessOrPendingWithTheQpOnlyThroughTheCompletion() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        Kit.Created<NdkQp> c = Kit.tryCreate((cc, x, o) -> pd.createQp(cq, cq, "qp", 4, 4, 1, 1, 0, cc, x, o));
        assertThat(c.status()).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(c.pended()).as("STATUS_PENDING returned").isEqualTo(mode.pend());
        w.track(c.object());
    }

    @Test
    void createQpStatusInvalidParameterForEachOfTheFiveLimits() {
        NdkAdapter a = w.adapter();
        var info = a.info();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        int[][] over = {
            {info.maxReceiveQueueDepth() + 1, 1, 1, 1, 0},
            {1, info.maxInitiatorQueueDepth() + 1, 1, 1, 0},
            {1, 1, info.maxReceiveRequestSge() + 1, 1, 0},
            {1, 1, 1, info.maxInitiatorRequestSge() + 1, 0},
            {1, 1, 1, 1, info.maxInlineDataSize() + 1}};
        for (int[] v : over) {
            Ref<NdkQp> out = new Ref<>();
            int s = pd.createQp(cq, cq, null, v[0], v[1], v[2], v[3], v[4], (x, st, o) -> { }, null, out);
            assertThat(s).as("limits %s", java.util.Arrays.toString(v)).isEqualTo(NtStatus.STATUS_INVALID_PARAMETER);
            assertThat(out.get()).isNull();
        }
    }

    @Test
    void createQpStatusInsufficientResourcesAtTheAdapterQpLimit() {
        NdkAdapter a = w.adapter(Map.of("limit.qp", "1"));
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        w.qp(pd, cq, "first");
        Kit.Created<NdkQp> c = Kit.tryCreate((cc, x, o) -> pd.createQp(cq, cq, "second", 4, 4, 1, 1, 0, cc, x, o));
        assertThat(c.status()).isEqualTo(NtStatus.STATUS_INSUFFICIENT_RESOURCES);
    }

    // ---- NdkFastRegister --------------------------------------------------------------------------

    private record Fr(World.Pair pair, NdkMr mr, long[] pages, int fbo, long va, NdkLogicalAddressMapping lam,
            Buffer mem) {}

    private Fr fastRegisterSetup(boolean remoteAccess, boolean connected) {
        World.Pair p = w.connect();
        idleQp = connected ? p.a.qp : w.qp(p.a.pd, p.a.cq, "idle");
        return fastRegistrable(p, remoteAccess);
    }

    /** An initialized fast-register MR in A's PD, and the mapping of an 8 KiB buffer of A's adapter for it. */
    private Fr fastRegistrable(World.Pair p, boolean remoteAccess) {
        NdkAdapter adapter = p.a.adapter;
        NdkPd pd = p.a.pd;
        Buffer b = w.buffer(8192);
        NdkLogicalAddressMapping lam = new NdkLogicalAddressMapping(4);
        IntRef size = new IntRef(lam.capacityBytes());
        IntRef fbo = new IntRef();
        assertThat(Kit.request((rc, c) -> adapter.buildLam(b.mdl(), b.size(), rc, c, lam, size, fbo)))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkMr mr = w.mr(pd, true);
        assertThat(Kit.request((rc, c) -> mr.initializeFastRegisterMr(4, remoteAccess, rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        lamsToRelease.add(new Object[] {adapter, lam});
        return new Fr(p, mr, lam.adapterPages(), fbo.value, 0x10_0000L + fbo.value, lam, b);
    }

    private final java.util.List<Object[]> lamsToRelease = new java.util.ArrayList<>();
    private NdkQp idleQp;

    @AfterEach
    void releaseLams() {
        for (Object[] o : lamsToRelease) {
            ((NdkAdapter) o[0]).releaseLam((NdkLogicalAddressMapping) o[1]);
        }
    }

    @Test
    void fastRegisterStatusSuccessWithOneFastRegisterCompletion() {
        Fr f = fastRegisterSetup(true, true);
        int s = f.pair().a.qp.fastRegister("fr", f.mr(), f.pages().length, f.pages(), f.fbo(), 4096, f.va(),
                NdkOpFlags.ALLOW_REMOTE_WRITE);
        assertThat(s).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(f.pair().a.cq);
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(r.type).isEqualTo(NdkOperationType.FAST_REGISTER);
        assertThat(r.requestContext).isEqualTo("fr");
    }

    @Test
    void fastRegisterStatusConnectionInvalidOnAnUnconnectedQp() {
        Fr f = fastRegisterSetup(true, false);
        int s = idleQp.fastRegister("fr", f.mr(), f.pages().length, f.pages(), f.fbo(), 4096, f.va(), 0);
        assertThat(s).isEqualTo(NtStatus.STATUS_CONNECTION_INVALID);
        Kit.assertEmpty(f.pair().a.cq);
    }

    @Test
    void fastRegisterStatusAccessViolationForRemoteRightsWithoutRemoteAccess() {
        Fr f = fastRegisterSetup(false, true);
        for (int flags : new int[] {NdkOpFlags.ALLOW_REMOTE_READ, NdkOpFlags.ALLOW_REMOTE_WRITE}) {
            int s = f.pair().a.qp.fastRegister("fr", f.mr(), f.pages().length, f.pages(), f.fbo(), 4096, f.va(), flags);
            assertThat(s).isEqualTo(NtStatus.STATUS_ACCESS_VIOLATION);
        }
        Kit.assertEmpty(f.pair().a.cq);
    }

    // ---- NdkBind ----------------------------------------------------------------------------------

    @Test
    void bindStatusSuccessWithOneBindCompletion() {
        World.Pair p = w.connect();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.registerAll(p.a.pd, b);
        NdkMw mw = w.track(Kit.<NdkMw>create((cc, c, o) -> p.a.pd.createMw(cc, c, o)));
        assertThat(p.a.qp.bind("bind", mr, mw, b.address() + 16, 256, NdkOpFlags.ALLOW_REMOTE_WRITE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.a.cq);
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(r.type).isEqualTo(NdkOperationType.BIND);
    }

    @Test
    void bindStatusConnectionInvalidOnAnUnconnectedQp() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, "idle");
        Buffer b = w.buffer(4096);
        NdkMr mr = w.registerAll(pd, b);
        NdkMw mw = w.track(Kit.<NdkMw>create((cc, c, o) -> pd.createMw(cc, c, o)));
        assertThat(qp.bind("bind", mr, mw, b.address(), 256, NdkOpFlags.ALLOW_REMOTE_READ))
                .isEqualTo(NtStatus.STATUS_CONNECTION_INVALID);
        Kit.assertEmpty(cq);
    }

    @Test
    void bindStatusAccessViolationForRemoteWriteOnARegionWithoutLocalWrite() {
        World.Pair p = w.connect();
        Buffer b = w.buffer(4096);
        NdkMr mr = w.register(p.a.pd, b, NdkMrFlags.ALLOW_REMOTE_READ);
        NdkMw mw = w.track(Kit.<NdkMw>create((cc, c, o) -> p.a.pd.createMw(cc, c, o)));
        assertThat(p.a.qp.bind("bind", mr, mw, b.address(), 256, NdkOpFlags.ALLOW_REMOTE_WRITE))
                .isEqualTo(NtStatus.STATUS_ACCESS_VIOLATION);
        Kit.assertEmpty(p.a.cq);
    }

    // ---- the four calls from inside a consumer callback -------------------------------------------

    /**
     * The four seed pages allow their call at IRQL <= DISPATCH_LEVEL, so a consumer may make it from inside a callback.
     * From inside a CQ notification (run by the dispatcher, or with {@code notify=inline} on iwarp and roce by the
     * engine thread that completed the receive) RegisterMr, CreateQp, FastRegister and Bind each return at once, with STATUS_SUCCESS or
     * (RegisterMr and CreateQp on the pending path) STATUS_PENDING; the callback returns without waiting for anything;
     * then each finishes: the registered region, the fast-registered region and the window take the peer's Writes,
     * and the new QP takes a receive.
     */
    @ParameterizedTest
    @ValueSource(strings = {"dispatcher", "inline"})
    void theFourCallsWorkFromInsideACallback(String notify) {
        AtomicReference<Runnable> body = new AtomicReference<>();
        World.Pair p = w.connect(false, 16, 4, 4, Map.of("notify", notify), (ctx, st) -> body.get().run());
        Buffer regBuf = w.buffer(4096);
        NdkMr regMr = w.mr(p.a.pd, false);
        Fr fr = fastRegistrable(p, true);
        Buffer winBuf = w.buffer(4096);
        NdkMr winMr = w.registerAll(p.a.pd, winBuf);
        NdkMw mw = w.track(Kit.<NdkMw>create((cc, c, o) -> p.a.pd.createMw(cc, c, o)));

        CompletableFuture<Integer> registered = new CompletableFuture<>();
        CompletableFuture<NdkQp> created = new CompletableFuture<>();
        Map<String, Integer> returned = new java.util.concurrent.ConcurrentHashMap<>();
        CompletableFuture<String> callbackReturned = new CompletableFuture<>();
        body.set(() -> {
            try {
                int all = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;
                int s = regMr.registerMr(regBuf.mdl(), regBuf.size(), all, (c, st) -> registered.complete(st), "reg");
                returned.put("RegisterMr", s);
                if (s != NtStatus.STATUS_PENDING) {
                    registered.complete(s);
                }
                Ref<NdkQp> out = new Ref<>();
                s = p.a.pd.createQp(p.a.cq, p.a.cq, "new", 4, 4, 1, 1, 0, (c, st, o) -> created.complete(
                        st == NtStatus.STATUS_SUCCESS ? (NdkQp) o : null), "create", out);
                returned.put("CreateQp", s);
                if (s != NtStatus.STATUS_PENDING) {
                    created.complete(s == NtStatus.STATUS_SUCCESS ? out.get() : null);
                }
                returned.put("FastRegister", p.a.qp.fastRegister("fr", fr.mr(), fr.pages().length, fr.pages(), fr.fbo(),
                        4096, fr.va(), NdkOpFlags.ALLOW_REMOTE_WRITE));
                returned.put("Bind", p.a.qp.bind("bind", winMr, mw, winBuf.address() + 16, 256,
                        NdkOpFlags.ALLOW_REMOTE_WRITE));
                callbackReturned.complete(Thread.currentThread().getName());
            } catch (RuntimeException | Error e) {
                callbackReturned.completeExceptionally(e); // the notifier would only log it
            }
        });
        p.a.cq.armCq(NdkCqNotifyType.ANY);
        assertThat(p.a.qp.receive("r", new NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.send("s", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        String thread = Kit.await(callbackReturned);
        // inline on iwarp and roce: the engine thread that completed the receive; loopback's inline notifications
        // come from its callback thread, as the dispatcher's do
        boolean engine = notify.equals("inline") && !mode.transport().equals("loopback");
        assertThat(thread).as("the callback's thread").matches(engine ? "(?!.*-callbacks).*" : ".*-callbacks.*");

        String path = mode.pend() ? "STATUS_PENDING" : "STATUS_SUCCESS";
        assertThat(returned.entrySet().stream().map(e -> e.getKey() + " " + NtStatus.name(e.getValue())))
                .as("what each call returned inside the callback")
                .containsExactlyInAnyOrder("RegisterMr " + path, "CreateQp " + path, "FastRegister STATUS_SUCCESS",
                        "Bind STATUS_SUCCESS");
        assertThat(NtStatus.name(Kit.await(registered))).as("RegisterMr").isEqualTo("STATUS_SUCCESS");
        NdkQp fresh = Kit.await(created);
        assertThat(fresh).as("the QP CreateQp made").isNotNull();
        w.track(fresh);
        assertThat(fresh.receive("n", new NdkSge[0], 0)).as("a receive on the new QP")
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);

        Buffer src = w.buffer(64).fillRandom(11);
        NdkMr srcMr = w.registerAll(p.b.pd, src);
        Mem.write(p.b, src, srcMr, 0, 64, regBuf.address(), regMr.getRemoteToken());
        Mem.write(p.b, src, srcMr, 0, 64, fr.va(), fr.mr().getRemoteToken());
        Mem.write(p.b, src, srcMr, 0, 64, winBuf.address() + 16, mw.getRemoteToken());
        regBuf.assertSame(0, src, 0, 64);
        fr.mem().assertSame(0, src, 0, 64);
        winBuf.assertSame(16, src, 0, 64);
    }
}
