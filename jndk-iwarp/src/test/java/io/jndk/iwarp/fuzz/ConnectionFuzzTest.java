package io.jndk.iwarp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.iwarp.cm.Rtr;
import io.jndk.iwarp.cm.RtrType;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;

/**
 * A whole iWARP connection of a jndk adapter (opened through the public API) fed arbitrary bytes after a valid MPA
 * exchange by a raw TCP client.
 *
 * <p>The adapter has a PD, a CQ, a registered buffer of {@value #LENGTH} octets with {@value #GUARD} guard octets on
 * each side, and a listener that accepts every request; each iteration creates a QP with posted receives into the
 * buffer, then the client sends a valid MPA v2 Request, reads the Reply, writes the input, half-closes and waits
 * (with a deadline) for the adapter to close its side. Checked after each iteration: no exception escaped a provider
 * thread (default uncaught handler, and no warning with a runtime exception logged under {@code io.jndk}), the guard
 * octets are untouched, the connector and the QP close, and every {@value #CHECK_EVERY} iterations (and when the
 * input asks) a fresh valid connection delivers a Send.
 *
 * <p>Input layout: octet 0 is the mode: {@code 0x01} the peer-to-peer Request (Write RTR) and a valid RTR before the
 * input, so that the connection is established (otherwise siw's rping Request, no RTR); {@code 0x02} rewrite the
 * CRCs of complete frames; {@code 0x04} C = 1 in the Request; {@code 0x08} check a valid connection afterwards;
 * {@code 0x10} point the STag and TO of tagged frames (and the source of Read Requests) at the registered buffer,
 * the TO somewhere in the guard-to-guard range. The rest is written after the MPA exchange (and RTR).
 */
class ConnectionFuzzTest {

    static final int RTR = 0x01;
    static final int FIX_CRC = 0x02;
    static final int CRC = 0x04;
    static final int CHECK = 0x08;
    static final int AIM = 0x10;

