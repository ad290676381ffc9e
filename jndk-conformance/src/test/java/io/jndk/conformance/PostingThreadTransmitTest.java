package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who sends a request outside the polling mode (docs/DECISIONS.md, "The shared engine"): on the shared engine a
 * small request that is the consumer's only initiator work goes out on the posting thread (it has completed when the
 * post returns, and {@code FPDUS_OUT_INLINE} counts it), while a large message, and the requests of a consumer that
 * streams (completions waiting unpolled), are left to the engine loop; the thread engine's posters send nothing.
 */
@Timeout(120)
class PostingThreadTransmitTest {
    private static final int LONE = 20;
    private static final int SMALL = 8, LARGE = 64 * 1024, BURST = 8, BURST_SIZE = 4096;

    /** A lone small Write: sent by its poster (most of the time: the loop may hold the transmit side for a moment). */
    @Test
    void aLoneSmallWriteGoesOutOnThePostingThreadOfTheSharedEngine() {
        try (World w = new World(new Mode("iwarp", false))) {
            Lone lone = Lone.connect(w, "shared");
            int inline = 0;
            for (long v = 1; v <= LONE; v++) {
                long before = inline(lone.p);
                lone.write(v);
                // read at once, no waiting: a Write the poster sent has completed inside its post
                boolean done = lone.p.a.cq.getCqResultsEx(new NdkResultEx[] {new NdkResultEx()}, 1) == 1;
                long sent = inline(lone.p) - before;
                assertThat(sent).as("FPDUs this poster sent").isBetween(0L, 1L);
                if (sent == 1) {
                    assertThat(done).as("a Write its poster sent has completed when the post returns").isTrue();
                    inline++;
                }
                if (!done) {
                    Kit.poll(lone.p.a.cq);
                }
                lone.awaitLanded(v);
            }
            // most of them; a quarter is asked, as a loaded machine can keep the loop on the transmit side a while
            assertThat(inline).as("lone small Writes sent by their posters, of %d", LONE).isGreaterThanOrEqualTo(LONE / 4);
        }
    }

    /** A lone 64 KiB Write, and a burst posted without reaping, are the engine loop's to send. */
    @Test
    void largeMessagesAndStreamsAreLeftToTheEngineLoop() {
        try (World w = new World(new Mode("iwarp", false))) {
            World.Pair p = w.connect(false, 64, 4, 4, Map.of("engine", "shared"));
            Buffer src = w.buffer(LARGE).fillRandom(7), dst = w.buffer(LARGE);
            NdkMr srcMr = w.registerAll(p.a.pd, src), dstMr = w.registerAll(p.b.pd, dst);
            long before = inline(p);
            write(p, src, srcMr, dst, dstMr, LARGE);
            Kit.poll(p.a.cq);
            assertThat(inline(p) - before).as("FPDUs of a 64 KiB Write sent by its poster").isZero();
            Kit.awaitTrue("the 64 KiB Write lands", () -> dst.segment().mismatch(src.segment()) < 0);

            // a consumer that posts a burst before it reaps streams: at most the first request is its poster's
            Buffer big = w.buffer(BURST * BURST_SIZE).fillRandom(11), sink = w.buffer(BURST * BURST_SIZE);
            NdkMr bigMr = w.registerAll(p.a.pd, big), sinkMr = w.registerAll(p.b.pd, sink);
            before = inline(p);
            for (int i = 0; i < BURST; i++) {
                assertThat(p.a.qp.write("w", new NdkSge[] {big.sge(i * BURST_SIZE, BURST_SIZE, bigMr.getLocalToken())}, 1,
                        sink.address() + (long) i * BURST_SIZE, sinkMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
            }
            Kit.poll(p.a.cq, BURST);
            assertThat(inline(p) - before).as("FPDUs of the burst sent by its poster").isBetween(0L, 1L);
            Kit.awaitTrue("the burst lands", () -> sink.segment().mismatch(big.segment()) < 0);
        }
    }

    /** The thread engine's posters never send outside the polling mode. */
    @Test
    void theThreadEnginesPostersSendNothing() {
        try (World w = new World(new Mode("iwarp", false))) {
            Lone lone = Lone.connect(w, "threads");
            for (long v = 1; v <= LONE; v++) {
                lone.write(v);
                Kit.poll(lone.p.a.cq);
                lone.awaitLanded(v);
            }
            assertThat(inline(lone.p)).isZero();
            assertThat(lone.p.a.adapter.counters().get(NdkCounter.FPDUS_OUT)).isGreaterThanOrEqualTo(LONE);
        }
    }

    /** A connected pair on {@code engine} with an 8-byte source at A and target at B, for lone Writes of a number. */
    private record Lone(World.Pair p, Buffer src, Buffer dst, NdkMr srcMr, NdkMr dstMr) {
        static Lone connect(World w, String engine) {
            World.Pair p = w.connect(false, 64, 4, 4, Map.of("engine", engine));
            Buffer src = w.buffer(SMALL), dst = w.buffer(SMALL);
            return new Lone(p, src, dst, w.registerAll(p.a.pd, src), w.registerAll(p.b.pd, dst));
        }

        /** Posts one Write of {@code v} (and nothing else). */
        void write(long v) {
            src.segment().set(ValueLayout.JAVA_LONG, 0, v);
            PostingThreadTransmitTest.write(p, src, srcMr, dst, dstMr, SMALL);
        }

        void awaitLanded(long v) {
            Kit.awaitTrue("the Write lands", () -> dst.segment().get(ValueLayout.JAVA_LONG, 0) == v);
        }
    }

    private static void write(World.Pair p, Buffer src, NdkMr srcMr, Buffer dst, NdkMr dstMr, int n) {
        assertThat(p.a.qp.write("w", new NdkSge[] {src.sge(0, n, srcMr.getLocalToken())}, 1, dst.address(),
                dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    private static long inline(World.Pair p) {
        return p.a.adapter.counters().get(NdkCounter.FPDUS_OUT_INLINE);
    }
}
