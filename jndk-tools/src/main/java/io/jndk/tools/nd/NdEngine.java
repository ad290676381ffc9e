package io.jndk.tools.nd;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Listening;
import io.jndk.tools.kit.Loops;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.nd.NdProtocol.Hello;
import io.jndk.tools.nd.NdProtocol.Offer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * Runs one {@link NdTest} over iwarp: the client drives every size and prints the table; the server only serves (it
 * echoes, returns credits or lends its buffer), so it needs no iteration counts, only the client's {@link Hello}.
 */
final class NdEngine {
    /** A client step with no completion for this long fails. */
    static final long STEP_TIMEOUT_MS = 10_000;
    /** Connect's own bound (MPA answer included). */
    static final long CONNECT_TIMEOUT_MS = 5_000;
    /** A server waits for its client's next message without a deadline (the client's disconnect ends it). */
    static final long NO_DEADLINE_MS = TimeUnit.DAYS.toMillis(365);
    /** The octet a server with {@link #injectFault} spoils (sizes above it carry the fault). */
    static final int FAULT_AT = 1000;
    /** Warm-up iterations before the first size (NetworkDirect runs 1000 of 40 octets). */
    static final int WARMUP = 200;

    private final NdTest test;
    private final PrintStream out;
    private final boolean json;
    private final boolean blocking;
    private final int nSge;
    private final int depth;
    private final int maxSize;
    private final int iterations;
    private final boolean verify;
    /** Server, for tests of --verify: spoil octet {@link #FAULT_AT} of what it echoes, writes back or lends. */
    boolean injectFault;
    /** The transport: iwarp (the default) or roce. */
    String transport = "iwarp";
    /** Client: the local address to connect from, or null for the route's. */
    InetAddress bind;
    /** The server's buffer, once connected. */
    private Offer offer;

    NdEngine(NdTest test, PrintStream out, boolean json, boolean blocking, int nSge, int depth, int maxSize, int iterations,
            boolean verify) {
        this.test = test;
        this.out = out;
        this.json = json;
        this.blocking = blocking;
        this.nSge = nSge;
        this.depth = depth;
        this.maxSize = maxSize;
        this.iterations = iterations;
        this.verify = verify;
    }

    private NdkAdapter open(InetAddress at) {
        return Session.open(transport, at, transport.equals("iwarp") ? Map.of("mpa.timeout.ms", "" + CONNECT_TIMEOUT_MS)
                : Map.of());
    }

    // ---------------------------------------------------------------- client

    /** Connects to {@code server}, runs every size and prints the table. */
    void run(InetSocketAddress server) throws InterruptedException {
        InetAddress local;
        try {
            local = bind != null ? bind : Net.localAddressFor(server.getAddress());
        } catch (IOException e) {
            throw new Failure(Failure.Kind.UNREACHABLE, "no local address reaches " + server.getAddress().getHostAddress()
                    + " (" + e.getMessage() + "; check ip route get " + server.getAddress().getHostAddress() + ")");
        }
        NdkAdapter adapter = open(local);
        NdkPd pd = null;
        NdSession s = null;
        try {
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            // As NetworkDirect's tools do: a Read uses no more SGEs than the adapter takes in one.
            int sges = test.op == NdTest.Op.READ ? Math.max(1, Math.min(nSge, adapter.info().maxReadRequestSge())) : nSge;
            s = new NdSession(adapter, pd, maxSize, sges, depth, blocking);
            int reads = connect(adapter, s, local, server);
            new Client(s, reads).runAll();
        } finally {
            if (s != null) {
                s.close();
            }
            Sync.close(pd);
            adapter.close();
        }
    }

