package io.jndk.conformance.roce;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Conn;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The RC transport's reliability end to end, over real UDP sockets, through {@link UdpFaultRelay}: for each of 200
 * seeds a fresh connection carries a seeded mix of Writes, Reads and Sends while the relay drops, duplicates, reorders
 * and delays data packets at seeded rates; every request completes exactly once, successfully, in order, with every
 * byte where it belongs. With every data packet dropped, the requests complete with the retry-exceeded error
 * (STATUS_IO_TIMEOUT) once the local ACK timeout has expired retry + 1 times.
 */
@Timeout(600)
class RoceLossTest {
    static final int SEEDS = 200;
    static final int OPS = 6;
    static final int MAX = 48 * 1024;
    /**
     * The local ACK timeout exponent the test's adapters use: 4.096 us x 2^14 = 67 ms, well above the relay's longest
     * delay (8 ms) and the scheduling delays of a loaded two-core machine, so that retry exhaustion (eight timeouts
     * in a row without progress) is not an outcome of these seeds.
     */
    static final int ACK_TIMEOUT = 14;
    static final int RETRY = 7;

    World w;
    UdpFaultRelay relay;
    NdkAdapter a;
    NdkAdapter b;
    NdkPd pdA;
    NdkPd pdB;
    NdkCq cqA;
    NdkCq cqB;
    Conn.Listening listening;
    Buffer src;
    Buffer dst;
    NdkMr srcMr;
    NdkMr dstMr;

    /** Notifications of {@link #cqA} (armed by the inline-notification test only). */
    final List<Thread> notifiedOn = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void open() throws IOException {
        open("dispatcher", false);
    }

    /** Opens the relay and both adapters with {@code notify} and {@code poll} (the roce device's polling mode). */
    private void open(String notify, boolean poll) throws IOException {
        int portA = freeUdpPort();
        int portB = freeUdpPort();
        relay = new UdpFaultRelay(portA, portB);
        w = new World(new Mode("roce", false));
        a = w.adapter(Map.of("udp.port", "" + portA, "udp.peer.port", "" + relay.portForA(), "ack.timeout", "" + ACK_TIMEOUT,
            "retry", "" + RETRY, "notify", notify, "poll", "" + poll));
        b = w.adapter(Map.of("udp.port", "" + portB, "udp.peer.port", "" + relay.portForB(), "ack.timeout", "" + ACK_TIMEOUT,
            "retry", "" + RETRY, "notify", notify, "poll", "" + poll));
        pdA = w.pd(a);
        pdB = w.pd(b);
        cqA = w.cq(a, 256, (context, status) -> notifiedOn.add(Thread.currentThread()));
        cqB = w.cq(b, 256);
        listening = Conn.listen(w, b);
        src = w.buffer(OPS * MAX);
        dst = w.buffer(OPS * MAX);
        srcMr = w.registerAll(pdA, src);
        dstMr = w.registerAll(pdB, dst);
    }

    @AfterEach
    void close() throws IOException {
        try {
            w.close();
        } finally {
            relay.close();
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramChannel c = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return ((InetSocketAddress) c.getLocalAddress()).getPort();
        }
    }

    /** A connected QP pair over the relay (the CM's datagrams pass untouched). */
    private record Link(NdkQp qa, NdkQp qb, NdkConnector ca, NdkConnector cb) {}

    private Link connect(String name) {
        NdkQp qa = w.qp(pdA, cqA, cqA, name + "A", 64, 64, 2, 2, 0);
        NdkQp qb = w.qp(pdB, cqB, cqB, name + "B", 64, 64, 2, 2, 0);
        NdkConnector ca = Conn.connector(w, a);
        CompletableFuture<Integer> connect = Conn.connect(ca, qa, listening.address, 8, 8, null);
        NdkConnector cb = listening.next();
        CompletableFuture<Integer> accept = Conn.accept(cb, qb, 8, 8, null, null);
        assertThat(Kit.await(connect)).as("connect").isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Conn.completeConnect(ca, null)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(Kit.await(accept)).as("accept").isEqualTo(NtStatus.STATUS_SUCCESS);
        return new Link(qa, qb, ca, cb);
    }

