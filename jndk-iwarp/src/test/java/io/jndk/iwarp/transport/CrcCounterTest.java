package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A raw TCP peer sends one FPDU with a wrong MPA CRC to an adapter's connection: the adapter counts one FPDU in, one
 * CRC error, and one Terminate sent at the LLP (MPA) layer, which is its one FPDU out.
 */
@Timeout(60)
class CrcCounterTest {
    /** siw's MPA v2 Request (no ready-to-receive frame), with the CRC flag set below. */
    private static final byte[] REQUEST = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "10020004" + "00010001");
    private static final long WAIT_MS = 10_000;

    private static <T extends NdkObject> T create(Function<Ref<T>, Integer> call) {
        Ref<T> out = new Ref<>();
        assertThat(call.apply(out)).isEqualTo(NtStatus.STATUS_SUCCESS);
        return out.get();
    }

    private static int request(Function<RequestCompletion, Integer> call) throws Exception {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.apply((ctx, st) -> f.complete(st));
        return s == NtStatus.STATUS_PENDING ? f.get(WAIT_MS, TimeUnit.MILLISECONDS) : s;
    }

    private static void close(NdkClosable o) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (o.close(ctx -> done.complete(null), null) != NtStatus.STATUS_PENDING) {
            done.complete(null);
        }
        done.get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    private static byte[] readFully(InputStream in, int n) throws Exception {
        byte[] b = in.readNBytes(n);
        assertThat(b).hasSize(n);
        return b;
    }

    private static long awaitCounter(NdkAdapter a, NdkCounter c, long expected) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (a.counters().get(c) < expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        return a.counters().get(c);
    }

    @Test
    void aCorruptedCrcIsCountedAndAnsweredWithAnMpaLayerTerminate() throws Exception {
        try (NdkAdapter adapter = Ndk.open(NdkOpenParameters.of("iwarp", InetAddress.getLoopbackAddress()))) {
            NdkPd pd = create(r -> adapter.createPd(null, null, r));
            NdkCq cq = create(r -> adapter.createCq(64, null, null, null, null, null, r));
            NdkQp qp = create(r -> pd.createQp(cq, cq, "qp", 4, 4, 1, 1, 0, null, null, r));
            CompletableFuture<NdkConnector> incoming = new CompletableFuture<>();
            NdkListener listener = create(r -> adapter.createListener((ctx, c) -> incoming.complete(c), null, null, null, r));
            assertThat(request(c -> listener.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), c, null)))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
            Ref<InetSocketAddress> where = new Ref<>();
            assertThat(listener.getLocalAddress(where, new IntRef(28))).isEqualTo(NtStatus.STATUS_SUCCESS);
            NdkConnector connector = null;
            try (Socket peer = new Socket()) {
                peer.connect(where.get(), (int) WAIT_MS);
                peer.setSoTimeout((int) WAIT_MS);
                byte[] req = REQUEST.clone();
                req[MpaFrameFlyweight.FLAGS_OFFSET] |= MpaFrameFlyweight.FLAG_CRC;
                peer.getOutputStream().write(req);
                connector = incoming.get(WAIT_MS, TimeUnit.MILLISECONDS);
                NdkConnector accepting = connector;
                CompletableFuture<Integer> accepted = new CompletableFuture<>();
                int s = accepting.accept(qp, 1, 1, null, ctx -> { }, null, (ctx, st) -> accepted.complete(st), null);
                if (s != NtStatus.STATUS_PENDING) {
                    accepted.complete(s);
                }
                InputStream in = peer.getInputStream();
                MpaFrameFlyweight reply = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(readFully(in, MpaFrameFlyweight.HEADER_LENGTH)), 0);
                assertThat(reply.reject()).isFalse();
                assertThat(reply.crc()).isTrue();
                readFully(in, reply.privateDataLength());
                assertThat(accepted.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(NtStatus.STATUS_SUCCESS);

                ByteBuffer fpdu = ByteBuffer.allocate(64);
                int n = new FpduEncoder(true).tagged(fpdu, 0, RdmapOpcode.RDMA_WRITE, true, 0x123400, 0, null, 0, 0);
                byte[] bad = Arrays.copyOf(fpdu.array(), n);
                bad[n - 1] ^= 0x5A; // the CRC's last octet
                ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
                Handler capture = new Handler() {
                    @Override
                    public void publish(LogRecord r) {
                        if (r.getLevel() == Level.WARNING) {
                            logged.add(r.getMessage());
                        }
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void close() {}
                };
                Logger rxLog = Logger.getLogger(RxEngine.class.getName());
                rxLog.addHandler(capture);
                try {
                    peer.getOutputStream().write(bad);
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
                    while (logged.isEmpty() && System.nanoTime() < until) {
                        Thread.yield();
                    }
                } finally {
                    rxLog.removeHandler(capture);
                }
                // a person reading the log sees both CRCs, the frame, and how its payload arrived
                int received = ByteBuffer.wrap(bad, n - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                int computed = ByteBuffer.wrap(fpdu.array(), n - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                assertThat(logged).singleElement().asString()
                        .contains(String.format("MPA CRC mismatch: received 0x%08x, computed 0x%08x, frame 1 (ULPDU length ",
                                received, computed))
                        .contains("0 payload octets read straight into the target")
                        .contains("answered with a Terminate (LLP, CRC error)");

                assertThat(awaitCounter(adapter, NdkCounter.CRC_ERRORS, 1)).isEqualTo(1);
                assertThat(awaitCounter(adapter, NdkCounter.TERMINATES_SENT_MPA, 1)).isEqualTo(1);
                assertThat(awaitCounter(adapter, NdkCounter.FPDUS_OUT, 1)).isEqualTo(1);
                var c = adapter.counters();
                assertThat(c.get(NdkCounter.FPDUS_IN)).isEqualTo(1);
                assertThat(c.get(NdkCounter.TERMINATES_SENT)).isEqualTo(1);
                assertThat(c.get(NdkCounter.TERMINATES_SENT_RDMAP) + c.get(NdkCounter.TERMINATES_SENT_DDP)).isZero();
                assertThat(c.get(NdkCounter.TERMINATES_RECEIVED)).isZero();
                // the Terminate reaches the peer, then the adapter closes (bounded by the socket timeout)
                try {
                    assertThat(in.readAllBytes().length).isPositive();
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("the adapter did not close after its Terminate", e);
                }
            } finally {
                if (connector != null) {
                    close(connector);
                }
                close(qp);
                close(listener);
                close(cq);
                close(pd);
            }
            // once the connection is gone its counts live on in the adapter's totals
            assertThat(adapter.counters().get(NdkCounter.CRC_ERRORS)).isEqualTo(1);
            assertThat(adapter.counters().get(NdkCounter.FPDUS_OUT)).isEqualTo(1);
        }
    }
}