    static final int LENGTH = 4096;
    static final int GUARD = 64;
    static final byte GUARD_BYTE = (byte) 0xA5;
    static final int RECEIVES = 4;
    static final int RECEIVE_LENGTH = 256;
    static final int CHECK_EVERY = 25;
    static final long STEP_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    static final byte[] SIW_REQUEST = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "10020004" + "00010001");
    static final byte[] P2P_REQUEST = HexFormat.of().parseHex("4d504120494420526571204672616d65" + "10020004" + "8001c001");

    private static Harness harness;

    @FuzzTest(maxDuration = "30s")
    void connection(byte[] data) throws Exception {
        if (harness == null) {
            harness = new Harness();
        }
        harness.iteration(data);
    }

    @AfterAll
    static void closeAdapter() {
        Harness h = harness;
        harness = null;
        if (h != null) {
            h.close();
        }
    }

    /** The adapter and its long-lived objects, shared by all iterations. */
    static final class Harness implements AutoCloseable {
        final List<Throwable> problems = new CopyOnWriteArrayList<>();
        final Logger jndkLog = Logger.getLogger("io.jndk");
        final Handler logWatch = new Handler() {
            @Override
            public void publish(LogRecord r) {
                Throwable t = r.getThrown();
                if (r.getLevel().intValue() >= Level.WARNING.intValue()
                    && (t instanceof RuntimeException || t instanceof Error)) {
                    problems.add(new AssertionError("logged by " + r.getLoggerName() + ": " + r.getMessage(), t));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        final Thread.UncaughtExceptionHandler previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        final Arena arena = Arena.ofShared();
        final MemorySegment whole = arena.allocate(LENGTH + 2 * GUARD, 4096);
        final MemorySegment buffer = whole.asSlice(GUARD, LENGTH);
        final List<NdkClosable> objects = new ArrayList<>();
        final NdkAdapter adapter;
        final NdkPd pd;
        final NdkCq cq;
        final NdkMr mr;
        final NdkListener listener;
        final InetSocketAddress address;
        final AtomicInteger connectorsSeen = new AtomicInteger();
        final AtomicInteger connectorsClosed = new AtomicInteger();
        volatile Attempt current;
        long iterations;

        Harness() {
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> problems.add(new AssertionError("uncaught in " + t, e)));
            jndkLog.addHandler(logWatch);
            whole.fill(GUARD_BYTE);
            buffer.fill((byte) 0);
            adapter = Ndk.open(NdkOpenParameters.of("iwarp", InetAddress.getLoopbackAddress())
                .withOptions(Map.of("mpa.timeout.ms", "3000", "accept.timeout.ms", "3000")));
            pd = create(r -> adapter.createPd(null, null, r));
            cq = create(r -> adapter.createCq(1024, null, null, null, null, null, r));
            mr = create(r -> pd.createMr(false, null, null, r));
            int all = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;
            status("register", request(c -> mr.registerMr(Mdl.of(buffer), LENGTH, all, c, null)));
            listener = create(r -> adapter.createListener((ctx, connector) -> onConnect(connector), null, null, null, r));
            InetAddress lo = InetAddress.getLoopbackAddress();
            status("listen", request(c -> listener.listen(new InetSocketAddress(lo, 0), c, null)));
            Ref<InetSocketAddress> where = new Ref<>();
            status("address", listener.getLocalAddress(where, new IntRef(28)));
            address = where.get();
        }

        private void onConnect(NdkConnector connector) {
            connectorsSeen.incrementAndGet();
            Attempt a = current;
            if (a == null || a.connector != null) {
                closeQuietly(connector);
                return;
            }
            a.connector = connector;
            int s = connector.accept(a.qp, 1, 1, null, ctx -> a.disconnected.complete(null), null,
                (ctx, st) -> a.accepted.complete(st), null);
            if (s != NtStatus.STATUS_PENDING) {
                a.accepted.complete(s);
            }
        }

        private void closeQuietly(NdkClosable o) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            if (o.close(ctx -> done.complete(null), null) != NtStatus.STATUS_PENDING) {
                done.complete(null);
            }
            done.thenRun(connectorsClosed::incrementAndGet);
        }

        void iteration(byte[] data) throws Exception {
            int mode = data.length > 0 ? data[0] & 0xFF : 0;
            byte[] input = data.length > 0 ? Arrays.copyOfRange(data, 1, data.length) : data;
            iterations++;
            exchange(mode, input, false);
            if ((mode & CHECK) != 0 || iterations % CHECK_EVERY == 0) {
                exchange(RTR | (mode & CRC), new byte[0], true);
            }
        }

        /** One connection: MPA exchange, the input, close; with {@code valid}, a Send that must arrive instead. */
        private void exchange(int mode, byte[] input, boolean valid) throws Exception {
            NdkQp qp = create(r -> pd.createQp(cq, cq, "fuzz", RECEIVES, 4, 1, 1, 0, null, null, r));
            buffer.fill((byte) 0);
            for (int i = 0; i < RECEIVES; i++) {
                NdkSge sge = new NdkSge(buffer.address() + (long) i * RECEIVE_LENGTH, RECEIVE_LENGTH, mr.getLocalToken());
                status("receive", qp.receive("r" + i, new NdkSge[] {sge}, 1));
            }
            Attempt attempt = new Attempt(qp);
            current = attempt;
            try {
                talk(attempt, mode, input, valid);
            } finally {
                finish(attempt);
            }
            checkHealthy();
        }

        private void talk(Attempt attempt, int mode, byte[] input, boolean valid) throws Exception {
            try (Client client = new Client(address)) {
                byte[] request = ((mode & RTR) != 0 ? P2P_REQUEST : SIW_REQUEST).clone();
                if ((mode & CRC) != 0) {
                    request[MpaFrameFlyweight.FLAGS_OFFSET] |= MpaFrameFlyweight.FLAG_CRC;
                }
                client.write(request);
                ByteBuffer reply = client.read(MpaFrameFlyweight.HEADER_LENGTH);
                MpaFrameFlyweight r = new MpaFrameFlyweight().wrap(reply, 0);
                assertThat(r.hasKey(MpaFrameKind.REPLY)).as("Reply key").isTrue();
                assertThat(r.reject()).as("Reply rejects").isFalse();
                client.read(r.privateDataLength());
                boolean crc = r.crc() || (mode & CRC) != 0;
                if ((mode & RTR) != 0) {
                    client.write(bytes(Rtr.frame(RtrType.WRITE, crc)));
                }
                byte[] stream = input.clone();
                if (valid) {
                    ByteBuffer send = ByteBuffer.allocate(64);
                    byte[] text = "fuzz-ok!".getBytes(StandardCharsets.US_ASCII);
                    int n = new FpduEncoder(crc).untagged(send, 0, RdmapOpcode.SEND, true, 0, 0, 1, 0,
                        ByteBuffer.wrap(text), 0, text.length);
                    client.write(Arrays.copyOf(send.array(), n));
                    NdkResultEx got = poll(STEP_NANOS);
                    assertThat(got).as("the valid Send's receive completion").isNotNull();
                    assertThat(NtStatus.name(got.status)).isEqualTo("STATUS_SUCCESS");
                    assertThat(NdkOperationType.name(got.type)).isEqualTo(NdkOperationType.name(NdkOperationType.RECEIVE));
                    assertThat(got.bytesTransferred).isEqualTo(text.length);
                    byte[] placed = buffer.asSlice(0, text.length).toArray(ValueLayout.JAVA_BYTE);
                    assertThat(placed).isEqualTo(text);
                } else {
                    if ((mode & AIM) != 0) {
                        aim(stream);
                    }
                    if ((mode & FIX_CRC) != 0 && crc) {
                        FpduDecoderFuzzTest.fixCrcs(stream);
                    }
                    client.tryWrite(stream);
                }
                client.shutdownOutput();
                client.drainUntilClosed(attempt);
            }
            int accepted;
            try {
                accepted = attempt.accepted.get(STEP_NANOS, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the accept did not complete after the client closed", e);
            }
            if (valid) {
                assertThat(NtStatus.name(accepted)).as("accept of the valid connection").isEqualTo("STATUS_SUCCESS");
            }
            Feedback.state(40, accepted ^ (attempt.disconnected.isDone() ? 0x80 : 0) ^ mode);
        }

        /** Closes the connector (if one was handed over) and the QP, drains the CQ. */
        private void finish(Attempt attempt) {
            current = null;
            if (attempt.connector != null) {
                close(attempt.connector);
                connectorsClosed.incrementAndGet();
            }
            close(attempt.qp);
            NdkResultEx r;
            int n = 0;
            while ((r = poll(0)) != null) {
                Feedback.state(41 + Math.min(n++, 4), r.status ^ r.status >>> 8 ^ r.type << 4 ^ r.status >>> 24);
            }
        }

        private void checkHealthy() {
            for (int i = 0; i < GUARD; i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != GUARD_BYTE
                    || whole.get(ValueLayout.JAVA_BYTE, GUARD + LENGTH + i) != GUARD_BYTE) {
                    throw new AssertionError("guard octets around the registered buffer overwritten");
                }
            }
            if (!problems.isEmpty()) {
                AssertionError e = new AssertionError(problems.size() + " problem(s) on provider threads", problems.get(0));
                problems.clear();
                throw e;
            }
            assertThat(connectorsClosed.get()).as("connectors closed").isEqualTo(connectorsSeen.get());
        }

        /** Points tagged frames and Read Request sources at the registered buffer. */
        private void aim(byte[] s) {
            ByteBuffer b = ByteBuffer.wrap(s);
            int stag = mr.getRemoteToken();
            int p = 0;
            while (p + 4 <= s.length) {
                int ulpdu = Short.toUnsignedInt(b.getShort(p));
                int length = FpduFlyweight.fpduLength(ulpdu);
                int ddp = s[p + 2] & 0xFF;
                int opcode = s[p + 3] & 0x0F;
                if ((ddp & 0x80) != 0 && p + 16 <= s.length) {
                    b.putInt(p + 4, stag);
                    b.putLong(p + 8, target(b.getLong(p + 8)));
                } else if (opcode == RdmapOpcode.RDMA_READ_REQUEST.code() && p + 48 <= s.length) {
                    int source = p + FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH
                        + ReadRequestFlyweight.SOURCE_STAG_OFFSET;
                    b.putInt(source, stag);
                    b.putLong(source + 4, target(b.getLong(source + 4)));
                }
                p += length;
            }
        }

        private long target(long to) {
            return buffer.address() - GUARD + Long.remainderUnsigned(to, LENGTH + 2 * GUARD);
        }

        private NdkResultEx poll(long waitNanos) {
            NdkResultEx[] r = {new NdkResultEx()};
            long deadline = System.nanoTime() + waitNanos;
            while (cq.getCqResultsEx(r, 1) == 0) {
                if (System.nanoTime() - deadline >= 0) {
                    return null;
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            return r[0];
        }

        <T extends NdkObject> T create(Function<Ref<T>, Integer> call) {
            Ref<T> out = new Ref<>();
            status("create", call.apply(out));
            T o = out.get();
            assertThat(o).isNotNull();
            return o;
        }

        void close(NdkClosable o) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            if (o.close(ctx -> done.complete(null), null) != NtStatus.STATUS_PENDING) {
                done.complete(null);
            }
            try {
                done.get(STEP_NANOS, TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                throw new AssertionError("close of " + o + " did not complete", e);
            }
        }

        @Override
        public void close() {
            try {
                for (NdkClosable o : new NdkClosable[] {listener, mr, cq, pd}) {
                    close(o);
                }
                adapter.close();
                checkHealthy();
            } finally {
                jndkLog.removeHandler(logWatch);
                Thread.setDefaultUncaughtExceptionHandler(previousHandler);
                arena.close();
            }
        }
    }

    /** One connection attempt: its QP and what the adapter did with it. */
    static final class Attempt {
        final NdkQp qp;
        volatile NdkConnector connector;
        final CompletableFuture<Integer> accepted = new CompletableFuture<>();
        final CompletableFuture<Void> disconnected = new CompletableFuture<>();

        Attempt(NdkQp qp) {
            this.qp = qp;
        }
    }

    interface RequestCall {
        int call(io.jndk.api.RequestCompletion completion);
    }

    static int request(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((ctx, st) -> f.complete(st));
        if (s != NtStatus.STATUS_PENDING) {
            return s;
        }
        try {
            return f.get(STEP_NANOS, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            throw new AssertionError("request did not complete", e);
        }
    }

    static void status(String what, int s) {
        assertThat(NtStatus.name(s)).as(what).isEqualTo("STATUS_SUCCESS");
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    /** A non-blocking TCP client whose every step has a deadline. */
    static final class Client implements AutoCloseable {
        private final SocketChannel channel;
        private final Selector selector;

        Client(InetSocketAddress to) throws IOException {
            channel = SocketChannel.open(to);
            channel.configureBlocking(false);
            selector = Selector.open();
        }

        private boolean await(int op, long deadline) throws IOException {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            SelectionKey key = channel.register(selector, op);
            try {
                selector.select(Math.max(1, left));
            } finally {
                key.interestOps(0);
                selector.selectedKeys().clear();
            }
            return true;
        }

        void write(byte[] bytes) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            long deadline = System.nanoTime() + STEP_NANOS;
            while (b.hasRemaining()) {
                if (channel.write(b) == 0 && !await(SelectionKey.OP_WRITE, deadline)) {
                    throw new AssertionError("write did not finish in time");
                }
            }
        }

        /** Writes what the adapter takes; it may close or reset the connection on bad input. */
        void tryWrite(byte[] bytes) {
            try {
                write(bytes);
            } catch (IOException e) {
                // the adapter closed the connection: expected for hostile input
            }
        }

        ByteBuffer read(int n) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(n);
            long deadline = System.nanoTime() + STEP_NANOS;
            while (b.hasRemaining()) {
                int got = channel.read(b);
                if (got < 0) {
                    throw new AssertionError("connection closed after " + b.position() + " of " + n + " octets");
                }
                if (got == 0 && !await(SelectionKey.OP_READ, deadline)) {
                    throw new AssertionError("no answer in time: " + b.position() + " of " + n + " octets");
                }
            }
            return b.flip();
        }

        void shutdownOutput() {
            try {
                channel.shutdownOutput();
            } catch (IOException e) {
                // already reset
            }
        }

        /** Reads and discards until the adapter closes (or the consumer was told of the disconnect). */
        void drainUntilClosed(Attempt attempt) throws IOException {
            ByteBuffer sink = ByteBuffer.allocate(65536);
            long deadline = System.nanoTime() + STEP_NANOS;
            while (true) {
                int got;
                try {
                    got = channel.read(sink.clear());
                } catch (IOException e) {
                    return; // reset
                }
                if (got < 0 || attempt.disconnected.isDone()) {
                    return;
                }
                // wake up now and then: the consumer closes its connector when told of the disconnect, not before
                if (got == 0 && !await(SelectionKey.OP_READ, Math.min(deadline, System.nanoTime() + SLICE_NANOS))
                    && System.nanoTime() - deadline >= 0) {
                    throw new AssertionError("the adapter neither closed the connection nor reported a disconnect");
                }
            }
        }

        @Override
        public void close() throws IOException {
            selector.close();
            channel.close();
        }
    }
}