    /** Connects and returns the RDMA Read depth granted. */
    private int connect(NdkAdapter adapter, NdSession s, InetAddress local, InetSocketAddress server) {
        String at = server.getAddress().getHostAddress() + ":" + server.getPort();
        NdkConnector conn = s.session().connector();
        // Receives first: the server may Send as soon as it accepts.
        for (int i = 0; i < 4; i++) {
            if (test.op == NdTest.Op.SEND && test.pingPong) {
                s.receiveData();
            } else {
                s.receiveControl();
            }
        }
        byte[] hello = new Hello(test, s.nSge, depth, maxSize, s.address(), s.mr.getRemoteToken()).encode();
        int ord = test.op == NdTest.Op.READ ? depth : 0;
        CompletableFuture<Integer> f = Sync.start((rc, c) -> conn.connect(s.qp, new InetSocketAddress(local, 0), server, 0, ord,
                hello, rc, c));
        int st;
        try {
            st = f.get(CONNECT_TIMEOUT_MS + 2_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            st = NtStatus.STATUS_IO_TIMEOUT;
        } catch (Exception e) {
            throw new Failure("cannot connect to " + at + ": " + e);
        }
        byte[] data = new byte[256];
        IntRef length = new IntRef(data.length);
        IntRef outbound = new IntRef(0);
        if (st != NtStatus.STATUS_SUCCESS) {
            throw Failure.connect(at, conn, st, "start the server first: ./jndk " + test.tool + " -s");
        }
        Checks.check(conn.getConnectionData(null, outbound, data, length), "GetConnectionData");
        try {
            offer = Offer.decode(data, length.value);
        } catch (IllegalArgumentException e) {
            throw new Failure(at + " is not a jndk " + test.tool + " server: " + e.getMessage());
        }
        if (offer.size() < maxSize) {
            throw new Failure("the server's buffer (" + offer.size() + " octets) is smaller than --max-size " + maxSize);
        }
        Sync.request("CompleteConnect", (rc, c) -> conn.completeConnect(x -> s.onDisconnect(), null, rc, c));
        return Math.max(1, Math.min(depth, outbound.value));
    }

    /** The client's loops, one per kind of test. */
    private final class Client {
        private final NdSession s;
        private final int inFlight;
        private final int batch = Math.max(1, depth / 2);
        private int credits = depth;

        Client(NdSession s, int reads) {
            this.s = s;
            this.inFlight = test.pingPong ? 1 : test.op == NdTest.Op.READ ? reads : depth;
        }

        void runAll() throws InterruptedException {
            NdReport report = new NdReport(out, json, test.tool, NdReport.TRANSFER);
            report.header((blocking ? "Blocking" : "Polling") + ", " + s.nSge + " SGE" + (s.nSge > 1 ? "s" : "") + ", "
                    + (test.pingPong ? "ping-pong" : inFlight + " in flight") + ".");
            exercise(Math.min(40, maxSize), Math.min(WARMUP, iterations));
            NdReport.Meter m = new NdReport.Meter(false);
            for (int size = 1; size <= maxSize; size <<= 1) {
                int iters = NdTest.iterations(size, iterations);
                m.start();
                exercise(size, iters);
                m.stop();
                // Ping-pong over Send or Write: a round trip carries the size twice; latency is half of it.
                int ways = test.pingPong && test.op != NdTest.Op.READ ? 2 : 1;
                report.row(size, iters, m.micros() / iters / ways, m.cpuPercent(), (double) ways * size * iters / m.seconds());
            }
            if (test == NdTest.PING) {
                finish();
            }
            NdkConnector c = s.session().connection();
            Sync.get(Sync.start((rc, x) -> c.disconnect(rc, x)), "Disconnect");
        }

        private NdkResultEx next() {
            NdkResultEx r = s.next(STEP_TIMEOUT_MS);
            if (r == null) {
                throw new Failure("the server closed the connection during the test (see its output)");
            }
            return r;
        }

        private void exercise(int size, int iters) {
            switch (test) {
                case PING -> sends(size, iters);
                case PINGPONG -> sendPingPong(size, iters);
                case WPINGPONG -> writePingPong(size, iters);
                default -> rdma(size, iters);
            }
        }

        /**
         * Up to {@code -q} Sends in flight, within the receive credits the server returns: a credit can come back
         * before this side has reaped the Sends it covers, so the credits alone would let more than {@code -q} Sends
         * (the send queue's depth) be outstanding.
         */
        private void sends(int size, int iters) {
            Loops.stream(window(iters, (posted, done) -> credits > 0 && posted - done < depth, i -> {
                s.sendData(size, false);
                credits--;
            }, () -> {
                if (next().type == NdkOperationType.SEND) {
                    return 1;
                }
                credits += batch;
                s.receiveControl();
                return 0;
            }));
        }

        /** Whether one more may be posted with {@code done} of {@code posted} completed. */
        private interface Room {
            boolean test(long posted, long done);
        }

        /**
         * {@code iters} operations within {@code room}, one completion at a time ({@code take}: how many
         * operations the next completion ends); no idle step: {@link #next} waits.
         */
        private Loops.Window window(int iters, Room room, LongConsumer post, IntSupplier take) {
            return new Loops.Window() {
                @Override
                public boolean more(long posted) {
                    return posted < iters;
                }

                @Override
                public boolean room(long posted, long done) {
                    return room.test(posted, done);
                }

                @Override
                public void post(long i) {
                    post.accept(i);
                }

                @Override
                public int reap(long done) {
                    return take.getAsInt();
                }

                @Override
                public void pass(int reaped, boolean posted) {
                    // next() waited already
                }
            };
        }

        /** The end of an ndping run: an empty Send the server answers with an empty Send once all data arrived. */
        private void finish() {
            s.sendData(0, false);
            while (true) {
                NdkResultEx r = next();
                if (r.type == NdkOperationType.RECEIVE) {
                    if (r.bytesTransferred == 0) {
                        return;
                    }
                    s.receiveControl();
                }
            }
        }

        private void sendPingPong(int size, int iters) {
            for (int i = 0; i < iters; i++) {
                clear(size);
                s.sendData(size, false);
                for (int got = 0; got < 2; got++) {
                    if (next().type == NdkOperationType.RECEIVE) {
                        s.receiveData();
                    }
                }
                check(size, i);
            }
        }

        private void writePingPong(int size, int iters) {
            for (int i = 0; i < iters; i++) {
                clear(size);
                s.write(size, false, offer.address(), offer.token());
                s.control(0, size);
                s.sendControl(4);
                for (int got = 0; got < 3; got++) {
                    if (next().type == NdkOperationType.RECEIVE) {
                        s.receiveControl();
                    }
                }
                check(size, i);
            }
        }

        /** With --verify: zeroes what the next transfers must fill. */
        private void clear(int size) {
            if (verify) {
                s.clearSink(size);
            }
        }

        /** With --verify: what came back must be the pattern the source region holds (and the server lends). */
        private void check(int size, int iteration) {
            long at = verify ? s.mismatch(size) : -1;
            if (at >= 0) {
                throw new Failure(Failure.Kind.VERIFY, String.format(java.util.Locale.ROOT,
                        "data mismatch at size %d, iteration %d: octet %d is 0x%02x, expected 0x%02x (try --crc on both"
                                + " sides to see whether the wire corrupts it)", size, iteration, at,
                        s.sink().get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) & 0xFF, NdSession.pattern(at) & 0xFF));
            }
        }

        /** RDMA Reads or Writes, up to the in-flight limit. */
        private void rdma(int size, int iters) {
            boolean read = test.op == NdTest.Op.READ;
            if (read) {
                clear(size);
            }
            Loops.stream(window(iters, (issued, done) -> issued - done < inFlight, i -> {
                if (read) {
                    s.read(size, offer.address(), offer.token());
                } else {
                    s.write(size, false, offer.address(), offer.token());
                }
            }, () -> {
                next();
                return 1;
            }));
            if (read) {
                check(size, iters - 1);
            }
        }
    }

