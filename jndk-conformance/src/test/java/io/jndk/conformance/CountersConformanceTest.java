package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Conn.Listening;
import io.jndk.conformance.support.Conn.Peer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mem;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.util.EnumMap;
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
 * The adapter counters after a known workload: exact deltas per counter group. The in-JVM loopback carries no
 * FPDUs (they stay zero); over iWARP every operation below fits one FPDU.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class CountersConformanceTest {
    @Parameter
    Mode mode;

    World w;
    World.Pair p;
    Buffer src, dst;
    NdkMr srcMr, dstMr;
    NdkCounters a0, b0;

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    @AfterEach
    void tearDown() {
        w.close();
    }

    private boolean wire() {
        return !mode.transport().equals("loopback");
    }

    /** The counters of {@code a} minus {@code before}. */
    private static Map<NdkCounter, Long> delta(NdkAdapter a, NdkCounters before) {
        Map<NdkCounter, Long> d = new EnumMap<>(NdkCounter.class);
        NdkCounters now = a.counters();
        for (NdkCounter c : NdkCounter.values()) {
            d.put(c, now.get(c) - before.get(c));
        }
        return d;
    }

    /** Waits until the delta of {@code c} reaches {@code expected} (wire counters trail the completions), then checks it. */
    private static void awaitDelta(NdkAdapter a, NdkCounters before, NdkCounter c, long expected) {
        Kit.awaitTrueOrTimeout(() -> delta(a, before).get(c) >= expected);
        assertThat(delta(a, before).get(c)).as("%s on %s", c, a).isEqualTo(expected);
    }

    /**
     * Connects A to B with a registered 8 KiB buffer on each side, sends one warm-up Send (connection set-up frames
     * such as a ready-to-receive frame are then behind the test), and takes the counters of both adapters.
     */
    private void connectedAndWarm() {
        p = w.connect();
        src = w.buffer(8192).fillRandom(5);
        dst = w.buffer(8192);
        srcMr = w.registerAll(p.a.pd, src);
        dstMr = w.registerAll(p.b.pd, dst);
        assertThat(p.b.qp.receive("warm", new NdkSge[] {dst.sge(0, 64, dstMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("warm", new NdkSge[] {src.sge(0, 8, srcMr.getLocalToken())}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        a0 = p.a.adapter.counters();
        b0 = p.b.adapter.counters();
    }

    @Test
    void everyCounterIsNamedAndStartsAtZero() {
        NdkAdapter a = w.adapter();
        for (NdkCounter c : NdkCounter.values()) {
            assertThat(c.label).isNotBlank();
            assertThat(a.counters().get(c)).as(c.name()).isZero();
        }
    }

    /**
     * The device counters are the transport's own: none on loopback and iwarp (every counter of theirs is an adapter
     * counter); on roce a fixed list of names, read-only, whose RC counters grow with the requests the device executes.
     */
    @Test
    void deviceCountersAreTheTransportsOwnAndGrowWithItsWork() {
        connectedAndWarm();
        Map<String, Long> before = Kit.deviceCounters(p.b.adapter);
        if (!mode.transport().equals("roce")) {
            assertThat(before).isEmpty();
            assertThat(Kit.deviceCounters(p.a.adapter)).isEmpty();
            return;
        }
        assertThat(before).containsKeys("packets_in", "icrc_bad", "unknown_qpn", "cm_retries", "rc_requests_executed",
                "rc_retransmitted_packets");
        Map<String, Long> active = Kit.deviceCounters(p.a.adapter);
        assertThat(active.get("packets_out")).as("A's REQ and RTU count in packets_out as in gsi_out, and its warm Send")
                .isGreaterThanOrEqualTo(active.get("gsi_out") + 1);
        assertThat(p.b.qp.receive("r", new NdkSge[] {dst.sge(1000, 500, dstMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 300, srcMr.getLocalToken())}, 1, dst.address() + 2000,
                dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("s", new NdkSge[] {src.sge(0, 200, srcMr.getLocalToken())}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
        Map<String, Long> after = Kit.deviceCounters(p.b.adapter);
        assertThat(after.keySet()).as("the same names in the same order").containsExactlyElementsOf(before.keySet());
        assertThat(after.get("rc_requests_executed") - before.get("rc_requests_executed")).as("the Write and the Send")
                .isGreaterThanOrEqualTo(2);
        assertThat(after.get("packets_in") - before.get("packets_in")).isGreaterThanOrEqualTo(2);
        assertThat(after.get("icrc_bad")).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> after.put("packets_in", 0L))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void writeSendAndReadCountBytesFpdusRequestsAndCompletions() {
        connectedAndWarm();

        assertThat(p.b.qp.receive("r", new NdkSge[] {dst.sge(1000, 500, dstMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, 300, srcMr.getLocalToken())}, 1, dst.address() + 2000,
                dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.send("s", new NdkSge[] {src.sge(0, 200, srcMr.getLocalToken())}, 1, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.read("rd", new NdkSge[] {src.sge(4096, 100, srcMr.getLocalToken())}, 1, dst.address() + 3000,
                dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
        Mem.expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);

        long fpdu = wire() ? 1 : 0;
        awaitDelta(p.a.adapter, a0, NdkCounter.BYTES_OUT, 300 + 200);
        awaitDelta(p.a.adapter, a0, NdkCounter.BYTES_IN, 100);
        awaitDelta(p.b.adapter, b0, NdkCounter.BYTES_IN, 300 + 200);
        awaitDelta(p.b.adapter, b0, NdkCounter.BYTES_OUT, 100);
        awaitDelta(p.a.adapter, a0, NdkCounter.FPDUS_OUT, 3 * fpdu); // Write, Send, Read Request
        awaitDelta(p.a.adapter, a0, NdkCounter.FPDUS_IN, fpdu); // Read Response
        awaitDelta(p.b.adapter, b0, NdkCounter.FPDUS_IN, 3 * fpdu);
        awaitDelta(p.b.adapter, b0, NdkCounter.FPDUS_OUT, fpdu);
        awaitDelta(p.a.adapter, a0, NdkCounter.WORK_REQUESTS, 3);
        awaitDelta(p.a.adapter, a0, NdkCounter.COMPLETIONS, 3);
        awaitDelta(p.b.adapter, b0, NdkCounter.WORK_REQUESTS, 1);
        awaitDelta(p.b.adapter, b0, NdkCounter.COMPLETIONS, 1);
        for (NdkCounter c : new NdkCounter[] {NdkCounter.CRC_ERRORS, NdkCounter.TERMINATES_SENT, NdkCounter.TERMINATES_RECEIVED,
                NdkCounter.ACCESS_ERRORS, NdkCounter.FLUSHED_REQUESTS}) {
            assertThat(delta(p.a.adapter, a0).get(c)).as(c.name()).isZero();
            assertThat(delta(p.b.adapter, b0).get(c)).as(c.name()).isZero();
        }
    }

    @Test
    void writeToAnInvalidTokenIsATerminateSentByTheTargetAndReceivedByTheInitiator() {
        connectedAndWarm();
        assertThat(p.b.qp.receive("r1", new NdkSge[] {dst.sge(0, 64, dstMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.receive("r2", new NdkSge[] {dst.sge(64, 64, dstMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.receive("ra", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.a.qp.write("bad", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, dst.address(),
                dstMr.getRemoteToken() ^ 0x100, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);

        awaitDelta(p.b.adapter, b0, NdkCounter.TERMINATES_SENT, 1);
        awaitDelta(p.a.adapter, a0, NdkCounter.TERMINATES_RECEIVED, 1);
        // an unknown STag of a tagged Write: the DDP layer's "invalid STag" on both transports
        assertThat(delta(p.b.adapter, b0).get(NdkCounter.TERMINATES_SENT_DDP)).isEqualTo(1);
        assertThat(delta(p.a.adapter, a0).get(NdkCounter.TERMINATES_RECEIVED_DDP)).isEqualTo(1);
        for (NdkCounter c : new NdkCounter[] {NdkCounter.TERMINATES_SENT_RDMAP, NdkCounter.TERMINATES_SENT_MPA,
                NdkCounter.TERMINATES_RECEIVED_RDMAP, NdkCounter.TERMINATES_RECEIVED_MPA, NdkCounter.CRC_ERRORS}) {
            assertThat(delta(p.a.adapter, a0).get(c)).as(c.name()).isZero();
            assertThat(delta(p.b.adapter, b0).get(c)).as(c.name()).isZero();
        }
        assertThat(delta(p.b.adapter, b0).get(NdkCounter.TERMINATES_RECEIVED)).isZero();
        assertThat(delta(p.a.adapter, a0).get(NdkCounter.TERMINATES_SENT)).isZero();
        awaitDelta(p.b.adapter, b0, NdkCounter.ACCESS_ERRORS, 1);
        // both QPs go to error: B's two receives and A's one flush
        awaitDelta(p.b.adapter, b0, NdkCounter.FLUSHED_REQUESTS, 2);
        awaitDelta(p.a.adapter, a0, NdkCounter.FLUSHED_REQUESTS, 1);
        if (wire()) {
            awaitDelta(p.a.adapter, a0, NdkCounter.FPDUS_OUT, 1); // the Write
            awaitDelta(p.b.adapter, b0, NdkCounter.FPDUS_OUT, 1); // the Terminate
            awaitDelta(p.a.adapter, a0, NdkCounter.FPDUS_IN, 1);
        }
    }

    @Test
    void registrationsBindsFastRegistersAndInvalidationsAreCounted() {
        p = w.connect();
        b0 = p.b.adapter.counters();
        Buffer target = w.buffer(8192);
        NdkMr mr = w.registerAll(p.b.pd, target);
        w.registerAll(p.b.pd, w.buffer(4096));
        assertThat(delta(p.b.adapter, b0).get(NdkCounter.REGISTRATIONS)).isEqualTo(2);

        NdkMw mw = w.track(Kit.<NdkMw>create(p.b.pd::createMw));
        assertThat(p.b.qp.bind("bind", mr, mw, target.address(), 4096,
                NdkOpFlags.ALLOW_REMOTE_READ | NdkOpFlags.ALLOW_REMOTE_WRITE)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
        assertThat(p.b.qp.invalidate("inv", mw, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);

        Buffer pages = Buffer.pageAligned(w.arena, 4096, 0);
        Mem.Lam lam = Mem.buildLam(p.b.adapter, pages.mdl(), pages.size());
        try {
            NdkMr fr = w.mr(p.b.pd, true);
            Mem.assertStatus(Mem.initialize(fr, 1, true), NtStatus.STATUS_SUCCESS);
            assertThat(p.b.qp.fastRegister("fr", fr, 1, lam.pages(), 0, 4096, 0x10_0000_0000L,
                    NdkOpFlags.ALLOW_REMOTE_READ | NdkOpFlags.ALLOW_REMOTE_WRITE)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.FAST_REGISTER);
            assertThat(p.b.qp.invalidate("inv-fr", fr, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            Mem.expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.INVALIDATE);
        } finally {
            p.b.adapter.releaseLam(lam.mapping());
        }
        Map<NdkCounter, Long> d = delta(p.b.adapter, b0);
        assertThat(d.get(NdkCounter.REGISTRATIONS)).isEqualTo(2);
        assertThat(d.get(NdkCounter.BINDS)).isEqualTo(1);
        assertThat(d.get(NdkCounter.FAST_REGISTERS)).isEqualTo(1);
        assertThat(d.get(NdkCounter.INVALIDATIONS)).isEqualTo(2);
        assertThat(d.get(NdkCounter.WORK_REQUESTS)).isEqualTo(4);
        assertThat(d.get(NdkCounter.COMPLETIONS)).isEqualTo(4);
    }

    @Test
    void connectionsFailuresAndRejectsAreCounted() {
        p = w.connect();
        assertThat(p.a.adapter.counters().get(NdkCounter.CONNECTIONS)).isEqualTo(1);
        assertThat(p.b.adapter.counters().get(NdkCounter.CONNECTIONS)).isEqualTo(1);

        NdkAdapter a = w.adapter();
        Listening l = Conn.listen(w, a);
        Peer pa = Conn.peer(w, a, "qpR");
        NdkConnector rejected = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(rejected, pa.qp, l.address, 1, 1, null);
        assertThat(l.next().reject(null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(connect)).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
        NdkCounters c = a.counters();
        assertThat(c.get(NdkCounter.MPA_REJECTS)).isEqualTo(1);
        assertThat(c.get(NdkCounter.CONNECT_FAILURES)).isEqualTo(1);
        assertThat(c.get(NdkCounter.CONNECTIONS)).isZero();

        Listening gone = Conn.listen(w, a);
        Kit.close(gone.listener);
        w.untrack(gone.listener);
        NdkConnector refused = Conn.connector(w, a);
        assertThat(Kit.await(Conn.connect(refused, pa.qp, gone.address, 1, 1, null))).isEqualTo(NtStatus.STATUS_CONNECTION_REFUSED);
        c = a.counters();
        assertThat(c.get(NdkCounter.CONNECT_FAILURES)).isEqualTo(2);
        assertThat(c.get(NdkCounter.MPA_REJECTS)).isEqualTo(1);
    }
}
