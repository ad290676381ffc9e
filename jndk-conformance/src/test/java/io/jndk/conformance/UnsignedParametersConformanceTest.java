package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResult;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NdkSrq;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Conn.Listening;
import io.jndk.conformance.support.Conn.Peer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.Queues.Notes;
import io.jndk.conformance.support.World;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * NDKPI's {@code ULONG} parameters are unsigned 32-bit and its {@code SIZE_T} (and {@code PVOID}) ones unsigned 64-bit
 * (NDKPI.md §0.3). A Java {@code int} of 2^31 or more, or a {@code long} of 2^63 or more, is the large number it stands
 * for, never a negative one: every count, length, size, depth and limit of the API gets the status NDKPI gives for a
 * value that large (see docs/DECISIONS.md, "Unsigned parameters").
 *
 * <p>One table: each row names a function, one of its parameters, and the outcome every large value must have; the
 * test runs each row with 2^31, 2^31 + 1, {@code MAXULONG} and a value drawn from a fixed seed (for {@code SIZE_T}:
 * 2^63, 2^63 + 1, 2^64 − 1 and a seeded one) and reports every row that disagrees.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(300)
class UnsignedParametersConformanceTest {
    static final long SEED = 0x1_5EED_2031L;
    static final long[] ULONGS;
    static final long[] SIZE_TS;

    static {
        SplittableRandom r = new SplittableRandom(SEED);
        ULONGS = new long[] {1L << 31, (1L << 31) + 1, 0xFFFF_FFFFL, r.nextLong(1L << 31, 1L << 32)};
        SIZE_TS = new long[] {1L << 63, (1L << 63) + 1, -1L, r.nextLong(Long.MIN_VALUE, 0)};
    }

    @Parameter
    Mode mode;

    World w;
    /** A connected pair: {@code p.a} active, {@code p.b} passive, each with a QP of 4 SGEs and 64 inline bytes. */
    World.Pair p;
    NdkAdapterInfo info;
    Buffer buf;
    NdkMr mr;
    NdkMw mw;
    NdkSrq srq;
    /** A shared endpoint of A, created before every connector that uses it (its close pends while they are open). */
    NdkSharedEndpoint shared;
    final Notes srqNotes = new Notes();

    @BeforeEach
    void setUp() {
        w = new World(mode);
        p = w.connect();
        info = p.a.adapter.info();
        buf = w.buffer(8192);
        mr = w.registerAll(p.a.pd, buf);
        mw = w.track(Kit.<NdkMw>create((cc, c, o) -> p.a.pd.createMw(cc, c, o)));
        srq = w.track(Kit.<NdkSrq>create((cc, c, o) -> p.a.pd.createSrq(16, 2, 0, srqNotes, "srq", null, cc, c, o)));
        shared = w.track(Kit.<NdkSharedEndpoint>create((cc, c, o) -> p.a.adapter.createSharedEndpoint(Conn.local(0), cc, c, o)));
    }

    @AfterEach
    void tearDown() {
        w.close();
    }

    enum Type {
        ULONG, SIZE_T
    }

    @FunctionalInterface
    interface Probe {
        /** Calls the function with {@code value} in the parameter; returns the outcome in the row's words. */
        String run(long value) throws Exception;
    }

    record Row(String function, String parameter, Type type, String expected, Probe probe) {}

    private static String st(int status) {
        return NtStatus.name(status);
    }

    private static int i(long v) {
        return (int) v;
    }

    // ---- the table ------------------------------------------------------------------------------