    // ---------------------------------------------------------------- server

    /**
     * Listens on {@code at} and serves one client run (or, {@code persistent}, one after another); a client it rejects
     * does not count.
     */
    void serve(InetSocketAddress at, boolean persistent) throws InterruptedException {
        NdkAdapter adapter = open(at.getAddress());
        NdkPd pd = null;
        Listening listener = null;
        try {
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            listener = new Listening(a);
            listener.listen(at);
            InetSocketAddress bound = listener.bound();
            out.println(test.tool + ": listening on " + bound.getAddress().getHostAddress() + ":" + bound.getPort());
            out.flush();
            boolean served = false;
            while (persistent || !served) {
                served = serveOne(adapter, pd, listener.take());
            }
        } finally {
            if (listener != null) {
                listener.close();
            }
            Sync.close(pd);
            adapter.close();
        }
    }

    /** Serves one connection request; false when it was rejected. */
    private boolean serveOne(NdkAdapter adapter, NdkPd pd, NdkConnector conn) throws InterruptedException {
        byte[] data = new byte[256];
        IntRef length = new IntRef(data.length);
        Hello hello;
        try {
            Checks.check(conn.getConnectionData(null, null, data, length), "GetConnectionData");
            hello = Hello.decode(data, length.value);
            if (hello.test() != test) {
                throw new IllegalArgumentException("this is a " + test.tool + " server; the client runs " + hello.test().tool);
            }
            if (hello.maxSize() < 1 || hello.maxSize() > NdTest.MAX_SIZE || hello.nSge() < 1 || hello.nSge() > 16
                    || hello.depth() < 1 || hello.depth() > 128) {
                throw new IllegalArgumentException("parameters out of range: " + hello);
            }
        } catch (IllegalArgumentException e) {
            conn.reject(NdProtocol.reason("jndk " + test.tool + ": " + e.getMessage()));
            Sync.close(conn);
            out.println(test.tool + ": rejected a client: " + e.getMessage());
            out.flush();
            return false;
        }
        try (NdSession s = new NdSession(adapter, pd, hello.maxSize(), hello.nSge(), hello.depth() + 1, blocking)) {
            s.session().adopt(conn);
            Hello h = hello;
            int posted = test == NdTest.PING ? h.depth() + 1 : 2;
            for (int i = 0; i < posted; i++) {
                if (test.op == NdTest.Op.SEND) {
                    s.receiveData();
                } else {
                    s.receiveControl();
                }
            }
            if (test.op == NdTest.Op.READ) {
                s.lendPattern();
                spoil(s, s.maxSize);
            }
            byte[] offer = new Offer(s.address(), s.mr.getRemoteToken(), hello.maxSize()).encode();
            int ird = test.op == NdTest.Op.READ ? h.depth() : 0;
            Sync.request("Accept", (rc, c) -> conn.accept(s.qp, ird, 0, offer, x -> s.onDisconnect(), null, rc, c));
            switch (test) {
                case PING -> returnCredits(s, Math.max(1, h.depth() / 2));
                case PINGPONG -> echo(s);
                case WPINGPONG -> writeBack(s, h);
                default -> s.awaitDisconnect();
            }
        }
        return true;
    }

