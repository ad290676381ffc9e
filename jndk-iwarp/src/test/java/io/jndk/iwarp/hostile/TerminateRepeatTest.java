package io.jndk.iwarp.hostile;

import static io.jndk.iwarp.hostile.HostileKit.LENGTH;
import static io.jndk.iwarp.hostile.HostileKit.RECEIVES;
import static io.jndk.iwarp.hostile.HostileKit.RECEIVE_LENGTH;
import static io.jndk.iwarp.hostile.HostileKit.WAIT_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.cm.CmTestSupport;
import io.jndk.iwarp.codec.TerminateCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Terminate reaches the peer, every time: each hostile case of {@link HostileConnectionTest} that jndk answers
 * with a Terminate (failed placement checks, decoder errors) and the provider's own abort (the QP closed while
 * connected) runs {@value #REPEATS} times back to back, CRC off and on, against a consumer that closes its connector
 * and QP the moment it hears of the disconnect (what the tools do). The raw peer must read the Terminate each time,
 * then, after it half-closes, an orderly close (no reset): jndk stops placing, writes the Terminate at an FPDU
 * boundary, half-closes, drains what the peer still sends, and only then closes, however early its consumer closes.
 */
class TerminateRepeatTest {

    static final int REPEATS = 100;
    /** Bound on one case's repetitions, far above what they take. */
    private static final long CASE_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(240);
    private static final byte[] PAYLOAD = "hostile!".getBytes(StandardCharsets.US_ASCII);

    /** What the raw peer writes; {@code null} frames: the consumer closes its QP instead (a local abort). */
    interface Attack {
        byte[] frames(Target target, RawPeer peer);
    }

    /** What an attack aims at: the kit's regions, and one large enough for the large Read. */
    record Target(HostileKit kit, HostileKit.Guarded big) {
        HostileKit.Guarded rw() {
            return kit.rw;
        }

        HostileKit.Guarded readOnly() {
            return kit.readOnly;
        }

        HostileKit.Guarded foreign() {
            return kit.foreign;
        }

        HostileKit.Guarded receives() {
            return kit.receives;
        }
    }

    /** One hostile case: its attack, the Terminate expected, and whether it needs CRC. */
    record Case(String name, boolean crcOnly, int ord, TerminateCode expected, Attack attack) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** More than the socket buffers hold: the first response still streams when the second request arrives. */
    private static final int BIG_READ = 32 << 20;
    /**
     * Cases whose Terminate queues behind a response larger than the socket buffers: the peer reads from the start
     * (else the Terminate could never go out), and jndk's consumer still closes while it is queued behind the rest.
     */
    private static final java.util.Set<String> PEER_READS_AT_ONCE =
        java.util.Set.of("readRequestsBeyondANegotiatedInboundReadLimitOfOne");

    static final List<Case> CASES = List.of(
        new Case("writeToAnUnknownStag", false, 1, TerminateCode.DDP_TAGGED_INVALID_STAG,
            (k, p) -> p.rdmaWrite(0x00FF_FF00 | k.rw().token() & 0xFF, k.rw().base(), PAYLOAD)),
        new Case("writeToStagZero", false, 1, TerminateCode.DDP_TAGGED_INVALID_STAG,
            (k, p) -> p.rdmaWrite(0, k.rw().base(), PAYLOAD)),
        new Case("writeOneOctetPastTheEnd", false, 1, TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION,
            (k, p) -> p.rdmaWrite(k.rw().token(), k.rw().base() + LENGTH - PAYLOAD.length + 1, PAYLOAD)),
        new Case("writeWithAZeroBasedOffset", false, 1, TerminateCode.DDP_TAGGED_BASE_BOUNDS_VIOLATION,
            (k, p) -> p.rdmaWrite(k.rw().token(), 0, PAYLOAD)),
        new Case("writeToAReadOnlyRegion", false, 1, TerminateCode.DDP_TAGGED_INVALID_STAG,
            (k, p) -> p.rdmaWrite(k.readOnly().token(), k.readOnly().base(), PAYLOAD)),
        new Case("writeToAnotherProtectionDomainsRegion", false, 1, TerminateCode.DDP_TAGGED_STAG_NOT_ASSOCIATED,
            (k, p) -> p.rdmaWrite(k.foreign().token(), k.foreign().base(), PAYLOAD)),
        new Case("writeWithAWrongDdpVersion", false, 1, TerminateCode.DDP_TAGGED_INVALID_VERSION, (k, p) -> {
            byte[] f = p.rdmaWrite(k.rw().token(), k.rw().base(), PAYLOAD);
            f[2] = (byte) (f[2] & ~0x03);
            return p.reseal(f);
        }),
        new Case("readRequestBeyondTheInboundReadLimit", false, 0, TerminateCode.RDMAP_CATASTROPHIC_STREAM,
            (k, p) -> p.readRequest(1, 8, k.rw().token(), k.rw().base())),
        new Case("readRequestsBeyondANegotiatedInboundReadLimitOfOne", false, 1,
            TerminateCode.RDMAP_CATASTROPHIC_STREAM, (k, p) -> RawPeer.concat(
                p.readRequest(1, BIG_READ, k.big().token(), k.big().base()), p.readRequest(2, 8, k.big().token(),
                    k.big().base()))),
        new Case("readRequestNamingAnUnknownSource", false, 1, TerminateCode.RDMAP_INVALID_STAG,
            (k, p) -> p.readRequest(1, 8, 0x00FF_FF00, k.rw().base())),
        new Case("readRequestBeyondTheSourceRegion", false, 1, TerminateCode.RDMAP_BASE_BOUNDS_VIOLATION,
            (k, p) -> p.readRequest(1, LENGTH + 1, k.rw().token(), k.rw().base())),
        new Case("readRequestFromARegionWithoutRemoteRead", false, 1, TerminateCode.RDMAP_ACCESS_RIGHTS_VIOLATION,
            (k, p) -> p.readRequest(1, 8, k.receives().token(), k.receives().base())),
        new Case("sendWithAWrongQueueNumber", false, 1, TerminateCode.DDP_UNTAGGED_INVALID_QN,
            (k, p) -> p.send(3, 1, 0, true, PAYLOAD)),
        new Case("sendWithAWrongMsn", false, 1, TerminateCode.DDP_UNTAGGED_MSN_RANGE,
            (k, p) -> p.send(0, 7, 0, true, PAYLOAD)),
        new Case("sendWithAWrongMessageOffset", false, 1, TerminateCode.DDP_UNTAGGED_INVALID_MO,
            (k, p) -> p.send(0, 1, 8, true, PAYLOAD)),
        new Case("sendWithAWrongMessageOffsetInItsSecondSegment", false, 1, TerminateCode.DDP_UNTAGGED_INVALID_MO,
            (k, p) -> RawPeer.concat(p.send(0, 1, 0, false, PAYLOAD), p.send(0, 1, 4, true, PAYLOAD))),
        new Case("sendWithAWrongDdpVersion", false, 1, TerminateCode.DDP_UNTAGGED_INVALID_VERSION, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[2] = (byte) (f[2] & ~0x03 | 0x02);
            return p.reseal(f);
        }),
        new Case("sendWithAWrongRdmapVersion", false, 1, TerminateCode.RDMAP_INVALID_VERSION, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[3] = (byte) (f[3] & 0x3F | 0x80);
            return p.reseal(f);
        }),
        new Case("reservedOpcode", false, 1, TerminateCode.RDMAP_UNEXPECTED_OPCODE, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[3] = (byte) (f[3] & 0xF0 | 0x0C);
            return p.reseal(f);
        }),
        new Case("sendLongerThanThePostedReceive", false, 1, TerminateCode.DDP_UNTAGGED_MESSAGE_TOO_LONG, (k, p) -> {
            byte[] big = new byte[RECEIVE_LENGTH + 1];
            Arrays.fill(big, (byte) 0x77);
            return p.send(1, big);
        }),
        new Case("sendOf64KiBInFourSegmentsIntoA256OctetReceive", false, 1,
            TerminateCode.DDP_UNTAGGED_MESSAGE_TOO_LONG, (k, p) -> {
                byte[] segment = new byte[16 * 1024];
                Arrays.fill(segment, (byte) 0x77);
                byte[] all = new byte[0];
                for (int i = 0; i < 4; i++) {
                    all = RawPeer.concat(all, p.send(0, 1, i * segment.length, i == 3, segment));
                }
                return all;
            }),
        new Case("writeOf60KiBToAnUnknownStag", false, 1, TerminateCode.DDP_TAGGED_INVALID_STAG,
            (k, p) -> p.rdmaWrite(0x00FF_FF00 | k.rw().token() & 0xFF, k.rw().base(), new byte[60 * 1024])),
        new Case("sendWhenNoReceiveIsPosted", false, 1, TerminateCode.DDP_UNTAGGED_NO_BUFFER, (k, p) -> {
            byte[] all = new byte[0];
            for (int i = 1; i <= RECEIVES + 1; i++) {
                all = RawPeer.concat(all, p.send(i, PAYLOAD));
            }
            return all;
        }),
        new Case("ulpduLengthShorterThanTheHeader", false, 1, TerminateCode.RDMAP_CATASTROPHIC_STREAM, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[0] = 0;
            f[1] = 8;
            return f;
        }),
        new Case("badCrc", true, 1, TerminateCode.LLP_CRC_ERROR, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[f.length - 1] ^= 0x5A;
            return f;
        }),
        new Case("ulpduLengthThatLiesIsCaughtByTheCrc", true, 1, TerminateCode.LLP_CRC_ERROR, (k, p) -> {
            byte[] f = p.send(1, PAYLOAD);
            f[1] += 8;
            return RawPeer.concat(f, p.send(2, PAYLOAD));
        }),
        new Case("qpClosedWhileConnected", false, 1, TerminateCode.LLP_LOCAL_CATASTROPHIC, (k, p) -> null));

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Case c : CASES) {
            if (!c.crcOnly()) {
                out.add(Arguments.of(c, false));
            }
            out.add(Arguments.of(c, true));
        }
        return out.stream();
    }

    private HostileKit kit;
    private Target target;

    @BeforeEach
    void open() {
        kit = new HostileKit();
        target = new Target(kit, kit.register("big", kit.pd, BIG_READ, HostileKit.ALL));
    }

    @AfterEach
    void close() throws Exception {
        try {
            kit.servesAValidConnection();
        } finally {
            kit.close();
        }
    }

    /** How one repetition ended for the peer. */
    enum Seen { TERMINATE, NO_TERMINATE, WRONG_TERMINATE, RESET_AFTER_TERMINATE }

    @ParameterizedTest(name = "{0} crc={1}")
    @MethodSource("cases")
    @Timeout(300)
    void theTerminateReachesThePeerEveryTime(Case c, boolean crc) throws Exception {
        Map<Seen, Integer> seen = new TreeMap<>();
        List<String> examples = new ArrayList<>();
        long deadline = System.nanoTime() + CASE_BUDGET_NANOS;
        for (int i = 0; i < REPEATS; i++) {
            assertThat(System.nanoTime() - deadline).as("%s repetitions within their budget (at %d)", c, i)
                .isNegative();
            Seen s = once(c, crc, examples);
            seen.merge(s, 1, Integer::sum);
        }
        assertThat(seen).as("%s, CRC %s: what the peer saw in %d repetitions (first failures: %s)", c,
            crc ? "on" : "off", REPEATS, examples).containsOnlyKeys(Seen.TERMINATE);
    }

    /**
     * One repetition: connect, attack, then more frames behind the attack (input jndk still has to drain). jndk's
     * consumer closes its connector and QP as soon as it hears of the failure, as a tool does: from the disconnect
     * callback, or when its CQ returns a receive completed in error (which can come before the Terminate is written: a
     * Send longer than its receive). Only then does the peer read what jndk answered (a slow peer: the Terminate may
     * still sit in jndk's send queue or unread in the peer's while jndk's side closes).
     */
    private Seen once(Case c, boolean crc, List<String> examples) throws Exception {
        HostileKit.Accepting a = kit.prepare(1);
        List<CompletableFuture<Void>> closes = new ArrayList<>();
        AtomicBoolean closing = new AtomicBoolean();
        Runnable closeAll = () -> {
            if (closing.compareAndSet(false, true)) {
                synchronized (closes) {
                    closes.add(kit.closeLater(a.connector)); // an abortive close of a connected connector: a reset
                    closes.add(kit.closeLater(a.qp));
                }
            }
        };
        a.onDisconnect = closeAll;
        List<NdkResultEx> receives = new ArrayList<>();
        Seen result;
        try (RawPeer peer = RawPeer.establish(kit.address, crc, c.ord())) {
            assertThat(NtStatus.name(HostileKit.join(a.accepted))).as("accept").isEqualTo("STATUS_SUCCESS");
            byte[] frames = c.attack().frames(target, peer);
            if (frames == null) {
                // the provider's abort: the consumer closes its QP while connected, then its connector (the local
                // connector hears no disconnect after its own abort)
                closing.set(true);
                synchronized (closes) {
                    closes.add(kit.closeLater(a.qp));
                    closes.add(kit.closeLater(a.connector));
                }
            }
            CompletableFuture<byte[]> early = PEER_READS_AT_ONCE.contains(c.name())
                ? CompletableFuture.supplyAsync(() -> {
                    try {
                        return peer.readUntilTerminate();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, r -> Thread.ofVirtual().start(r)) : null;
            try {
                peer.write(frames == null ? trailing(peer) : RawPeer.concat(frames, trailing(peer)));
            } catch (IOException e) {
                note(examples, "reset while the peer wrote: " + e); // jndk's side is gone: the read below tells
            }
            // the consumer polls its CQ meanwhile and closes at its first receive completed in error
            HostileKit.await("the consumer's closes", () -> {
                poll(receives);
                if (receives.stream().anyMatch(r -> r.status != NtStatus.STATUS_SUCCESS)) {
                    closeAll.run();
                }
                synchronized (closes) {
                    return closes.size() == 2 && closes.get(frames == null ? 1 : 0).isDone();
                }
            });
            result = read(peer, c, early, examples);
        }
        for (CompletableFuture<Void> f : closes) {
            f.get(WAIT_NANOS, TimeUnit.NANOSECONDS);
        }
        HostileKit.await(RECEIVES + " receive completions", () -> {
            poll(receives);
            return receives.size() >= RECEIVES;
        });
        return result;
    }

    /** Takes the receive completions the kit's CQ holds now (initiator completions are skipped). */
    private void poll(List<NdkResultEx> into) {
        NdkResultEx[] r = {new NdkResultEx()};
        while (kit.cq.getCqResultsEx(r, 1) == 1) {
            if (r[0].type == NdkOperationType.RECEIVE || r[0].type == NdkOperationType.RECEIVE_AND_INVALIDATE) {
                into.add(r[0]);
            }
            r[0] = new NdkResultEx();
        }
    }

    /** What the peer sends behind its attack: 16 Sends of 1 KiB (never placed: jndk has failed by then). */
    private static byte[] trailing(RawPeer peer) {
        byte[] payload = new byte[1024];
        Arrays.fill(payload, (byte) 0x3C);
        byte[] all = new byte[0];
        for (int i = 0; i < 16; i++) {
            all = RawPeer.concat(all, peer.send(100 + i, payload));
        }
        return all;
    }

    /** @param early the Terminate read from the start, or null: read it now */
    private static Seen read(RawPeer peer, Case c, CompletableFuture<byte[]> early, List<String> examples) {
        byte[] fpdu;
        try {
            fpdu = early != null ? early.get(WAIT_NANOS, TimeUnit.NANOSECONDS) : peer.readUntilTerminate();
        } catch (IOException | AssertionError | java.util.concurrent.ExecutionException
                 | java.util.concurrent.TimeoutException | InterruptedException e) {
            note(examples, "no Terminate: " + e);
            return Seen.NO_TERMINATE;
        }
        RawPeer.Terminate t = peer.decodeTerminate(fpdu);
        if (t.code() != c.expected()) {
            note(examples, "wrong Terminate " + t);
            return Seen.WRONG_TERMINATE;
        }
        try {
            peer.socket.shutdownOutput();
            byte[] after = readUntilOrderlyClose(peer);
            assertThat(after).as("nothing after the Terminate").isEmpty();
        } catch (IOException e) {
            note(examples, "reset after the Terminate: " + e);
            return Seen.RESET_AFTER_TERMINATE;
        }
        return Seen.TERMINATE;
    }

    /** Reads until EOF; a reset is thrown (unlike {@link CmTestSupport#readUntilClose}). */
    private static byte[] readUntilOrderlyClose(RawPeer peer) throws IOException {
        return peer.socket.getInputStream().readAllBytes();
    }

    private static void note(List<String> examples, String what) {
        if (examples.size() < 3) {
            examples.add(what);
        }
    }
}
