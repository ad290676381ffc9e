package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.Queues.End;
import io.jndk.conformance.support.Queues.Notes;
import io.jndk.conformance.support.Queues.Shape;
import io.jndk.conformance.support.World;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * Queue pairs and work requests: {@code NdkCreateQp} (seed rules C1–C5), {@code NdkCreateQpWithSrq} limits,
 * {@code NdkSend}, {@code NdkSendAndInvalidate}, {@code NdkReceive}, {@code NdkRead}, {@code NdkWrite},
 * {@code NdkBind}, {@code NdkFastRegister} and {@code NdkInvalidate} on unconnected QPs, post-time limits
 * (SGE counts, {@code MaxTransferLength}, queue depth, flag bits, inline size), the op flags (silent success,
 * read fence, solicit, inline, defer), zero-byte and multi-SGE transfers, ordering, {@code NdkFlush},
 * the "send without receive" and "receive too small" errors, {@code NdkCloseQp} flushing, and
 * flush on {@code NdkDisconnect}.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class QpConformanceTest {
    @Parameter
    Mode mode;

    World w;

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    /** A class-level timeout does not cover lifecycle methods; the world close blocks while objects leak. */
    @AfterEach
    @Timeout(60)
    void tearDown() {
        w.close();
    }

    private static final NdkSge[] NONE = new NdkSge[0];

    /** A connected pair with memory: {@code src} on a, {@code dst} on b, both registered with every right. */
    private final class Wired {
        final End a;
        final End b;
        final Buffer src;
        final Buffer dst;
        final NdkMr srcMr;
        final NdkMr dstMr;

        Wired(Map<String, String> options, Shape shape) {
            End[] e = Queues.connect(w, options, shape);
            a = e[0];
            b = e[1];
            src = w.buffer(16384).fillRandom(42);
            dst = w.buffer(16384);
            srcMr = w.registerAll(a.pd, src);
            dstMr = w.registerAll(b.pd, dst);
        }

        NdkSge s(long off, int len) {
            return src.sge(off, len, srcMr.getLocalToken());
        }

        NdkSge d(long off, int len) {
            return dst.sge(off, len, dstMr.getLocalToken());
        }
    }

    private Wired wired() {
        return new Wired(Map.of(), Shape.standard());
    }

    // ---- NdkCreateQp: seed rules C1–C5 -----------------------------------------------------------

    private int createQp(NdkPd pd, NdkCq cq, int rq, int iq, int rs, int is, int inl) {
        Kit.Created<NdkQp> c = Kit.tryCreate((cc, x, o) -> pd.createQp(cq, cq, "q", rq, iq, rs, is, inl, cc, x, o));
        if (c.object() != null) {
            w.track(c.object());
        }
        return c.status();
    }

    private static String st(int s) {
        return NtStatus.name(s);
    }

    @Test
    void createQpWithReceiveQueueDepthAboveLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), i.maxReceiveQueueDepth() + 1, 4, 1, 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createQpWithInitiatorQueueDepthAboveLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), 4, i.maxInitiatorQueueDepth() + 1, 1, 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createQpWithReceiveSgeAboveLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), 4, 4, i.maxReceiveRequestSge() + 1, 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createQpWithInitiatorSgeAboveLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), 4, 4, 1, i.maxInitiatorRequestSge() + 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createQpWithInlineDataSizeAboveLimitIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), 4, 4, 1, 1, i.maxInlineDataSize() + 1)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    @Test
    void createQpAtEveryLimitSucceeds() {
        NdkAdapter a = w.adapter(Map.of("maxReceiveQueueDepth", "512", "maxInitiatorQueueDepth", "512"));
        NdkAdapterInfo i = a.info();
        assertThat(st(createQp(w.pd(a), w.cq(a, 8), i.maxReceiveQueueDepth(), i.maxInitiatorQueueDepth(),
                i.maxReceiveRequestSge(), i.maxInitiatorRequestSge(), i.maxInlineDataSize())))
                .isEqualTo(st(NtStatus.STATUS_SUCCESS));
    }

    @Test
    void createQpOnThePendingPathReturnsTheQpOnlyThroughTheCompletion() {
        NdkAdapter a = w.adapter(Map.of("pend", "always"));
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 8);
        Kit.Created<NdkQp> c = Kit.tryCreate((cc, x, o) -> pd.createQp(cq, cq, "pq", 4, 4, 1, 1, 0, cc, x, o));
        assertThat(c.pended()).isTrue();
        assertThat(c.status()).isEqualTo(NtStatus.STATUS_SUCCESS);
        w.track(c.object());
        assertThat(c.object().receive("r", NONE, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        c.object().flush();
        NdkResultEx r = Kit.poll(cq);
        assertThat(r.qpContext).isEqualTo("pq");
    }

    @Test
    void qpContextIsEchoedInEveryResult() {
        Wired x = wired();
        assertThat(x.b.qp.receive("rb", new NdkSge[] {x.d(0, 100)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("s", new NdkSge[] {x.s(0, 100)}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("w", new NdkSge[] {x.s(0, 10)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.read("r", new NdkSge[] {x.s(200, 10)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        for (NdkResultEx r : Kit.poll(x.a.icq, 3)) {
            assertThat(r.qpContext).as("%s", r).isEqualTo("qpA");
            assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        NdkResultEx rb = Kit.poll(x.b.rcq);
        assertThat(rb.qpContext).isEqualTo("qpB");
        assertThat(x.a.qp.receive("flushed", NONE, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        x.a.qp.flush();
        assertThat(Kit.poll(x.a.rcq).qpContext).isEqualTo("qpA");
    }

    @Test
    void receivesCompleteOnTheReceiveCqAndInitiatorRequestsOnTheInitiatorCq() {
        End[] e = Queues.connect(w, Map.of(), Shape.standard().split());
        End a = e[0];
        assertThat(a.rcq).isNotSameAs(a.icq);
        assertThat(a.qp.receive("rx", NONE, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(a.qp.write("wr", NONE, 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx wr = Kit.poll(a.icq);
        assertThat(wr.requestContext).isEqualTo("wr");
        assertThat(wr.type).isEqualTo(NdkOperationType.WRITE);
        Kit.assertEmpty(a.rcq);
        a.qp.flush();
        NdkResultEx rx = Kit.poll(a.rcq);
        assertThat(rx.requestContext).isEqualTo("rx");
        assertThat(rx.type).isEqualTo(NdkOperationType.RECEIVE);
        Kit.assertEmpty(a.icq);
    }

    // ---- NdkCreateQpWithSrq -------------------------------------------------------------------

    private int createQpWithSrq(NdkPd pd, NdkCq cq, NdkSrq srq, int iq, int is, int inl) {
        Kit.Created<NdkQp> c = Kit.tryCreate((cc, x, o) -> pd.createQpWithSrq(cq, cq, srq, "q", iq, is, inl, cc, x, o));
        if (c.object() != null) {
            w.track(c.object());
        }
        return c.status();
    }

    @Test
    void createQpWithSrqLimitsAreInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 8);
        NdkSrq srq = w.track(Kit.<NdkSrq>create((cc, c, o) -> pd.createSrq(8, 1, 0, null, null, null, cc, c, o)));
        assertThat(st(createQpWithSrq(pd, cq, srq, i.maxInitiatorQueueDepth() + 1, 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(createQpWithSrq(pd, cq, srq, 4, i.maxInitiatorRequestSge() + 1, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(createQpWithSrq(pd, cq, srq, 4, 1, i.maxInlineDataSize() + 1)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(createQpWithSrq(pd, cq, srq, 4, 1, 0))).isEqualTo(st(NtStatus.STATUS_SUCCESS));
    }

    @Test
    void createQpWithSrqOfAnotherPdIsInvalidParameter() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkPd other = w.pd(a);
        NdkCq cq = w.cq(a, 8);
        NdkSrq srq = w.track(Kit.<NdkSrq>create((cc, c, o) -> other.createSrq(8, 1, 0, null, null, null, cc, c, o)));
        assertThat(st(createQpWithSrq(pd, cq, srq, 4, 1, 0))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
    }

    // ---- unconnected QPs ----------------------------------------------------------------------

    @Test
    void initiatorPostsOnAnUnconnectedQpAreConnectionInvalidWithoutCqEntries() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, "idle");
        Buffer buf = w.buffer(8192);
        NdkMr mr = w.registerAll(pd, buf);
        NdkMw mw = w.track(Kit.<NdkMw>create(pd::createMw));
        NdkMr fr = w.mr(pd, true);
        assertThat(Kit.request((rc, c) -> fr.initializeFastRegisterMr(2, true, rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        Buffer page = Buffer.pageAligned(w.arena, 4096, 0);
        NdkLogicalAddressMapping lam = new NdkLogicalAddressMapping(4);
        IntRef lamSize = new IntRef(lam.capacityBytes());
        IntRef fbo = new IntRef(0);
        assertThat(Kit.request((rc, c) -> a.buildLam(page.mdl(), 4096, rc, c, lam, lamSize, fbo))).isEqualTo(NtStatus.STATUS_SUCCESS);
        try {
            NdkSge[] one = {buf.sge(0, 16, mr.getLocalToken())};
            assertThat(st(qp.send("s", one, 1, 0))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.sendAndInvalidate("si", one, 1, 0, 0x1234))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.read("r", one, 1, buf.address(), mr.getRemoteToken(), 0)))
                    .isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.write("w", one, 1, buf.address(), mr.getRemoteToken(), 0)))
                    .isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.bind("b", mr, mw, buf.address(), 4096, NdkOpFlags.ALLOW_REMOTE_READ)))
                    .isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.fastRegister("f", fr, 1, lam.adapterPages(), 0, 4096, 0x10000, NdkOpFlags.ALLOW_LOCAL_WRITE)))
                    .isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            assertThat(st(qp.invalidate("i", mw, 0))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
            Kit.assertEmpty(cq);
        } finally {
            a.releaseLam(lam);
        }
    }

    @Test
    void receivesMayBePostedBeforeConnecting() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, "early");
        Queues.postReceives(qp, "early", 3);
        Kit.assertEmpty(cq);
        // the receives stay queued and are used once connected
        End ea = new End();
        ea.adapter = w.adapter();
        ea.pd = w.pd(ea.adapter);
        ea.rcq = w.cq(ea.adapter, 16);
        ea.icq = ea.rcq;
        ea.qp = w.qp(ea.pd, ea.rcq, "sender");
        End eb = new End();
        eb.adapter = a;
        eb.pd = pd;
        eb.rcq = cq;
        eb.icq = cq;
        eb.qp = qp;
        Queues.connect(w, ea, eb);
        assertThat(ea.qp.send("s", NONE, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(cq);
        assertThat(r.requestContext).isEqualTo("early0");
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    // ---- post-time limits ---------------------------------------------------------------------

    @Test
    void moreSgesThanTheQueueAllowsIsDataOverrun() {
        Wired x = wired();
        NdkSge[] five = {x.s(0, 8), x.s(8, 8), x.s(16, 8), x.s(24, 8), x.s(32, 8)};
        assertThat(st(x.a.qp.send("s", five, 5, 0))).isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
        assertThat(st(x.a.qp.write("w", five, 5, x.dst.address(), x.dstMr.getRemoteToken(), 0)))
                .isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
        assertThat(st(x.a.qp.sendAndInvalidate("si", five, 5, 0, 0))).isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
        NdkSge[] fiveD = {x.d(0, 8), x.d(8, 8), x.d(16, 8), x.d(24, 8), x.d(32, 8)};
        assertThat(st(x.b.qp.receive("r", fiveD, 5))).isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
        Kit.assertEmpty(x.a.icq);
        Kit.assertEmpty(x.b.rcq);
    }

    @Test
    void readsAreLimitedToMaxReadRequestSge() {
        Wired x = wired();
        assertThat(x.a.adapter.info().maxReadRequestSge()).isEqualTo(1);
        NdkSge[] two = {x.s(0, 8), x.s(8, 8)};
        assertThat(st(x.a.qp.read("r2", two, 2, x.dst.address(), x.dstMr.getRemoteToken(), 0)))
                .isEqualTo(st(NtStatus.STATUS_DATA_OVERRUN));
        assertThat(x.a.qp.read("r1", new NdkSge[] {x.s(0, 16)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(x.a.icq);
        assertThat(r.requestContext).as("the rejected read left no entry").isEqualTo("r1");
    }

    @Test
    void totalLengthOverMaxTransferLengthIsBufferOverflow() {
        Wired x = new Wired(Map.of("maxTransferLength", "4096"), Shape.standard());
        NdkSge[] over = {x.s(0, 4000), x.s(4000, 97)};
        assertThat(st(x.a.qp.send("s", over, 2, 0))).isEqualTo(st(NtStatus.STATUS_BUFFER_OVERFLOW));
        assertThat(st(x.a.qp.write("w", over, 2, x.dst.address(), x.dstMr.getRemoteToken(), 0)))
                .isEqualTo(st(NtStatus.STATUS_BUFFER_OVERFLOW));
        assertThat(st(x.a.qp.read("r", new NdkSge[] {x.s(0, 4097)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0)))
                .isEqualTo(st(NtStatus.STATUS_BUFFER_OVERFLOW));
        assertThat(st(x.b.qp.receive("rx", new NdkSge[] {x.d(0, 4097)}, 1))).isEqualTo(st(NtStatus.STATUS_BUFFER_OVERFLOW));
        Kit.assertEmpty(x.a.icq);
        // exactly MaxTransferLength is fine
        assertThat(x.a.qp.write("ok", new NdkSge[] {x.s(0, 4096)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.a.icq).requestContext).isEqualTo("ok");
        x.dst.assertSame(0, x.src, 0, 4096);
    }

    @Test
    void receiveQueueAtDepthAcceptsAndOnePastIsInsufficientResources() {
        NdkAdapter a = w.adapter();
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkQp qp = w.qp(pd, cq, cq, "rq", 4, 4, 1, 1, 0);
        Queues.postReceives(qp, "r", 4);
        assertThat(st(qp.receive("r4", NONE, 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        qp.flush();
        assertThat(Kit.poll(cq, 4)).extracting(r -> r.requestContext).containsExactly("r0", "r1", "r2", "r3");
        Kit.assertEmpty(cq);
    }

    @Test
    void initiatorQueueOfDepthZeroRefusesEveryPostWithInsufficientResources() {
        End[] e = Queues.connect(w, Map.of(), Shape.standard().withIqDepth(0));
        assertThat(st(e[0].qp.write("w", NONE, 0, 0, 0, 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        assertThat(st(e[0].qp.send("s", NONE, 0, 0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        Kit.assertEmpty(e[0].icq);
    }

    @Test
    void undefinedFlagBitsAreInvalidParameter() {
        Wired x = wired();
        NdkSge[] one = {x.s(0, 8)};
        long ra = x.dst.address();
        int rt = x.dstMr.getRemoteToken();
        assertThat(st(x.a.qp.send("s", one, 1, NdkOpFlags.ALLOW_REMOTE_READ))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.send("s", one, 1, 0x80000000))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.sendAndInvalidate("si", one, 1, NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE, 0)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.write("w", one, 1, ra, rt, NdkOpFlags.SEND_AND_SOLICIT_EVENT)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.write("w", one, 1, ra, rt, 0x400))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.read("r", one, 1, ra, rt, NdkOpFlags.INLINE))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        assertThat(st(x.a.qp.read("r", one, 1, ra, rt, NdkOpFlags.SEND_AND_SOLICIT_EVENT)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        Kit.assertEmpty(x.a.icq);
    }

    // ---- inline data --------------------------------------------------------------------------

    @Test
    void inlineSendCopiesTheBytesAtPostTime() {
        Wired x = wired();
        MemorySegment heap = w.arena.allocate(48);
        for (int i = 0; i < 48; i++) {
            heap.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
        }
        assertThat(x.b.qp.receive("rx", new NdkSge[] {x.d(0, 64)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("inl", new NdkSge[] {NdkSge.inline(heap.asSlice(0, 20)), NdkSge.inline(heap.asSlice(20, 28))},
                2, NdkOpFlags.INLINE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        heap.fill((byte) 0x77); // the provider copied the bytes before the call returned
        NdkResultEx rx = Kit.poll(x.b.rcq);
        assertThat(rx.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(rx.bytesTransferred).isEqualTo(48);
        for (int i = 0; i < 48; i++) {
            assertThat(x.dst.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo((byte) (i + 1));
        }
        x.dst.assertFilled(48, 16, (byte) 0);
        assertThat(Kit.poll(x.a.icq).type).isEqualTo(NdkOperationType.SEND);
    }

    @Test
    void inlineSendMayUseMoreSgesThanTheInitiatorLimit() {
        Wired x = wired();
        MemorySegment data = w.arena.allocate(48);
        data.fill((byte) 0x3C);
        NdkSge[] six = new NdkSge[6];
        for (int i = 0; i < 6; i++) {
            six[i] = NdkSge.inline(data.asSlice(8L * i, 8));
        }
        assertThat(x.b.qp.receive("rx", new NdkSge[] {x.d(0, 64)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("inl6", six, 6, NdkOpFlags.INLINE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.b.rcq).bytesTransferred).isEqualTo(48);
        x.dst.assertFilled(0, 48, (byte) 0x3C);
    }

    @Test
    void inlineDataOverTheQpInlineSizeIsInvalidParameter() {
        Wired x = wired();
        MemorySegment data = w.arena.allocate(65);
        assertThat(st(x.a.qp.send("big", new NdkSge[] {NdkSge.inline(data)}, 1, NdkOpFlags.INLINE)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        Kit.assertEmpty(x.a.icq);
    }

    /** Seed: InlineDataSize bounds the inline bytes of "a send or write": a Write at it lands, one more is refused. */
    @Test
    void inlineWriteUpToTheQpInlineSizeLandsAndOnePastIsInvalidParameter() {
        Wired x = wired();
        MemorySegment data = w.arena.allocate(65);
        data.fill((byte) 0x5A);
        assertThat(x.a.qp.write("inl", new NdkSge[] {NdkSge.inline(data.asSlice(0, 64))}, 1, x.dst.address(),
                x.dstMr.getRemoteToken(), NdkOpFlags.INLINE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.a.icq).requestContext).isEqualTo("inl");
        x.dst.assertSame(0, w.buffer(64).fill((byte) 0x5A), 0, 64); // awaits placement: the Write completed when sent
        x.dst.assertFilled(64, 64, (byte) 0);
        assertThat(st(x.a.qp.write("big", new NdkSge[] {NdkSge.inline(data)}, 1, x.dst.address(),
                x.dstMr.getRemoteToken(), NdkOpFlags.INLINE))).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        Kit.assertEmpty(x.a.icq);
    }

    /** Seed: InitiatorQueueDepth is the most initiator requests outstanding: that many are taken, one more is not. */
    @Test
    void initiatorQueueAtDepthAcceptsAndOnePastIsInsufficientResources() {
        Wired x = new Wired(Map.of(), Shape.standard().withIqDepth(4));
        for (int i = 0; i < 4; i++) { // deferred: none runs, so all four stay outstanding
            assertThat(st(x.a.qp.write("w" + i, new NdkSge[] {x.s(8L * i, 8)}, 1, x.dst.address() + 8L * i,
                    x.dstMr.getRemoteToken(), NdkOpFlags.DEFER))).isEqualTo(st(NtStatus.STATUS_SUCCESS));
        }
        assertThat(st(x.a.qp.write("w4", new NdkSge[] {x.s(32, 8)}, 1, x.dst.address() + 32, x.dstMr.getRemoteToken(),
                0))).isEqualTo(st(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        x.a.qp.flush();
        assertThat(Kit.poll(x.a.icq, 4)).extracting(r -> r.requestContext).containsExactly("w0", "w1", "w2", "w3");
        Kit.assertEmpty(x.a.icq);
    }

    /**
     * Seed: a QP is a receive queue, whose requests complete on the receive CQ, and an initiator queue ("send, bind,
     * fast register, read, write, invalidate"), whose requests complete on the initiator CQ.
     */
    @Test
    void everyInitiatorRequestCompletesOnTheInitiatorCqAndReceivesOnTheReceiveCq() {
        Wired x = new Wired(Map.of(), Shape.standard().split());
        assertThat(x.a.rcq).isNotSameAs(x.a.icq);
        NdkMw mw = w.track(Kit.<NdkMw>create(x.a.pd::createMw));
        assertThat(x.a.qp.receive("rxA", new NdkSge[] {x.s(8192, 64)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.b.qp.receive("rxB", new NdkSge[] {x.d(4096, 64)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("s", new NdkSge[] {x.s(0, 64)}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("w", new NdkSge[] {x.s(64, 64)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.read("r", new NdkSge[] {x.s(12288, 64)}, 1, x.dst.address() + 8192, x.dstMr.getRemoteToken(),
                0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.bind("b", x.srcMr, mw, x.src.address(), 4096, NdkOpFlags.ALLOW_REMOTE_READ))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.invalidate("i", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.b.qp.send("sB", new NdkSge[] {x.d(0, 64)}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx[] initiator = Kit.poll(x.a.icq, 5);
        for (NdkResultEx r : initiator) {
            assertThat(NtStatus.name(r.status)).as("%s", r.requestContext).isEqualTo("STATUS_SUCCESS");
        }
        assertThat(initiator).extracting(r -> r.requestContext).containsExactly("s", "w", "r", "b", "i");
        assertThat(initiator).extracting(r -> NdkOperationType.name(r.type)).containsExactly(
                NdkOperationType.name(NdkOperationType.SEND), NdkOperationType.name(NdkOperationType.WRITE),
                NdkOperationType.name(NdkOperationType.READ), NdkOperationType.name(NdkOperationType.BIND),
                NdkOperationType.name(NdkOperationType.INVALIDATE));
        NdkResultEx rx = Kit.poll(x.a.rcq);
        assertThat(rx.requestContext).isEqualTo("rxA");
        assertThat(NdkOperationType.name(rx.type)).isEqualTo(NdkOperationType.name(NdkOperationType.RECEIVE));
        assertThat(Kit.poll(x.b.rcq).requestContext).isEqualTo("rxB");
        assertThat(Kit.poll(x.b.icq).requestContext).isEqualTo("sB");
        for (NdkCq cq : new NdkCq[] {x.a.icq, x.a.rcq, x.b.icq, x.b.rcq}) {
            Kit.assertEmpty(cq);
        }
    }

    // ---- op flags ------------------------------------------------------------------------------

    @Test
    void silentSuccessLeavesNoEntry() {
        Wired x = wired();
        assertThat(x.a.qp.write("silent", new NdkSge[] {x.s(0, 64)}, 1, x.dst.address(), x.dstMr.getRemoteToken(),
                NdkOpFlags.SILENT_SUCCESS)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("loud", new NdkSge[] {x.s(64, 64)}, 1, x.dst.address() + 64, x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        // initiator completions are in posting order: the first entry would be the silent one
        NdkResultEx r = Kit.poll(x.a.icq);
        assertThat(r.requestContext).isEqualTo("loud");
        x.dst.assertSame(0, x.src, 0, 128);
        Kit.assertEmpty(x.a.icq);
    }

    @Test
    void silentSuccessFailureStillProducesAnEntry() {
        Wired x = wired();
        assertThat(x.a.qp.write("bad", new NdkSge[] {x.s(0, 64)}, 1, x.dst.address(), x.dstMr.getRemoteToken() ^ 0x1,
                NdkOpFlags.SILENT_SUCCESS)).isEqualTo(NtStatus.STATUS_SUCCESS);
        if (mode.transport().equals("loopback")) {
            // the loopback transport knows the outcome when the request executes: the failure is the request's
            NdkResultEx r = Kit.poll(x.a.icq);
            assertThat(r.requestContext).isEqualTo("bad");
            assertThat(r.status).isEqualTo(NtStatus.STATUS_REMOTE_RESOURCES);
            return;
        }
        // Over a wire a Write is complete when handed to TCP (RDMAP rules 13-15), so it may succeed silently
        // before the peer's Terminate arrives; the Terminate then moves the QP to error (disconnect event). If the
        // request is still tracked when the Terminate arrives it carries the error; it never reports success.
        Kit.awaitTrue("the peer's Terminate reaches the requester", () -> x.a.disconnects() > 0);
        NdkResultEx[] r = {new NdkResultEx()};
        if (x.a.icq.getCqResultsEx(r, 1) == 1) {
            assertThat(r[0].requestContext).isEqualTo("bad");
            assertThat(r[0].status).isIn(NtStatus.STATUS_REMOTE_RESOURCES, NtStatus.STATUS_CANCELLED);
        }
    }

    @Test
    void readFenceSendCompletesAfterTheEarlierRead() {
        Wired x = wired();
        assertThat(x.b.qp.receive("rx", new NdkSge[] {x.d(8192, 256)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.read("rd", new NdkSge[] {x.s(4096, 1024)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        // the fenced send carries bytes that the read just fetched
        assertThat(x.a.qp.send("fenced", new NdkSge[] {x.s(4096, 256)}, 1, NdkOpFlags.READ_FENCE))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx[] r = Kit.poll(x.a.icq, 2);
        assertThat(r[0].requestContext).isEqualTo("rd");
        assertThat(r[0].bytesTransferred).isEqualTo(1024);
        assertThat(r[1].requestContext).isEqualTo("fenced");
        NdkResultEx rx = Kit.poll(x.b.rcq);
        assertThat(rx.bytesTransferred).isEqualTo(256);
        x.dst.assertSame(8192, x.dst, 0, 256);
        x.dst.assertFilled(0, 256, (byte) 0);
    }

    @Test
    void sendAndSolicitEventSatisfiesThePeersSolicitedArm() {
        End a = new End();
        End b = new End();
        Notes n = new Notes();
        a.adapter = w.adapter();
        b.adapter = w.adapter();
        a.pd = w.pd(a.adapter);
        b.pd = w.pd(b.adapter);
        a.rcq = w.cq(a.adapter, 16);
        a.icq = a.rcq;
        b.rcq = w.track(Kit.<NdkCq>create((cc, c, o) -> b.adapter.createCq(16, n, "b", null, cc, c, o)));
        b.icq = b.rcq;
        a.qp = w.qp(a.pd, a.rcq, "qpA");
        b.qp = w.qp(b.pd, b.rcq, "qpB");
        Queues.connect(w, a, b);
        Queues.postReceives(b.qp, "rx", 2);
        b.rcq.armCq(NdkCqNotifyType.SOLICITED);
        assertThat(a.qp.send("sol", NONE, 0, NdkOpFlags.SEND_AND_SOLICIT_EVENT)).isEqualTo(NtStatus.STATUS_SUCCESS);
        n.await(1);
        assertThat(Kit.poll(b.rcq).requestContext).isEqualTo("rx0");
    }

    @Test
    void zeroByteSendWriteAndReadSucceed() {
        Wired x = wired();
        assertThat(x.b.qp.receive("rx", new NdkSge[] {x.d(0, 64)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("s0", NONE, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("w0", NONE, 0, x.dst.address(), x.dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.read("r0", NONE, 0, x.dst.address(), x.dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx[] r = Kit.poll(x.a.icq, 3);
        assertThat(r).extracting(v -> v.requestContext).containsExactly("s0", "w0", "r0");
        assertThat(r).extracting(v -> v.status).containsOnly(NtStatus.STATUS_SUCCESS);
        assertThat(r).extracting(v -> v.type).containsExactly(NdkOperationType.SEND, NdkOperationType.WRITE,
                NdkOperationType.READ);
        NdkResultEx rx = Kit.poll(x.b.rcq);
        assertThat(rx.bytesTransferred).isZero();
        x.dst.assertFilled(0, 64, (byte) 0);
    }

    @Test
    void multiSgeSendGathersAndReceiveScatters() {
        Wired x = wired();
        NdkSge[] rx = {x.d(0, 10), x.d(100, 300), x.d(1000, 4000)};
        assertThat(x.b.qp.receive("rx", rx, 3)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkSge[] tx = {x.s(7, 100), x.s(500, 1), x.s(2000, 250), x.s(9000, 49)};
        assertThat(x.a.qp.send("tx", tx, 4, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(x.b.rcq);
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(r.bytesTransferred).isEqualTo(400);
        // the gathered stream: 100 @7, 1 @500, 250 @2000, 49 @9000 — scattered 10 @0, 300 @100, 90 @1000
        byte[] stream = new byte[400];
        int p = 0;
        for (long[] seg : new long[][] {{7, 100}, {500, 1}, {2000, 250}, {9000, 49}}) {
            for (int i = 0; i < seg[1]; i++) {
                stream[p++] = x.src.segment().get(ValueLayout.JAVA_BYTE, seg[0] + i);
            }
        }
        p = 0;
        for (long[] seg : new long[][] {{0, 10}, {100, 300}, {1000, 90}}) {
            for (int i = 0; i < seg[1]; i++) {
                assertThat(x.dst.segment().get(ValueLayout.JAVA_BYTE, seg[0] + i)).as("stream byte %d", p).isEqualTo(stream[p]);
                p++;
            }
        }
        x.dst.assertFilled(10, 90, (byte) 0);
        x.dst.assertFilled(1090, 100, (byte) 0);
    }

    @Test
    void multiSgeWriteGathersInOrder() {
        Wired x = wired();
        NdkSge[] tx = {x.s(0, 1000), x.s(5000, 24), x.s(3000, 3000), x.s(12000, 72)};
        assertThat(x.a.qp.write("w", tx, 4, x.dst.address() + 16, x.dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.a.icq).status).isEqualTo(NtStatus.STATUS_SUCCESS);
        x.dst.assertSame(16, x.src, 0, 1000);
        x.dst.assertSame(1016, x.src, 5000, 24);
        x.dst.assertSame(1040, x.src, 3000, 3000);
        x.dst.assertSame(4040, x.src, 12000, 72);
        x.dst.assertFilled(0, 16, (byte) 0);
        x.dst.assertFilled(4112, 64, (byte) 0);
    }

    @Test
    void initiatorCompletionsArriveInPostingOrder() {
        Wired x = wired();
        Queues.postReceives(x.b.qp, "rx", 5);
        List<String> posted = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            String ctx = "op" + i;
            posted.add(ctx);
            int s = switch (i % 3) {
                case 0 -> x.a.qp.write(ctx, new NdkSge[] {x.s(i * 16L, 16)}, 1, x.dst.address() + i * 16L,
                        x.dstMr.getRemoteToken(), 0);
                case 1 -> x.a.qp.read(ctx, new NdkSge[] {x.s(8192 + i * 16L, 16)}, 1, x.dst.address(), x.dstMr.getRemoteToken(), 0);
                default -> x.a.qp.send(ctx, NONE, 0, 0);
            };
            assertThat(s).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        assertThat(Kit.poll(x.a.icq, 15)).extracting(r -> (String) r.requestContext).containsExactlyElementsOf(posted);
        assertThat(Kit.poll(x.b.rcq, 5)).extracting(r -> r.requestContext).containsExactly("rx0", "rx1", "rx2", "rx3", "rx4");
    }

    @Test
    void deferredRequestsRunAtTheNextNonDeferredPost() {
        Wired x = wired();
        long ra = x.dst.address();
        int rt = x.dstMr.getRemoteToken();
        assertThat(x.a.qp.write("d1", new NdkSge[] {x.s(0, 100)}, 1, ra, rt, NdkOpFlags.DEFER)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("d2", new NdkSge[] {x.s(100, 100)}, 1, ra + 100, rt, NdkOpFlags.DEFER))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.write("go", new NdkSge[] {x.s(200, 100)}, 1, ra + 200, rt, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.a.icq, 3)).extracting(r -> r.requestContext).containsExactly("d1", "d2", "go");
        x.dst.assertSame(0, x.src, 0, 300);
    }

    @Test
    void deferredRequestsWaitWhileTheEngineRunsForOtherWork() {
        Wired x = wired();
        assertThat(x.a.qp.write("d1", new NdkSge[] {x.s(0, 100)}, 1, x.dst.address(), x.dstMr.getRemoteToken(),
                NdkOpFlags.DEFER)).isEqualTo(NtStatus.STATUS_SUCCESS);
        // two Reads served by A's side: its engine sends their responses, in order, on the stream d1 would take;
        // had d1 started, its bytes would be placed before the second response completes
        for (int i = 0; i < 2; i++) {
            NdkSge[] sink = {x.dst.sge(8192, 100, x.dstMr.getLocalToken())};
            assertThat(x.b.qp.read("r" + i, sink, 1, x.src.address(), x.srcMr.getRemoteToken(), 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(Kit.poll(x.b.icq).status).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        x.dst.assertFilled(0, 100, (byte) 0);
        Kit.assertEmpty(x.a.icq);
        assertThat(x.a.qp.write("go", new NdkSge[] {x.s(100, 100)}, 1, x.dst.address() + 100, x.dstMr.getRemoteToken(), 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(x.a.icq, 2)).extracting(r -> r.requestContext).containsExactly("d1", "go");
        Kit.awaitTrue("deferred write placed", () -> x.dst.segment().asSlice(0, 200).mismatch(x.src.segment().asSlice(0, 200)) == -1);
    }

    @Test
    void deferredRequestRunsWhenALaterPostFailsInline() {
        Wired x = wired();
        assertThat(x.a.qp.write("d1", new NdkSge[] {x.s(0, 100)}, 1, x.dst.address(), x.dstMr.getRemoteToken(),
                NdkOpFlags.DEFER)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(st(x.a.qp.write("bad", NONE, 0, 0, 0, 0x80000000 | NdkOpFlags.DEFER)))
                .isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        NdkResultEx r = Kit.poll(x.a.icq);
        assertThat(r.requestContext).isEqualTo("d1");
        assertThat(r.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        x.dst.assertSame(0, x.src, 0, 100);
        Kit.assertEmpty(x.a.icq);
    }

    // ---- NdkFlush -----------------------------------------------------------------------------

    @Test
    void flushCancelsOutstandingRequestsWithTheirOwnTypes() {
        Wired x = wired();
        Queues.postReceives(x.a.qp, "ra", 3);
        assertThat(x.a.qp.write("deferred", new NdkSge[] {x.s(0, 8)}, 1, x.dst.address(), x.dstMr.getRemoteToken(),
                NdkOpFlags.DEFER)).isEqualTo(NtStatus.STATUS_SUCCESS);
        x.a.qp.flush();
        List<NdkResultEx> all = new ArrayList<>(List.of(Kit.poll(x.a.rcq, 4)));
        NdkResultEx wr = all.stream().filter(r -> "deferred".equals(r.requestContext)).findFirst().orElseThrow();
        // a deferred request may already have been handed to the engine (the flag is a hint): success or cancelled
        assertThat(wr.status).isIn(NtStatus.STATUS_CANCELLED, NtStatus.STATUS_SUCCESS);
        assertThat(wr.type).isEqualTo(NdkOperationType.WRITE);
        List<NdkResultEx> rx = all.stream().filter(r -> r.type == NdkOperationType.RECEIVE).toList();
        assertThat(rx).extracting(r -> r.requestContext).containsExactly("ra0", "ra1", "ra2");
        assertThat(rx).extracting(r -> r.status).containsOnly(NtStatus.STATUS_CANCELLED);
        assertThat(rx).extracting(r -> r.qpContext).containsOnly("qpA");
    }

    @Test
    void afterFlushInitiatorPostsAreConnectionInvalidAndReceivesAreCancelledAtOnce() {
        Wired x = wired();
        x.a.qp.flush();
        assertThat(st(x.a.qp.write("w", NONE, 0, 0, 0, 0))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
        assertThat(st(x.a.qp.send("s", NONE, 0, 0))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
        assertThat(st(x.a.qp.read("r", NONE, 0, 0, 0, 0))).isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
        assertThat(x.a.qp.receive("late", NONE, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(x.a.rcq);
        assertThat(r.requestContext).isEqualTo("late");
        assertThat(r.status).isEqualTo(NtStatus.STATUS_CANCELLED);
        assertThat(r.type).isEqualTo(NdkOperationType.RECEIVE);
    }

    // ---- remote errors --------------------------------------------------------------------------

    @Test
    void sendWithoutAPostedReceiveTerminatesTheConnection() {
        Wired x = wired();
        assertThat(x.a.qp.send("orphan", new NdkSge[] {x.s(0, 32)}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx r = Kit.poll(x.a.icq);
        assertThat(r.requestContext).isEqualTo("orphan");
        // the receiver answers with a Terminate: the send reports the remote error, or (iwarp) completes before
        // the Terminate arrives
        assertThat(r.status).isIn(NtStatus.STATUS_REMOTE_RESOURCES, NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("sender QP in error", () -> x.a.qp.write(null, NONE, 0, 0, 0, 0) == NtStatus.STATUS_CONNECTION_INVALID);
        Kit.awaitTrue("receiver QP in error", () -> x.b.qp.write(null, NONE, 0, 0, 0, 0) == NtStatus.STATUS_CONNECTION_INVALID);
        // the receiver's QP is flushed: a receive posted now completes cancelled
        assertThat(x.b.qp.receive("after", NONE, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        // the receiver's probes above may have been posted before its QP went to error (over a wire the sender can
        // see the Terminate first): their completions, without context, share this CQ
        NdkResultEx after = Kit.poll(x.b.rcq);
        for (int i = 0; i < 1_000 && after.requestContext == null; i++) {
            after = Kit.poll(x.b.rcq);
        }
        assertThat(after.requestContext).isEqualTo("after");
        assertThat(after.status).isEqualTo(NtStatus.STATUS_CANCELLED);
    }

    @Test
    void requestsPostedBehindARemotelyFailedReadAreCancelled() {
        readFailsRemotelyAndEverythingBehindItIsCancelled(0);
    }

    @Test
    void requestsPostedBehindARemotelyFailedReadInOneDeferredChainAreCancelled() {
        // one chain, released by the last post: over iwarp the Sends leave in the Read Request's batch, so they are
        // on the wire (finished) long before the peer's Terminate comes back
        readFailsRemotelyAndEverythingBehindItIsCancelled(NdkOpFlags.DEFER);
    }

    /**
     * A Read naming a token the peer does not have, then three Sends and a Write: the peer terminates at the Read
     * Request and discards what follows it, so the Read carries the remote error and every later request is flushed
     * ({@code STATUS_CANCELLED}), including Sends a transport already handed to TCP (NDKPI.md §7.12). A transport that
     * executes each request as it is posted (loopback) has the QP in error before the next post, which is then refused
     * inline ({@code STATUS_CONNECTION_INVALID}, no completion); none is refused in a deferred chain.
     */
    private void readFailsRemotelyAndEverythingBehindItIsCancelled(int defer) {
        Wired x = wired();
        for (int i = 0; i < 3; i++) {
            assertThat(x.b.qp.receive("rb" + i, new NdkSge[] {x.d(1024L * i, 1024)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        }
        int badToken = x.dstMr.getRemoteToken() ^ 0xFF; // the right region, a key it never had
        assertThat(x.a.qp.read("read", new NdkSge[] {x.s(8192, 64)}, 1, x.dst.address(), badToken, defer))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        List<String> posted = new ArrayList<>(List.of("read"));
        List<Integer> types = new ArrayList<>(List.of(NdkOperationType.READ));
        for (int i = 0; i < 4; i++) {
            String ctx = i < 3 ? "send" + i : "write";
            int s = i < 3 ? x.a.qp.send(ctx, new NdkSge[] {x.s(64L * i, 32)}, 1, defer)
                    : x.a.qp.write(ctx, new NdkSge[] {x.s(0, 16)}, 1, x.dst.address() + 4096, x.dstMr.getRemoteToken(), 0);
            if (s == NtStatus.STATUS_SUCCESS) {
                posted.add(ctx);
                types.add(i < 3 ? NdkOperationType.SEND : NdkOperationType.WRITE);
            } else {
                assertThat(NtStatus.name(s)).as("%s posted after the QP went to error", ctx)
                        .isEqualTo(NtStatus.name(NtStatus.STATUS_CONNECTION_INVALID));
                assertThat(defer).as("a deferred chain is not executed before its last post").isZero();
            }
        }
        NdkResultEx[] r = Kit.poll(x.a.icq, posted.size());
        assertThat(r).extracting(e -> e.requestContext).containsExactlyElementsOf(posted);
        assertThat(r).extracting(e -> e.type).containsExactlyElementsOf(types);
        assertThat(NtStatus.name(r[0].status)).as("the Read carries the remote error")
                .isEqualTo(NtStatus.name(NtStatus.STATUS_REMOTE_RESOURCES));
        assertThat(r[0].providerErrorCode).as("the Terminate's layer/type/code").isNotZero();
        for (int i = 1; i < r.length; i++) {
            assertThat(NtStatus.name(r[i].status)).as("%s behind the failed Read", r[i].requestContext)
                    .isEqualTo(NtStatus.name(NtStatus.STATUS_CANCELLED));
        }
        Kit.assertEmpty(x.a.icq);
        // the peer discarded the Sends after its Terminate: its receives are flushed, none received anything
        NdkResultEx[] rx = Kit.poll(x.b.rcq, 3);
        assertThat(rx).extracting(e -> e.requestContext).containsExactly("rb0", "rb1", "rb2");
        assertThat(rx).extracting(e -> NtStatus.name(e.status)).containsOnly(NtStatus.name(NtStatus.STATUS_CANCELLED));
        x.dst.assertFilled(4096, 16, (byte) 0);
    }

    @Test
    void nothingSucceedsAfterALocalOperationFailsBehindAnOutstandingRead() {
        Wired x = wired();
        int size = 16 << 20;
        // memory the GC frees, not the world's arena: over iwarp the flushed Read's response can still be in a socket
        // read or write on these buffers when the test ends (the adapter close does not wait for the connection's
        // threads to leave consumer memory), and closing an arena under them fails
        Buffer source = Buffer.allocate(Arena.ofAuto(), size).fillRandom(5);
        Buffer sink = Buffer.allocate(Arena.ofAuto(), size);
        NdkMr sourceMr = w.registerAll(x.b.pd, source);
        NdkMr sinkMr = w.registerAll(x.a.pd, sink);
        NdkMw unbound = w.track(Kit.<NdkMw>create((cc, c, o) -> x.a.pd.createMw(cc, c, o)));
        Queues.postReceives(x.b.qp, "rb", 2);
        // a large Read (over a wire its response takes a while) and a Send behind it; once the Send has arrived (the
        // transport has written it), an Invalidate that fails when it executes (the window was never bound), then more
        assertThat(x.a.qp.read("read", new NdkSge[] {sink.sge(0, size, sinkMr.getLocalToken())}, 1, source.address(),
                sourceMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("send0", NONE, 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx arrived = Kit.poll(x.b.rcq);
        assertThat(arrived.requestContext).isEqualTo("rb0");
        assertThat(arrived.status).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.invalidate("invalidate", unbound, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        List<String> posted = new ArrayList<>(List.of("read", "send0", "invalidate"));
        // a transport that executes at the post (loopback) has the QP in error already: the next posts are refused
        int s1 = x.a.qp.send("send1", NONE, 0, 0);
        if (s1 == NtStatus.STATUS_SUCCESS) {
            posted.add("send1");
        } else {
            assertThat(NtStatus.name(s1)).isEqualTo(NtStatus.name(NtStatus.STATUS_CONNECTION_INVALID));
        }
        NdkResultEx[] r = Kit.poll(x.a.icq, posted.size());
        assertThat(r).extracting(e -> e.requestContext).containsExactlyElementsOf(posted);
        assertThat(NtStatus.name(r[2].status)).as("the failed local operation carries its error")
                .isEqualTo(NtStatus.name(NtStatus.STATUS_INVALID_DEVICE_REQUEST));
        assertThat(r[2].type).isEqualTo(NdkOperationType.INVALIDATE);
        for (int i = 3; i < r.length; i++) {
            assertThat(NtStatus.name(r[i].status)).isEqualTo(NtStatus.name(NtStatus.STATUS_CANCELLED));
        }
        // before it: done (loopback places a Read at once) or flushed with the QP, but never a success after a flush
        boolean flushed = false;
        for (int i = 0; i < 2; i++) {
            assertThat(NtStatus.name(r[i].status)).as("%s", r[i].requestContext).isIn(NtStatus.name(NtStatus.STATUS_SUCCESS),
                    NtStatus.name(NtStatus.STATUS_CANCELLED));
            if (flushed) {
                assertThat(NtStatus.name(r[i].status)).as("%s after a flushed request", r[i].requestContext)
                        .isEqualTo(NtStatus.name(NtStatus.STATUS_CANCELLED));
            }
            flushed |= r[i].status != NtStatus.STATUS_SUCCESS;
        }
        Kit.assertEmpty(x.a.icq);
    }

    @Test
    void sendLongerThanThePostedReceiveCompletesTheReceiveWithBufferOverflow() {
        Wired x = wired();
        assertThat(x.b.qp.receive("small", new NdkSge[] {x.d(0, 100)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.b.qp.receive("next", new NdkSge[] {x.d(200, 100)}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(x.a.qp.send("long", new NdkSge[] {x.s(0, 200)}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx rx = Kit.poll(x.b.rcq);
        assertThat(rx.requestContext).isEqualTo("small");
        assertThat(NtStatus.name(rx.status)).isEqualTo(NtStatus.name(NtStatus.STATUS_BUFFER_OVERFLOW));
        NdkResultEx next = Kit.poll(x.b.rcq);
        assertThat(next.requestContext).isEqualTo("next");
        assertThat(next.status).as("the connection terminated: the rest is flushed").isEqualTo(NtStatus.STATUS_CANCELLED);
        NdkResultEx tx = Kit.poll(x.a.icq);
        assertThat(tx.status).isIn(NtStatus.STATUS_REMOTE_RESOURCES, NtStatus.STATUS_SUCCESS);
        x.dst.assertFilled(100, 100, (byte) 0);
    }

    // ---- close and disconnect -------------------------------------------------------------------

    @Test
    void closeQpFlushesAndPendsWhileTheConnectorIsOpen() {
        Wired x = wired();
        Queues.postReceives(x.a.qp, "ra", 2);
        w.untrack(x.a.qp);
        Queues.Closing closing = Queues.startClose(x.a.qp);
        assertThat(NtStatus.name(closing.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_PENDING));
        NdkResultEx[] flushed = Kit.poll(x.a.rcq, 2);
        assertThat(flushed).extracting(r -> r.requestContext).containsExactly("ra0", "ra1");
        assertThat(flushed).extracting(r -> r.status).containsOnly(NtStatus.STATUS_CANCELLED);
        assertThat(closing.done()).as("the connector still references the QP").isNotDone();
        w.untrack(x.a.connector);
        Kit.close(x.a.connector);
        Kit.await(closing.done());
        assertThat(closing.completions().get()).isEqualTo(1);
    }

    @Test
    void disconnectFlushesTheLocalQpAndNotThePeerUntilItDisconnects() {
        Wired x = wired();
        Queues.postReceives(x.a.qp, "ra", 2);
        Queues.postReceives(x.b.qp, "rb", 1);
        assertThat(Kit.request((rc, c) -> x.a.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx[] fa = Kit.poll(x.a.rcq, 2);
        assertThat(fa).extracting(r -> r.requestContext).containsExactly("ra0", "ra1");
        assertThat(fa).extracting(r -> r.status).containsOnly(NtStatus.STATUS_CANCELLED);
        Kit.awaitTrue("peer disconnect event", () -> x.b.disconnects() == 1);
        // peer disconnect alone does not flush the peer's QP
        Kit.assertEmpty(x.b.rcq);
        assertThat(st(x.b.qp.write("w", NONE, 0, 0, 0, 0))).as("but the peer cannot initiate any more")
                .isEqualTo(st(NtStatus.STATUS_CONNECTION_INVALID));
        assertThat(Kit.request((rc, c) -> x.b.connector.disconnect(rc, c))).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx fb = Kit.poll(x.b.rcq);
        assertThat(fb.requestContext).isEqualTo("rb0");
        assertThat(fb.status).isEqualTo(NtStatus.STATUS_CANCELLED);
        assertThat(x.a.disconnects()).as("the side that disconnected gets no disconnect event").isZero();
    }
}