    private List<Row> table() {
        List<Row> t = new ArrayList<>();
        String invalid = st(NtStatus.STATUS_INVALID_PARAMETER);
        String overrun = st(NtStatus.STATUS_DATA_OVERRUN);
        String overflow = st(NtStatus.STATUS_BUFFER_OVERFLOW);
        int token = mr.getLocalToken();
        NdkSge[] one = {buf.sge(0, 16, token)};
        NdkAdapter a = p.a.adapter;
        NdkPd pd = p.a.pd;
        NdkCq cq = p.a.cq;
        NdkQp qp = p.a.qp;
        int rt = mr.getRemoteToken(); // the peer never sees these posts: each fails inline

        // NDK_ADAPTER_DISPATCH
        t.add(new Row("NdkCreateCq", "CqDepth", Type.ULONG, invalid, v -> created(Kit.<NdkCq>tryCreate(
                (cc, c, o) -> a.createCq(i(v), null, null, null, cc, c, o)))));
        t.add(new Row("NdkQueryAdapterInfo", "*pBufferSize (in)", Type.ULONG, "STATUS_SUCCESS, 104 bytes", v -> {
            Ref<NdkAdapterInfo> out = new Ref<>();
            IntRef size = new IntRef(i(v));
            int s = a.queryAdapterInfo(out, size);
            return st(s) + ", " + size.value + " bytes" + (s == NtStatus.STATUS_SUCCESS && out.get() == null ? " (no info)" : "");
        }));
        t.add(new Row("NdkBuildLAM", "Length", Type.SIZE_T, invalid, v -> {
            NdkLogicalAddressMapping lam = new NdkLogicalAddressMapping(4);
            return st(Kit.request((rc, c) -> a.buildLam(buf.mdl(), v, rc, c, lam, new IntRef(0), new IntRef(0))));
        }));

        // NDK_PD_DISPATCH
        t.add(new Row("NdkCreateSrq", "SrqDepth", Type.ULONG, invalid, v -> created(Kit.<NdkSrq>tryCreate(
                (cc, c, o) -> pd.createSrq(i(v), 1, 0, null, null, null, cc, c, o)))));
        t.add(new Row("NdkCreateSrq", "MaxReceiveRequestSge", Type.ULONG, invalid, v -> created(Kit.<NdkSrq>tryCreate(
                (cc, c, o) -> pd.createSrq(4, i(v), 0, null, null, null, cc, c, o)))));
        t.add(new Row("NdkCreateSrq", "NotifyThreshold", Type.ULONG, "STATUS_SUCCESS, notified after a consumption",
                this::srqArmedAtCreation));
        String[] qpSizes = {"ReceiveQueueDepth", "InitiatorQueueDepth", "MaxReceiveRequestSge", "MaxInitiatorRequestSge",
            "InlineDataSize"};
        for (int k = 0; k < qpSizes.length; k++) {
            int at = k;
            t.add(new Row("NdkCreateQp", qpSizes[k], Type.ULONG, invalid, v -> {
                int[] s = {4, 4, 1, 1, 0};
                s[at] = i(v);
                return created(Kit.<NdkQp>tryCreate((cc, c, o) -> pd.createQp(cq, cq, "q", s[0], s[1], s[2], s[3], s[4], cc, c, o)));
            }));
        }
        String[] srqQpSizes = {"InitiatorQueueDepth", "MaxInitiatorRequestSge", "InlineDataSize"};
        for (int k = 0; k < srqQpSizes.length; k++) {
            int at = k;
            t.add(new Row("NdkCreateQpWithSrq", srqQpSizes[k], Type.ULONG, invalid, v -> {
                int[] s = {4, 1, 0};
                s[at] = i(v);
                return created(Kit.<NdkQp>tryCreate((cc, c, o) -> pd.createQpWithSrq(cq, cq, srq, "q", s[0], s[1], s[2], cc, c, o)));
            }));
        }

        // NDK_CQ_DISPATCH
        t.add(new Row("NdkResizeCq", "CqDepth", Type.ULONG, invalid, v -> st(Kit.request((rc, c) -> cq.resizeCq(i(v), rc, c)))));
        t.add(new Row("NdkGetCqResults", "nResults", Type.ULONG, "2 results", v -> {
            NdkCq full = twoCompletions();
            NdkResult[] r = {new NdkResult(), new NdkResult(), new NdkResult(), new NdkResult()};
            return full.getCqResults(r, i(v)) + " results";
        }));
        t.add(new Row("NdkGetCqResultsEx", "nResults", Type.ULONG, "2 results", v -> {
            NdkCq full = twoCompletions();
            NdkResultEx[] r = {new NdkResultEx(), new NdkResultEx(), new NdkResultEx(), new NdkResultEx()};
            return full.getCqResultsEx(r, i(v)) + " results";
        }));
        t.add(new Row("NdkControlCqInterruptModeration", "ModerationInterval (count 2)", Type.ULONG, "STATUS_SUCCESS",
                v -> st(w.cq(a, 8).controlCqInterruptModeration(i(v), 2))));
        t.add(new Row("NdkControlCqInterruptModeration", "ModerationCount (interval 100)", Type.ULONG, "STATUS_SUCCESS",
                v -> st(w.cq(a, 8).controlCqInterruptModeration(100, i(v)))));
        t.add(new Row("NdkControlCqInterruptModeration", "ModerationCount (interval MAXULONG)", Type.ULONG,
                st(NtStatus.STATUS_INVALID_PARAMETER_MIX), v -> st(w.cq(a, 8).controlCqInterruptModeration(-1, i(v)))));

        // NDK_QP_DISPATCH: SGE counts, SGE lengths, sizes, flags
        t.add(new Row("NdkSend", "nSge", Type.ULONG, overrun, v -> st(qp.send("x", one, i(v), 0))));
        t.add(new Row("NdkSend (INLINE)", "nSge", Type.ULONG, invalid, v -> st(qp.send("x", inline(), i(v), NdkOpFlags.INLINE))));
        t.add(new Row("NdkSendAndInvalidate", "nSge", Type.ULONG, overrun, v -> st(qp.sendAndInvalidate("x", one, i(v), 0, rt))));
        t.add(new Row("NdkWrite", "nSge", Type.ULONG, overrun, v -> st(qp.write("x", one, i(v), buf.address(), rt, 0))));
        t.add(new Row("NdkRead", "nSge", Type.ULONG, overrun, v -> st(qp.read("x", one, i(v), buf.address(), rt, 0))));
        t.add(new Row("NdkReceive", "nSge", Type.ULONG, overrun, v -> st(qp.receive("x", one, i(v)))));
        t.add(new Row("NdkSrqReceive", "nSge", Type.ULONG, overrun, v -> st(srq.srqReceive("x", one, i(v)))));
        t.add(new Row("NdkSend", "NDK_SGE.Length", Type.ULONG, overflow, v -> st(qp.send("x", sge(v), 1, 0))));
        t.add(new Row("NdkSend (INLINE)", "NDK_SGE.Length", Type.ULONG, invalid, v -> {
            NdkSge[] s = inline();
            s[0].length = i(v);
            return st(qp.send("x", s, 1, NdkOpFlags.INLINE));
        }));
        t.add(new Row("NdkSendAndInvalidate", "NDK_SGE.Length", Type.ULONG, overflow,
                v -> st(qp.sendAndInvalidate("x", sge(v), 1, 0, rt))));
        t.add(new Row("NdkWrite", "NDK_SGE.Length", Type.ULONG, overflow, v -> st(qp.write("x", sge(v), 1, buf.address(), rt, 0))));
        t.add(new Row("NdkRead", "NDK_SGE.Length", Type.ULONG, overflow, v -> st(qp.read("x", sge(v), 1, buf.address(), rt, 0))));
        t.add(new Row("NdkReceive", "NDK_SGE.Length", Type.ULONG, overflow, v -> st(qp.receive("x", sge(v), 1))));
        t.add(new Row("NdkSrqReceive", "NDK_SGE.Length", Type.ULONG, overflow, v -> st(srq.srqReceive("x", sge(v), 1))));
        t.add(new Row("NdkBind", "Length", Type.SIZE_T, invalid, v -> st(qp.bind("x", mr, mw, buf.address(), v, 0))));
        t.add(new Row("NdkBind", "VirtualAddress", Type.SIZE_T, invalid, v -> st(qp.bind("x", mr, mw, v, 16, 0))));
        t.add(new Row("NdkFastRegister", "AdapterPageCount", Type.ULONG, invalid, v -> fastRegister(i(v), 0, Mem.PAGE, 0)));
        t.add(new Row("NdkFastRegister", "FBO", Type.ULONG, invalid, v -> fastRegister(1, i(v), Mem.PAGE, 0)));
        t.add(new Row("NdkFastRegister", "Length", Type.SIZE_T, invalid, v -> fastRegister(1, 0, v, 0)));
        t.add(new Row("NdkSend", "Flags", Type.ULONG, invalid, v -> st(qp.send("x", one, 1, i(v)))));
        t.add(new Row("NdkSendAndInvalidate", "Flags", Type.ULONG, invalid, v -> st(qp.sendAndInvalidate("x", one, 1, i(v), rt))));
        t.add(new Row("NdkWrite", "Flags", Type.ULONG, invalid, v -> st(qp.write("x", one, 1, buf.address(), rt, i(v)))));
        t.add(new Row("NdkRead", "Flags", Type.ULONG, invalid, v -> st(qp.read("x", one, 1, buf.address(), rt, i(v)))));
        t.add(new Row("NdkBind", "Flags", Type.ULONG, invalid, v -> st(qp.bind("x", mr, mw, buf.address(), 16, i(v)))));
        t.add(new Row("NdkFastRegister", "Flags", Type.ULONG, invalid, v -> fastRegister(1, 0, Mem.PAGE, i(v))));
        t.add(new Row("NdkInvalidate", "Flags", Type.ULONG, invalid, v -> st(qp.invalidate("x", mw, i(v)))));

        // NDK_SRQ_DISPATCH
        t.add(new Row("NdkModifySrq", "SrqDepth", Type.ULONG, invalid, v -> st(Kit.request((rc, c) -> srq.modifySrq(i(v), 0, rc, c)))));
        t.add(new Row("NdkModifySrq", "NotifyThreshold", Type.ULONG, "STATUS_SUCCESS, notified at once", v -> {
            int before = srqNotes.count();
            int s = Kit.request((rc, c) -> srq.modifySrq(0, i(v), rc, c));
            Kit.awaitTrueOrTimeout(() -> srqNotes.count() > before);
            return st(s) + (srqNotes.count() > before ? ", notified at once" : ", not notified");
        }));

        // NDK_MR_DISPATCH
        t.add(new Row("NdkRegisterMr", "Length", Type.SIZE_T, invalid, v -> {
            NdkMr m = w.mr(pd, false);
            return st(Mem.register(m, buf.mdl(), v, 0));
        }));
        t.add(new Row("NdkRegisterMr", "Flags", Type.ULONG, invalid, v -> {
            NdkMr m = w.mr(pd, false);
            return st(Mem.register(m, buf.mdl(), buf.size(), i(v)));
        }));
        t.add(new Row("NdkInitializeFastRegisterMr", "AdapterPageCount", Type.ULONG, st(NtStatus.STATUS_IMPLEMENTATION_LIMIT),
                v -> st(Mem.initialize(w.mr(pd, true), i(v), true))));

        // NDK_CONNECTOR_DISPATCH, NDK_LISTENER_DISPATCH, NDK_SHARED_ENDPOINT_DISPATCH
        String capped = "capped to " + Math.min(info.maxInboundReadLimit(), info.maxOutboundReadLimit());
        t.add(new Row("NdkConnect", "InboundReadLimit", Type.ULONG, capped, v -> readLimits(v, -2, -2, -2, false)));
        t.add(new Row("NdkConnect", "OutboundReadLimit", Type.ULONG, capped, v -> readLimits(-2, v, -2, -2, false)));
        t.add(new Row("NdkConnectWithSharedEndpoint", "InboundReadLimit", Type.ULONG, capped, v -> readLimits(v, -2, -2, -2, true)));
        t.add(new Row("NdkConnectWithSharedEndpoint", "OutboundReadLimit", Type.ULONG, capped, v -> readLimits(-2, v, -2, -2, true)));
        t.add(new Row("NdkAccept", "InboundReadLimit", Type.ULONG, capped, v -> readLimits(-2, -2, v, -2, false)));
        t.add(new Row("NdkAccept", "OutboundReadLimit", Type.ULONG, capped, v -> readLimits(-2, -2, -2, v, false)));
        t.add(new Row("NdkGetConnectionData", "*pPrivateDataLength (in)", Type.ULONG, "STATUS_SUCCESS, " + mode.carried(new byte[] {7, 8, 9},
                io.jndk.conformance.support.Mode.REQ).length + " bytes, copied",
                this::connectionData));
        t.add(new Row("NdkGetLocalAddress", "*pAddressLength (in)", Type.ULONG, "STATUS_SUCCESS, 16 bytes",
                v -> address(len -> p.a.connector.getLocalAddress(new Ref<>(), len), v)));
        t.add(new Row("NdkGetPeerAddress", "*pAddressLength (in)", Type.ULONG, "STATUS_SUCCESS, 16 bytes",
                v -> address(len -> p.a.connector.getPeerAddress(new Ref<>(), len), v)));
        t.add(new Row("NdkGetListenerLocalAddress", "*pAddressLength (in)", Type.ULONG, "STATUS_SUCCESS, 16 bytes",
                v -> address(len -> p.listener.getLocalAddress(new Ref<>(), len), v)));
        t.add(new Row("NdkGetSharedEndpointLocalAddress", "*pAddressLength (in)", Type.ULONG, "STATUS_SUCCESS, 16 bytes",
                v -> address(len -> shared.getLocalAddress(new Ref<>(), len), v)));
        return t;
    }