    private void spoil(NdSession s, int size) {
        if (injectFault && size > FAULT_AT) {
            s.sink().set(java.lang.foreign.ValueLayout.JAVA_BYTE, FAULT_AT, (byte) ~NdSession.pattern(FAULT_AT));
        }
    }

    private static void returnCredits(NdSession s, int batch) throws InterruptedException {
        int granted = 0;
        for (NdkResultEx r; (r = s.next(NO_DEADLINE_MS)) != null; ) {
            if (r.type != NdkOperationType.RECEIVE) {
                continue;
            }
            if (r.bytesTransferred == 0) {
                s.sendControl(0); // the end: everything before it arrived
                s.awaitDisconnect();
                return;
            }
            s.receiveData();
            if (++granted == batch) {
                s.sendControl(1);
                granted = 0;
            }
        }
    }

    private void echo(NdSession s) {
        for (NdkResultEx r; (r = s.next(NO_DEADLINE_MS)) != null; ) {
            if (r.type == NdkOperationType.RECEIVE) {
                int size = r.bytesTransferred;
                s.receiveData();
                spoil(s, size);
                s.sendData(size, true);
            }
        }
    }

    private void writeBack(NdSession s, Hello h) {
        for (NdkResultEx r; (r = s.next(NO_DEADLINE_MS)) != null; ) {
            if (r.type == NdkOperationType.RECEIVE) {
                int size = s.control(NdSession.CTL_RECEIVE);
                s.receiveControl();
                if (size < 1 || size > s.maxSize) {
                    throw new Failure("the client announced a write of " + size + " octets (largest " + s.maxSize + ")");
                }
                spoil(s, size);
                s.write(size, true, h.address(), h.token());
                s.control(0, size);
                s.sendControl(4);
            }
        }
    }
}
