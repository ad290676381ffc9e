package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkObjectType;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Memory windows (seed rules D1-D7): {@code NdkCreateMw}, {@code NdkBind}, {@code NdkGetRemoteTokenFromMw},
 * {@code NdkInvalidate} of a window, {@code NdkCloseMw}, and {@code NdkSendAndInvalidate} naming a window, a
 * fast-registered MR, a normal MR or a garbage token. The window lives on side B; side A reaches it remotely.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class BindConformanceTest {
    @Parameter
    Mode mode;

    World w;
    World.Pair p;
    Buffer target;
    NdkMr mrB;
    NdkMw mw;
    Buffer src;
    NdkMr srcMr;

    static final int RW = NdkOpFlags.ALLOW_REMOTE_READ | NdkOpFlags.ALLOW_REMOTE_WRITE;

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

    /** A connected pair, an 8 KiB region on B with every right, an unbound window on B and a source on A. */
    private void connected(int mrFlags) {
        p = connectPair();
        target = w.buffer(8192);
        mrB = w.register(p.b.pd, target, mrFlags);
        mw = w.track(Kit.<NdkMw>create(p.b.pd::createMw));
        src = w.buffer(8192).fillRandom(13);
        srcMr = w.registerAll(p.a.pd, src);
    }

    private void connected() {
        connected(NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE);
    }

    private int bind(long off, long len, int flags) {
        return p.b.qp.bind("bind", mrB, mw, target.address() + off, len, flags);
    }

    private void bound(long off, long len, int flags) {
        assertThat(bind(off, len, flags)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        assertThat(r.requestContext).isEqualTo("bind");
    }

    private int write(long srcOff, int len, long targetOff, int token) {
        return p.a.qp.write("w", new NdkSge[] {src.sge(srcOff, len, srcMr.getLocalToken())}, 1, target.address() + targetOff,
                token, 0);
    }

    private void writeOk(long srcOff, int len, long targetOff, int token) {
        assertThat(write(srcOff, len, targetOff, token)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        target.assertSame(targetOff, src, srcOff, len);
    }

    private void writeRefused(long targetOff, int token) {
        target.fill((byte) 0);
        assertThat(write(0, 64, targetOff, token)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteWriteRefused(p, p.a);
        target.assertFilled(0, target.size(), (byte) 0);
    }

    private int read(Buffer sink, NdkMr sinkMr, int len, long targetOff, int token) {
        return p.a.qp.read("r", new NdkSge[] {sink.sge(0, len, sinkMr.getLocalToken())}, 1, target.address() + targetOff, token, 0);
    }

    // ---- NdkCreateMw -----------------------------------------------------------------------------

    @Test
    void createMwReturnsAWindowThroughTheForcedPath() {
        NdkPd pd = w.pd(w.adapter());
        Kit.Created<NdkMw> c = Kit.tryCreate(pd::createMw);
        w.track(c.object());
        assertThat(NtStatus.name(c.status())).isEqualTo("STATUS_SUCCESS");
        assertThat(c.pended()).isEqualTo(mode.pend());
        assertThat(c.object().objectType()).isEqualTo(NdkObjectType.MW);
    }

    @Test
    void unboundWindowTokenFailsRemotely() {
        connected();
        writeRefused(0, mw.getRemoteToken());
    }

    // ---- NdkBind: inline checks ------------------------------------------------------------------

    @Test
    void everyDocumentedBindFlagIsAccepted_D1_D7() {
        connected();
        int[] accepted = {0x0, 0x1, 0x2, 0x8, 0x30, 0x200, 0x8 | 0x30, 0x10};
        for (int flags : accepted) {
            assertThat(bind(0, 4096, flags)).as("flags 0x%x", flags).isEqualTo(NtStatus.STATUS_SUCCESS);
            // a non-deferred request ends the chain (consumer rule of DEFER)
            assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            if ((flags & NdkOpFlags.SILENT_SUCCESS) == 0) {
                NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
                assertThat(r.requestContext).isEqualTo("bind");
                assertThat(r.qpContext).isEqualTo("qpB");
            }
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
            Kit.assertEmpty(p.b.cq);
        }
    }

    @Test
    void undefinedBindFlagBitsAreInvalidParameter_D1() {
        connected();
        for (int flags : new int[] {0x4, 0x40, 0x80, 0x100, 0x400, 0x80000000}) {
            Mem.assertStatus(bind(0, 4096, flags), NtStatus.STATUS_INVALID_PARAMETER);
        }
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void windowOutsideTheRegionIsInvalidParameter_D2_D6() {
        connected();
        Mem.assertStatus(p.b.qp.bind("x", mrB, mw, target.address() - 1, 16, RW), NtStatus.STATUS_INVALID_PARAMETER);
        Mem.assertStatus(bind(8192 + 1, 0, RW), NtStatus.STATUS_INVALID_PARAMETER);
        // the address must lie inside the region: its end is not, even for a window of length 0
        Mem.assertStatus(bind(8192, 0, RW), NtStatus.STATUS_INVALID_PARAMETER);
        Mem.assertStatus(bind(8000, 193, RW), NtStatus.STATUS_INVALID_PARAMETER);
        Mem.assertStatus(bind(0, 8193, RW), NtStatus.STATUS_INVALID_PARAMETER);
        // zero-based addressing is not supported: the address is never an offset into the region
        Mem.assertStatus(p.b.qp.bind("x", mrB, mw, 0, 16, RW), NtStatus.STATUS_INVALID_PARAMETER);
        Kit.assertEmpty(p.b.cq);
        bound(0, 8192, RW);
        bound(8000, 192, RW);
        bound(8191, 1, RW);
        bound(8191, 0, RW); // a window of length 0 inside the region
    }

    /**
     * Seed: a bound window gives access to "any connected peer" holding its token: another connection into the
     * window's PD reaches it too, for Writes and Reads (DECISIONS: any QP of the PD may use the window's token).
     */
    @Test
    void aWindowIsReachedThroughAnotherConnectionIntoItsPd() {
        connected();
        bound(0, 4096, RW);
        World.Pair q = w.connectInto(p.b);
        Buffer src2 = w.buffer(64).fillRandom(47);
        NdkMr src2Mr = w.registerAll(q.a.pd, src2);
        Mem.write(q.a, src2, src2Mr, 0, 64, target.address() + 128, mw.getRemoteToken());
        target.assertSame(128, src2, 0, 64);
        Buffer sink = w.buffer(64);
        NdkMr sinkMr = w.registerAll(q.a.pd, sink);
        Mem.read(q.a, sink, sinkMr, 0, 64, target.address() + 128, mw.getRemoteToken());
        sink.assertSame(0, src2, 0, 64);
    }

    /**
     * Seed: with SILENT_SUCCESS "failed requests produce an entry". A deferred silent bind whose region is
     * deregistered before it runs fails when the next request starts the chain, and its entry is there.
     */
    @Test
    void aSilentBindThatFailsStillMakesAnEntry() {
        connected();
        assertThat(bind(0, 4096, RW | NdkOpFlags.DEFER | NdkOpFlags.SILENT_SUCCESS)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(p.b.cq);
        assertThat(NtStatus.name(r.status)).isEqualTo("STATUS_INVALID_DEVICE_REQUEST");
        assertThat(NdkOperationType.name(r.type)).isEqualTo(NdkOperationType.name(NdkOperationType.BIND));
        assertThat(r.requestContext).isEqualTo("bind");
    }

    @Test
    void bindToAnUnregisteredOrForeignRegionIsInvalidParameter() {
        connected();
        NdkMr unregistered = w.mr(p.b.pd, false);
        Mem.assertStatus(p.b.qp.bind("x", unregistered, mw, target.address(), 16, RW), NtStatus.STATUS_INVALID_PARAMETER);
        NdkPd other = w.pd(p.b.adapter);
        Buffer b = w.buffer(4096);
        NdkMr foreign = w.registerAll(other, b);
        Mem.assertStatus(p.b.qp.bind("x", foreign, mw, b.address(), 16, RW), NtStatus.STATUS_INVALID_PARAMETER);
        Kit.assertEmpty(p.b.cq);
    }

    @Test
    void remoteWriteWindowOnRegionWithoutLocalWriteIsAccessViolation_D4() {
        connected(NdkMrFlags.ALLOW_REMOTE_READ);
        Mem.assertStatus(bind(0, 4096, NdkOpFlags.ALLOW_REMOTE_WRITE), NtStatus.STATUS_ACCESS_VIOLATION);
        Mem.assertStatus(bind(0, 4096, RW), NtStatus.STATUS_ACCESS_VIOLATION);
        Kit.assertEmpty(p.b.cq);
        // remote read needs nothing more
        bound(0, 4096, NdkOpFlags.ALLOW_REMOTE_READ);
    }

    @Test
    void bindOnAnUnconnectedQpIsConnectionInvalid_D3() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, "idle");
        Buffer b = w.buffer(4096);
        NdkMr mr = w.registerAll(pd, b);
        NdkMw window = w.track(Kit.<NdkMw>create(pd::createMw));
        Mem.assertStatus(qp.bind("x", mr, window, b.address(), 4096, RW), NtStatus.STATUS_CONNECTION_INVALID);
        Mem.assertStatus(qp.invalidate("x", window, 0), NtStatus.STATUS_CONNECTION_INVALID);
        Kit.assertEmpty(cq);
    }

    // ---- tokens ----------------------------------------------------------------------------------

    @Test
    void windowTokenIsReadableRightAfterBindReturnsAndNewOnEveryBind_D5() {
        connected();
        int unbound = mw.getRemoteToken();
        assertThat(bind(0, 4096, RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        int first = mw.getRemoteToken();
        assertThat(first).as("token after the first bind returned").isNotEqualTo(unbound);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        // re-binding a bound window gives it a new range and a new key
        assertThat(bind(4096, 4096, RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
        int second = mw.getRemoteToken();
        assertThat(second).as("token after the second bind returned").isNotEqualTo(first);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        assertThat(second).isNotEqualTo(mrB.getRemoteToken());
        writeOk(0, 64, 4096, second);
        writeRefused(4096, first);
    }

    // ---- remote access through the window --------------------------------------------------------

    @Test
    void remoteAccessInsideTheWindowWorks() {
        connected();
        bound(1024, 2048, RW);
        int token = mw.getRemoteToken();
        writeOk(0, 2048, 1024, token);
        target.assertFilled(0, 1024, (byte) 0);
        target.assertFilled(3072, 8192 - 3072, (byte) 0);
        Buffer sink = w.buffer(100);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(read(sink, sinkMr, 100, 3072 - 100, token)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        sink.assertSame(0, target, 3072 - 100, 100);
    }

    @Test
    void remoteWriteOneBytePastTheWindowFails() {
        connected();
        bound(1024, 2048, RW);
        writeRefused(3072 - 63, mw.getRemoteToken());
    }

    @Test
    void remoteWriteBelowTheWindowFailsEvenInsideTheRegion() {
        connected();
        bound(1024, 2048, RW);
        writeRefused(1023, mw.getRemoteToken());
    }

    @Test
    void readOnlyWindowRefusesRemoteWrite() {
        connected();
        bound(0, 4096, NdkOpFlags.ALLOW_REMOTE_READ);
        writeRefused(0, mw.getRemoteToken());
    }

    @Test
    void writeOnlyWindowRefusesRemoteRead() {
        connected();
        bound(0, 4096, NdkOpFlags.ALLOW_REMOTE_WRITE);
        target.fillRandom(5);
        Buffer sink = w.buffer(64);
        NdkMr sinkMr = w.registerAll(p.a.pd, sink);
        assertThat(read(sink, sinkMr, 64, 0, mw.getRemoteToken())).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.assertRemoteReadRefused(p, p.a);
        sink.assertFilled(0, 64, (byte) 0);
    }

    @Test
    void windowOnAFastRegisteredRegionReachesItsPages() {
        connected();
        Buffer frMem = Buffer.pageAligned(w.arena, 2 * 4096, 0);
        Mem.Lam lam = Mem.buildLam(p.b.adapter, frMem.mdl(), frMem.size());
        try {
            NdkMr fr = w.mr(p.b.pd, true);
            Mem.assertStatus(Mem.initialize(fr, 2, true), NtStatus.STATUS_SUCCESS);
            long base = 0x20_0000_0000L;
            long[] pages = lam.pages();
            long[] swapped = {pages[1], pages[0]};
            assertThat(p.b.qp.fastRegister("fr", fr, 2, swapped, 0, 2 * 4096, base, NdkOpFlags.ALLOW_LOCAL_WRITE))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
            assertThat(p.b.qp.bind("bind", fr, mw, base + 4000, 200, NdkOpFlags.ALLOW_REMOTE_WRITE))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
            assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 200, srcMr.getLocalToken())}, 1, base + 4000,
                    mw.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
            // region bytes 4000..4095 are host page 1, 4096..4199 host page 0
            frMem.assertSame(4096 + 4000, src, 0, 96);
            frMem.assertSame(0, src, 96, 104);
            assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        } finally {
            p.b.adapter.releaseLam(lam.mapping());
        }
        frMem.assertGuardsIntact();
    }

    // ---- NdkInvalidate and NdkCloseMw ------------------------------------------------------------

    @Test
    void invalidateOfABoundWindowKillsItsToken() {
        connected();
        bound(0, 4096, RW);
        int token = mw.getRemoteToken();
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        assertThat(r.requestContext).isEqualTo("inv");
        // the region itself is untouched
        writeOk(0, 64, 0, mrB.getRemoteToken());
        writeRefused(0, token);
    }

    @Test
    void invalidateOfAnUnboundWindowCompletesInvalidDeviceRequest() {
        connected();
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Mem.expect(p.b.cq, NtStatus.STATUS_INVALID_DEVICE_REQUEST, NdkOperationType.INVALIDATE);
        assertThat(r.requestContext).isEqualTo("inv");
    }

    @Test
    void closingABoundWindowInvalidatesIt() {
        connected();
        bound(0, 4096, RW);
        int token = mw.getRemoteToken();
        w.untrack(mw);
        Kit.close(mw);
        writeRefused(0, token);
    }

    // ---- NdkSendAndInvalidate --------------------------------------------------------------------

    /** A receive on B, then a send-and-invalidate of {@code token} from A with 100 bytes. */
    private void sendAndInvalidate(int token) {
        assertThat(p.b.qp.receive("rx", new NdkSge[] {target.sge(6000, 1000, mrB.getLocalToken())}, 1))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.sendAndInvalidate("sx", new NdkSge[] {src.sge(0, 100, srcMr.getLocalToken())}, 1, 0, token))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    private void assertRemotelyInvalidated(int token) {
        NdkResultEx rx = Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE_AND_INVALIDATE);
        assertThat(rx.type).isEqualTo(0x8001);
        assertThat(rx.typeSpecificCompletionOutput).isEqualTo(Integer.toUnsignedLong(token));
        assertThat(rx.bytesTransferred).isEqualTo(100);
        assertThat(rx.requestContext).isEqualTo("rx");
        NdkResultEx tx = Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        assertThat(tx.requestContext).isEqualTo("sx");
        target.assertSame(6000, src, 0, 100);
    }

    @Test
    void sendAndInvalidateOfAWindowCompletesAsReceiveAndInvalidateAndKillsTheToken() {
        connected();
        bound(0, 4096, RW);
        int token = mw.getRemoteToken();
        sendAndInvalidate(token);
        assertRemotelyInvalidated(token);
        writeRefused(0, token);
    }

    @Test
    void sendAndInvalidateOfAFastRegisteredRegionCompletesAsReceiveAndInvalidateAndKillsTheToken() {
        connected();
        Buffer frMem = Buffer.pageAligned(w.arena, 4096, 0);
        Mem.Lam lam = Mem.buildLam(p.b.adapter, frMem.mdl(), frMem.size());
        try {
            NdkMr fr = w.mr(p.b.pd, true);
            Mem.assertStatus(Mem.initialize(fr, 1, true), NtStatus.STATUS_SUCCESS);
            long base = 0x30_0000_0000L;
            assertThat(p.b.qp.fastRegister("fr", fr, 1, lam.pages(), 0, 4096, base, RW)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
            int token = fr.getRemoteToken();
            sendAndInvalidate(token);
            assertRemotelyInvalidated(token);
            assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, base, token, 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.assertRemoteWriteRefused(p, p.a);
            frMem.assertFilled(0, 4096, (byte) 0);
        } finally {
            p.b.adapter.releaseLam(lam.mapping());
        }
        frMem.assertGuardsIntact();
    }

    /**
     * A token that may not be remotely invalidated: the receiver's receive completes with STATUS_ACCESS_VIOLATION
     * and the connection is terminated; the sender sees STATUS_REMOTE_RESOURCES, or STATUS_SUCCESS when its send
     * completed locally before the peer's Terminate arrived (iWARP).
     */
    private void assertInvalidationRefused() {
        Mem.expect(p.b.cq, NtStatus.STATUS_ACCESS_VIOLATION, NdkOperationType.RECEIVE);
        NdkResultEx tx = Kit.poll(p.a.cq);
        assertThat(NtStatus.name(tx.status)).as("sender %s", tx).isIn("STATUS_REMOTE_RESOURCES", "STATUS_SUCCESS");
        assertThat(NdkOperationType.name(tx.type)).isEqualTo("Send");
        Mem.assertTerminated(p);
    }

    @Test
    void sendAndInvalidateOfANormalRegionTokenFailsAndTerminates() {
        connected();
        sendAndInvalidate(mrB.getRemoteToken());
        assertInvalidationRefused();
        // the normal region stays registered
        assertThat(mrB.getRemoteToken()).isNotZero();
        Mem.assertStatus(Mem.deregister(mrB), NtStatus.STATUS_SUCCESS);
    }

    @Test
    void sendAndInvalidateOfAGarbageTokenFailsAndTerminates() {
        connected();
        sendAndInvalidate(0xFFFFFF5A);
        assertInvalidationRefused();
    }

    @Test
    void sendAndInvalidateOfAnUnboundWindowFailsAndTerminates() {
        connected();
        sendAndInvalidate(mw.getRemoteToken());
        assertInvalidationRefused();
    }
}