    private void release(Link l) {
        for (var o : List.of(l.ca(), l.cb(), l.qa(), l.qb())) {
            Kit.close(o);
            w.untrack(o);
        }
    }

    @Test
    void everyRequestCompletesExactlyOnceWithItsDataThroughLossDuplicationReorderingAndDelay() {
        long requests = 0;
        for (int seed = 1; seed <= SEEDS; seed++) {
            Random r = new Random(seed);
            relay.faults(UdpFaultRelay.Faults.NONE, seed);
            Link l = connect("s" + seed);
            // up to 10 % loss each way: a round trip then fails with at most 19 %, and eight in a row (the retry
            // budget) with about 2e-6, so retry exhaustion is not an expected outcome of these seeds
            relay.faults(new UdpFaultRelay.Faults(0.1 * r.nextDouble(), 0.1 * r.nextDouble(), 0.1 * r.nextDouble(),
                0.1 * r.nextDouble(), 1 + r.nextInt(8)), seed);
            src.fillRandom(seed);
            dst.fill((byte) 0);
            Map<String, int[]> posted = new HashMap<>(); // context -> {kind, offset, length}
            List<String> order = new ArrayList<>();
            for (int i = 0; i < OPS; i++) {
                int kind = r.nextInt(3);
                int off = i * MAX;
                int len = 1 + r.nextInt(MAX);
                String ctx = "s" + seed + "op" + i;
                NdkSge[] local = {src.sge(off, len, srcMr.getLocalToken())};
                int s = switch (kind) {
                    case 0 -> l.qa().write(ctx, local, 1, dst.address() + off, dstMr.getRemoteToken(), 0);
                    case 1 -> {
                        // the Read fetches B's bytes: put A's seeded bytes there first, without the wire
                        dst.segment().asSlice(off, len).copyFrom(src.segment().asSlice(off, len));
                        src.segment().asSlice(off, len).fill((byte) 0x5A);
                        yield l.qa().read(ctx, new NdkSge[] {src.sge(off, len, srcMr.getLocalToken())}, 1,
                            dst.address() + off, dstMr.getRemoteToken(), 0);
                    }
                    default -> {
                        assertThat(l.qb().receive("rx" + ctx, new NdkSge[] {dst.sge(off, len, dstMr.getLocalToken())}, 1))
                            .isEqualTo(NtStatus.STATUS_SUCCESS);
                        yield l.qa().send(ctx, local, 1, 0);
                    }
                };
                assertThat(s).as("post %s", ctx).isEqualTo(NtStatus.STATUS_SUCCESS);
                posted.put(ctx, new int[] {kind, off, len});
                order.add(ctx);
            }
            List<Object> completed = new ArrayList<>();
            for (int i = 0; i < OPS; i++) {
                NdkResultEx x = Kit.poll(cqA);
                assertThat(NtStatus.describe(x.status)).as("seed %d: %s (relay: dropped %d, duplicated %d, reordered %d,"
                    + " delayed %d)", seed, x.requestContext, relay.dropped.get(), relay.duplicated.get(),
                    relay.reorderedCount.get(), relay.delayedCount.get())
                    .isEqualTo(NtStatus.describe(NtStatus.STATUS_SUCCESS));
                completed.add(x.requestContext);
            }
            assertThat(completed).as("seed %d: each request once, in posting order", seed).containsExactlyElementsOf(order);
            for (String ctx : order) {
                int[] p = posted.get(ctx);
                if (p[0] == 2) {
                    NdkResultEx rx = Kit.poll(cqB);
                    assertThat(rx.status).isEqualTo(NtStatus.STATUS_SUCCESS);
                    assertThat(rx.requestContext).isEqualTo("rx" + ctx);
                    assertThat(rx.type).isEqualTo(NdkOperationType.RECEIVE);
                    assertThat(rx.bytesTransferred).isEqualTo(p[2]);
                }
                // Write and Send: B's bytes are A's; Read: A's bytes are B's
                dst.assertSame(p[1], src, p[1], p[2]);
            }
            Kit.assertEmpty(cqA);
            Kit.assertEmpty(cqB);
            requests += OPS;
            relay.faults(UdpFaultRelay.Faults.NONE, seed);
            release(l);
        }
        System.out.printf("roce loss: %d seeds, %d requests; relay forwarded %d, dropped %d, duplicated %d, reordered %d,"
            + " delayed %d; retransmitted request packets %d%n", SEEDS, requests, relay.forwarded.get(), relay.dropped.get(),
            relay.duplicated.get(), relay.reorderedCount.get(), relay.delayedCount.get(), relay.retransmissions.get());
        assertThat(relay.dropped.get()).as("the relay did drop packets").isPositive();
        assertThat(relay.retransmissions.get()).as("the requesters retransmitted").isPositive();
    }