    @Test
    void everyUlongAndSizeTParameterTakesLargeValuesAsTheUnsignedNumbersTheyAre() {
        List<Row> table = table();
        assertThat(table).as("rows").hasSizeGreaterThanOrEqualTo(60);
        SoftAssertions softly = new SoftAssertions();
        for (Row r : table) {
            for (long v : r.type() == Type.ULONG ? ULONGS : SIZE_TS) {
                String outcome;
                try {
                    outcome = r.probe().run(v);
                } catch (Throwable e) {
                    outcome = "threw " + e;
                }
                softly.assertThat(outcome).as("%s %s = %s (%s)", r.function(), r.parameter(),
                        r.type() == Type.ULONG ? Long.toUnsignedString(v & 0xFFFF_FFFFL) : Long.toUnsignedString(v),
                        r.type()).isEqualTo(r.expected());
            }
        }
        softly.assertAll();
        // nothing above was posted: the connection is untouched and still carries data both ways
        Conn.sendAndVerify(w, Conn.of(p.a), Conn.of(p.b), 100, 7);
    }

    @Test
    void fastRegisterOfARegionThatWouldWrapPastTheTopOfTheAddressSpaceIsInvalidParameter() {
        // BaseVirtualAddress is a PVOID: 2^64 - PAGE_SIZE is page aligned, but two pages from there wrap to 0
        assertThat(fastRegister(2, 0, 2L * Mem.PAGE, 0, -Mem.PAGE)).isEqualTo(st(NtStatus.STATUS_INVALID_PARAMETER));
        // one page from there ends exactly at 2^64, which is a region like any other
        assertThat(fastRegister(1, 0, Mem.PAGE, 0, -Mem.PAGE)).isEqualTo(st(NtStatus.STATUS_SUCCESS));
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, io.jndk.api.NdkOperationType.FAST_REGISTER);
    }

    // ---- probes ---------------------------------------------------------------------------------

    /** A create's outcome; a created object is tracked (closed at the end). */
    private <T extends io.jndk.api.NdkClosable> String created(Kit.Created<T> c) {
        if (c.object() != null) {
            w.track(c.object());
        }
        return st(c.status());
    }

    private NdkSge[] sge(long length) {
        return new NdkSge[] {new NdkSge(buf.address(), i(length), mr.getLocalToken())};
    }

    private NdkSge[] inline() {
        return new NdkSge[] {NdkSge.inline(buf.segment().asSlice(0, 8))};
    }

    /** A fresh CQ holding two completions (two receives of an unconnected QP, flushed). */
    private NdkCq twoCompletions() {
        NdkCq c = w.cq(p.a.adapter, 8);
        NdkQp q = w.qp(p.a.pd, c, "flushed");
        Queues.postReceives(q, "r", 2);
        q.flush();
        return c;
    }

    /** A fast-register MR of A initialized for two pages, and a mapping of two pages of A's memory. */
    private FrTarget fr;

    record FrTarget(NdkMr mr, long[] pages) {}

    private FrTarget frTarget() {
        if (fr == null) {
            Buffer pages = Buffer.pageAligned(w.arena, 2L * Mem.PAGE, 0);
            Mem.Lam lam = Mem.buildLam(p.a.adapter, pages.mdl(), pages.size());
            NdkMr m = w.mr(p.a.pd, true);
            Mem.assertStatus(Mem.initialize(m, 2, false), NtStatus.STATUS_SUCCESS);
            fr = new FrTarget(m, lam.pages());
        }
        return fr;
    }

    private String fastRegister(int pageCount, int fbo, long length, int flags) {
        return fastRegister(pageCount, fbo, length, flags, 0x10_0000_0000L);
    }

    private String fastRegister(int pageCount, int fbo, long length, int flags, long baseVa) {
        FrTarget t = frTarget();
        return st(p.a.qp.fastRegister("fr", t.mr(), pageCount, t.pages(), fbo, length, baseVa, flags));
    }

    /** Creates an SRQ with a large threshold and a callback, and sees whether the first consumption notifies. */
    private String srqArmedAtCreation(long threshold) {
        Notes notes = new Notes();
        Kit.Created<NdkSrq> c = Kit.tryCreate((cc, x, o) -> p.b.pd.createSrq(4, 1, i(threshold), notes, "s", null, cc, x, o));
        if (c.object() == null) {
            return st(c.status());
        }
        NdkSrq s = w.track(c.object());
        Queues.postSrqReceives(s, "r", 2);
        Queues.End sender = new Queues.End();
        sender.adapter = p.a.adapter;
        sender.pd = p.a.pd;
        sender.rcq = w.cq(p.a.adapter, 16);
        sender.icq = sender.rcq;
        sender.qp = w.qp(p.a.pd, sender.rcq, "sender");
        Queues.End receiver = new Queues.End();
        receiver.adapter = p.b.adapter;
        receiver.pd = p.b.pd;
        receiver.rcq = w.cq(p.b.adapter, 16);
        receiver.icq = receiver.rcq;
        receiver.qp = w.track(Kit.<NdkQp>create((cc, x, o) -> p.b.pd.createQpWithSrq(receiver.rcq, receiver.icq, s, "srq-qp",
                4, 1, 0, cc, x, o)));
        Queues.connect(w, sender, receiver);
        assertThat(sender.qp.send("s0", new NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.poll(receiver.rcq).requestContext).isEqualTo("r0");
        Kit.awaitTrueOrTimeout(() -> notes.count() > 0);
        return st(c.status()) + (notes.count() > 0 ? ", notified after a consumption" : ", not notified");
    }

    /**
     * A fresh connection between A and B with the given read limits (-2: the adapter's maximum, the largest value that
     * needs no capping); returns the negotiated limits of both sides, "capped to N" when all four are N.
     */
    private String readLimits(long aIrd, long aOrd, long bIrd, long bOrd, boolean viaShared) {
        int max = Math.min(info.maxInboundReadLimit(), info.maxOutboundReadLimit());
        int ai = aIrd == -2 ? max : i(aIrd), ao = aOrd == -2 ? max : i(aOrd);
        int bi = bIrd == -2 ? max : i(bIrd), bo = bOrd == -2 ? max : i(bOrd);
        Peer a = Conn.peer(w, p.a.adapter, "limitsA");
        Peer b = Conn.peer(w, p.b.adapter, "limitsB");
        Listening l = Conn.listen(w, p.b.adapter);
        NdkConnector ac = Conn.connector(w, p.a.adapter);
        CompletableFuture<Integer> connect = viaShared
                ? Kit.start((rc, x) -> ac.connectWithSharedEndpoint(a.qp, shared, l.address, ai, ao, null, rc, x))
                : Kit.start((rc, x) -> ac.connect(a.qp, Conn.local(0), l.address, ai, ao, null, rc, x));
        Kit.awaitTrue("connect event", () -> !l.incoming.isEmpty() || connect.isDone());
        if (connect.isDone()) {
            return "connect " + st(connect.join());
        }
        NdkConnector pc = l.next();
        CompletableFuture<Integer> accept = Conn.accept(pc, b.qp, bi, bo, null, null);
        int cs = Kit.await(connect);
        if (cs != NtStatus.STATUS_SUCCESS) {
            return "connect " + st(cs);
        }
        IntRef activeIrd = new IntRef(0), activeOrd = new IntRef(0);
        ac.getConnectionData(activeIrd, activeOrd, null, new IntRef(0));
        int cc = Conn.completeConnect(ac, null);
        int as = Kit.await(accept);
        if (cc != NtStatus.STATUS_SUCCESS || as != NtStatus.STATUS_SUCCESS) {
            return "complete connect " + st(cc) + ", accept " + st(as);
        }
        IntRef passiveIrd = new IntRef(0), passiveOrd = new IntRef(0);
        pc.getConnectionData(passiveIrd, passiveOrd, null, new IntRef(0));
        int[] got = {activeIrd.value, activeOrd.value, passiveIrd.value, passiveOrd.value};
        for (int g : got) {
            if (g != max) {
                return "active IRD/ORD " + activeIrd.value + "/" + activeOrd.value + ", passive " + passiveIrd.value + "/"
                        + passiveOrd.value;
            }
        }
        return "capped to " + max;
    }

    /** A connect with 3 bytes of private data; the passive connector's GetConnectionData with a large buffer size. */
    private String connectionData(long size) {
        Peer a = Conn.peer(w, p.a.adapter, "dataA");
        Listening l = Conn.listen(w, p.b.adapter);
        NdkConnector ac = Conn.connector(w, p.a.adapter);
        CompletableFuture<Integer> connect = Conn.connect(ac, a.qp, l.address, 1, 1, new byte[] {7, 8, 9});
        NdkConnector pc = l.next();
        byte[] into = new byte[8];
        IntRef len = new IntRef(i(size));
        String outcome;
        try {
            int s = pc.getConnectionData(null, null, into, len);
            outcome = st(s) + ", " + len.value + " bytes" + (into[0] == 7 && into[1] == 8 && into[2] == 9 ? ", copied" : ", not copied");
        } finally {
            assertThat(pc.reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Kit.await(connect);
        }
        return outcome;
    }

    @FunctionalInterface
    interface AddressQuery {
        int query(IntRef length);
    }

    private static String address(AddressQuery q, long size) {
        IntRef len = new IntRef(i(size));
        return st(q.query(len)) + ", " + len.value + " bytes";
    }

}