    @Test
    void withEveryDataPacketLostTheRequestsEndInRetryExceededAfterTheDocumentedTimeout() {
        Link l = connect("lost");
        relay.dropAll = true;
        long t0 = System.nanoTime();
        assertThat(l.qa().write("w1", new NdkSge[] {src.sge(0, 4096, srcMr.getLocalToken())}, 1, dst.address(),
            dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(l.qa().write("w2", new NdkSge[] {src.sge(4096, 64, srcMr.getLocalToken())}, 1, dst.address() + 4096,
            dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        NdkResultEx first = Kit.poll(cqA);
        long elapsed = System.nanoTime() - t0;
        NdkResultEx second = Kit.poll(cqA);
        assertThat(first.requestContext).isEqualTo("w1");
        assertThat(NtStatus.describe(first.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_IO_TIMEOUT));
        assertThat(second.requestContext).isEqualTo("w2");
        assertThat(NtStatus.describe(second.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
        long timeout = 4096L * (1L << ACK_TIMEOUT); // nanoseconds: 4.096 us x 2^t
        System.out.printf("roce 100%% loss: retry exceeded after %.1f ms (documented: %d x %.2f ms = %.1f ms)%n",
            elapsed / 1e6, RETRY + 1, timeout / 1e6, (RETRY + 1) * timeout / 1e6);
        assertThat(elapsed).as("not before retry + 1 timeouts").isGreaterThanOrEqualTo((RETRY + 1) * timeout);
        relay.dropAll = false;
        Kit.close(l.ca());
        w.untrack(l.ca());
        Kit.close(l.cb());
        w.untrack(l.cb());
    }

    /**
     * The retry-exceeded completion that the device's timers end is notified on the device's thread (notify=inline)
     * with nobody polling: the engine runs what the timers deferred before it waits again, and every request
     * still completes once.
     */
    @ParameterizedTest(name = "poll={0}")
    @ValueSource(booleans = {false, true})
    void withEveryDataPacketLostAnInlineNotificationReportsTheRetryExceededCompletion(boolean poll) throws IOException {
        close();
        open("inline", poll); // with poll=true the write leaves on this thread, which arms the ACK timer too
        Link l = connect("lostInline");
        relay.dropAll = true;
        cqA.armCq(io.jndk.api.NdkCqNotifyType.ANY);
        assertThat(l.qa().write("w1", new NdkSge[] {src.sge(0, 4096, srcMr.getLocalToken())}, 1, dst.address(),
            dstMr.getRemoteToken(), 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrueOrTimeout(() -> !notifiedOn.isEmpty());
        assertThat(notifiedOn).as("one notification, nobody polling").hasSize(1);
        assertThat(notifiedOn.get(0).getName()).as("delivered on the device's thread").startsWith("jndk-roce");
        NdkResultEx first = Kit.poll(cqA);
        assertThat(first.requestContext).isEqualTo("w1");
        assertThat(NtStatus.describe(first.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_IO_TIMEOUT));
        Kit.assertEmpty(cqA);
        relay.dropAll = false;
        Kit.close(l.ca());
        w.untrack(l.ca());
        Kit.close(l.cb());
        w.untrack(l.cb());
    }
}
