package io.jndk.tools;

import io.jndk.api.Mdl;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.IntRef;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jndk perf}: connects two QPs over the provider, registers memory, runs RDMA Write, RDMA Read and
 * Send at a few sizes, verifies the bytes, and prints bandwidth and latency.
 */
@Command(name = "perf", mixinStandardHelpOptions = true,
        description = {"Demonstration and benchmark: write, read and send between two QPs, every transfer verified.",
                "Without --server or --client both QPs live in this process; with them, in two processes (iwarp)."},
        footer = {"", "Examples:", "  ./jndk perf", "  ./jndk perf --op write -s 65536 -n 20000", "  ./jndk perf --json",
                "  ./jndk perf --server                        serve clients on 127.0.0.1:" + PerfCommand.DEFAULT_PORT
                        + " until killed",
                "  ./jndk perf --client 127.0.0.1 --op send -s 4096"})
final class PerfCommand implements Callable<Integer> {
    /** The TCP port of {@code --server} and {@code --client} unless {@code --port} is given. */
    static final int DEFAULT_PORT = 7471;

    @Option(names = "--transport", description = "Transport (default: loopback in one process, iwarp with --server/--client).")
    String transport;

    @Option(names = "--server", description = "Serve perf clients in this process, one connection after another.")
    boolean server;

    @Option(names = "--client", paramLabel = "HOST", description = "Run against the perf server at HOST.")
    String client;

    @Option(names = "--port", defaultValue = "" + DEFAULT_PORT,
            description = "Server port (default: ${DEFAULT-VALUE}; 0 with --server picks a free one).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Local address: the server listens on it (default 127.0.0.1); the client connects from it"
                    + " (default: the address the route to HOST leaves from).")
    String bind;

    @Option(names = "--once", description = "With --server: exit after one connection.")
    boolean once;

    @Option(names = "--connections", paramLabel = "N",
            description = "With --server: exit after N connections (the client makes one per size and operation).")
    int connections;

    @Option(names = "--inject-fault", hidden = true,
            description = "With --server: one wrong byte in the buffer served to Reads and in the pattern Sends are checked"
                    + " against (tests the verification).")
    boolean injectFault;

    @Option(names = "--seed", description = "With --client: seed of the data pattern (default: random).")
    Long seed;

    @Option(names = "--op", split = ",", defaultValue = "write,read,send", description = "Operations: write, read, send.")
    List<String> ops;

    @Option(names = {"-s", "--size"}, split = ",", defaultValue = "8,4096,65536,1048576", description = "Message sizes in bytes.")
    List<Integer> sizes;

    @Option(names = {"-n", "--iters"}, description = "Iterations per size and operation (default: by size).")
    Integer iters;

    @Option(names = "--depth", defaultValue = "16", description = "Operations in flight (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--json", description = "Print one JSON record per size and operation.")
    boolean json;

    @Option(names = "--crc", description = "Ask for MPA CRC32c on every FPDU (iwarp).")
    boolean crc;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Capture every iWARP frame sent and received to FILE (pcap).")
    String pcap;

    /** One measured row. */
    record Row(int size, String op, int iters, double gbytesPerSec, double mmsgPerSec, double p50us, double p99us,
            double maxus, boolean verified) {}

    private NdkAdapter a, b;
    private NdkPd pdA, pdB;
    private NdkCq cqA, cqB;
    private NdkQp qpA, qpB;
    private NdkListener listener;
    private NdkConnector connA, connB;
    private final List<NdkMr> mrs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        for (String op : ops) {
            if (!List.of("write", "read", "send").contains(op)) {
                throw new IllegalArgumentException("unknown --op " + op + " (write, read or send)");
            }
        }
        for (int size : sizes) {
            if (size < 1 || size > PerfProtocol.MAX_SIZE) {
                throw new IllegalArgumentException("size " + size + " outside 1.." + PerfProtocol.MAX_SIZE);
            }
        }
        if (depth < 1 || depth > 1024) {
            throw new IllegalArgumentException("--depth " + depth + " outside 1..1024");
        }
        if (server && client != null) {
            throw new IllegalArgumentException("--server and --client exclude each other");
        }
        if (server) {
            InetAddress at = InetAddress.getByName(bind == null ? "127.0.0.1" : bind);
            return new PerfServer(transport == null ? "iwarp" : transport, at, port, once ? 1 : connections, crc, pcap,
                    injectFault, System.out, System.err).run();
        }
        if (client != null) {
            InetAddress host;
            try {
                host = InetAddress.getByName(client);
            } catch (java.net.UnknownHostException e) {
                System.err.println("jndk perf: unknown host " + client);
                return 2;
            }
            return new PerfClient(transport == null ? "iwarp" : transport, client, new InetSocketAddress(host, port),
                    bind == null ? null : InetAddress.getByName(bind), ops, sizes, this::itersFor, depth, crc, pcap,
                    seed != null ? seed : new SplittableRandom().nextLong(), json, System.out, System.err).run();
        }
        if (transport == null) {
            transport = "loopback";
        }
        int maxSize = sizes.stream().mapToInt(Integer::intValue).max().orElse(4096);
        List<Row> rows = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            setUp();
            MemorySegment src = arena.allocate(maxSize, 4096);
            MemorySegment dst = arena.allocate(maxSize, 4096);
            NdkMr srcA = register(pdA, src), dstB = register(pdB, dst);
            MemorySegment readSrc = arena.allocate(maxSize, 4096);
            MemorySegment readDst = arena.allocate(maxSize, 4096);
            NdkMr readSrcB = register(pdB, readSrc), readDstA = register(pdA, readDst);
            if (!json) {
                System.out.printf(Locale.ROOT, "jndk perf: %s transport, two adapters in one process, %d in flight%n%n", transport,
                        depth);
                printHeader(System.out);
            }
            for (int size : sizes) {
                for (String op : ops) {
                    Row r = switch (op) {
                        case "write" -> run("write", size, src, srcA, dst, dstB);
                        case "read" -> run("read", size, readSrc, readSrcB, readDst, readDstA);
                        default -> run("send", size, src, srcA, dst, dstB);
                    };
                    rows.add(r);
                    print(r);
                }
            }
            tearDown();
        }
        boolean ok = rows.stream().allMatch(Row::verified);
        if (!json) {
            System.out.println();
            System.out.println(ok ? "All data verified: every transfer's bytes matched the source."
                    : "DATA MISMATCH: see the rows marked FAILED.");
        }
        return ok ? 0 : 1;
    }

    private void print(Row r) {
        printRow(System.out, r, json, transport);
    }

    static void printHeader(PrintStream out) {
        out.printf(Locale.ROOT, "%9s  %-5s  %7s  %8s  %8s  %8s  %9s  %9s  %9s  %s%n", "size", "op", "iters", "GB/s", "Gbit/s",
                "Mmsg/s", "p50 us", "p99 us", "max us", "data");
    }

    static void printRow(PrintStream out, Row r, boolean json, String transport) {
        if (json) {
            out.printf(Locale.ROOT,
                    "{\"transport\":\"%s\",\"size\":%d,\"op\":\"%s\",\"iters\":%d,\"gbytes_per_s\":%.4f,\"gbits_per_s\":%.4f,"
                            + "\"mmsg_per_s\":%.4f,\"lat_p50_us\":%.2f,\"lat_p99_us\":%.2f,\"lat_max_us\":%.2f,\"verified\":%b}%n",
                    transport, r.size(), r.op(), r.iters(), r.gbytesPerSec(), r.gbytesPerSec() * 8, r.mmsgPerSec(), r.p50us(),
                    r.p99us(), r.maxus(), r.verified());
        } else {
            out.printf(Locale.ROOT, "%9d  %-5s  %7d  %8.3f  %8.2f  %8.3f  %9.2f  %9.2f  %9.2f  %s%n", r.size(), r.op(),
                    r.iters(), r.gbytesPerSec(), r.gbytesPerSec() * 8, r.mmsgPerSec(), r.p50us(), r.p99us(), r.maxus(),
                    r.verified() ? "verified" : "FAILED");
        }
        out.flush();
    }

    private int itersFor(int size) {
        if (iters != null) {
            return iters;
        }
        return (int) Math.max(200, Math.min(50_000, (512L << 20) / Math.max(size, 1)));
    }

    /**
     * Runs one operation: a bandwidth phase with {@code depth} requests in flight, a latency phase of single
     * requests, and verification of the destination bytes after each phase.
     */
    private Row run(String op, int size, MemorySegment src, NdkMr srcMr, MemorySegment dst, NdkMr dstMr) {
        int n = itersFor(size);
        SplittableRandom rnd = new SplittableRandom(size * 31L + op.hashCode());
        for (long i = 0; i < size; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt(256));
        }
        NdkSge[] local = {new NdkSge()};
        NdkSge[] recv = {new NdkSge(dst.address(), size, dstMr.getLocalToken())};
        NdkResultEx[] res = new NdkResultEx[32];
        for (int i = 0; i < res.length; i++) {
            res[i] = new NdkResultEx();
        }
        boolean verified = true;
        // ---- bandwidth
        dst.asSlice(0, size).fill((byte) 0);
        int posted = 0, completed = 0, recvPosted = 0, recvDone = 0;
        long t0 = System.nanoTime();
        while (completed < n) {
            while (posted < n && posted - completed < depth) {
                if (op.equals("send") && recvPosted - recvDone < depth && recvPosted < n) {
                    check(qpB.receive(null, recv, 1), "receive");
                    recvPosted++;
                    continue;
                }
                if (op.equals("send") && posted >= recvPosted) {
                    break; // every Send needs a posted receive at the peer (iWARP has no receiver-not-ready retry)
                }
                check(post(op, size, src, srcMr, dst, dstMr, local), op);
                posted++;
            }
            int k = cqA.getCqResultsEx(res, res.length);
            for (int i = 0; i < k; i++) {
                check(res[i], op + " completion");
            }
            completed += k;
            if (op.equals("send")) {
                int m = cqB.getCqResultsEx(res, res.length);
                for (int i = 0; i < m; i++) {
                    check(res[i], "receive completion");
                    verified &= res[i].bytesTransferred == size;
                }
                recvDone += m;
            }
        }
        while (op.equals("send") && recvDone < recvPosted) {
            int m = cqB.getCqResultsEx(res, res.length);
            for (int i = 0; i < m; i++) {
                check(res[i], "receive completion");
            }
            recvDone += m;
        }
        long elapsed = System.nanoTime() - t0;
        verified &= placed(dst, src, size);
        // ---- latency
        Histogram h = new Histogram(3_600_000_000L, 3);
        int m = Math.min(n, 5000);
        for (int i = 0; i < m; i++) {
            if (size <= 4096) {
                dst.asSlice(0, size).fill((byte) 0);
            }
            if (op.equals("send")) {
                check(qpB.receive(null, recv, 1), "receive");
            }
            long s = System.nanoTime();
            check(post(op, size, src, srcMr, dst, dstMr, local), op);
            NdkCq cq = op.equals("send") ? cqB : cqA;
            while (cq.getCqResultsEx(res, 1) == 0) {
                Thread.onSpinWait();
            }
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
            check(res[0], op + " completion");
            if (op.equals("send")) {
                while (cqA.getCqResultsEx(res, 1) == 0) {
                    Thread.onSpinWait();
                }
                check(res[0], "send completion");
            }
            if (size <= 4096) {
                verified &= placed(dst, src, size);
            }
        }
        verified &= placed(dst, src, size);
        double secs = elapsed / 1e9;
        return new Row(size, op, n, (double) size * n / secs / 1e9, n / secs / 1e6, h.getValueAtPercentile(50) / 100.0,
                h.getValueAtPercentile(99) / 100.0, h.getMaxValue() / 100.0, verified);
    }

    /**
     * Whether the destination holds the source bytes. A Write is complete at its sender once handed to the
     * transport (RDMAP rule 9), so placement at the target may follow a moment later: wait for it, bounded.
     */
    private static boolean placed(MemorySegment dst, MemorySegment src, int size) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (dst.asSlice(0, size).mismatch(src.asSlice(0, size)) != -1) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    private int post(String op, int size, MemorySegment src, NdkMr srcMr, MemorySegment dst, NdkMr dstMr, NdkSge[] local) {
        return switch (op) {
            case "write" -> qpA.write(null, local(local, src, size, srcMr), 1, dst.address(), dstMr.getRemoteToken(), 0);
            case "read" -> qpA.read(null, local(local, dst, size, dstMr), 1, src.address(), srcMr.getRemoteToken(), 0);
            default -> qpA.send(null, local(local, src, size, srcMr), 1, 0);
        };
    }

    private static NdkSge[] local(NdkSge[] s, MemorySegment seg, int size, NdkMr mr) {
        s[0].set(seg.address(), size, mr.getLocalToken());
        return s;
    }

    private static void check(NdkResultEx r, String what) {
        if (r.status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what + (r.providerErrorCode != 0
                    ? String.format(" (peer Terminate layer %d, type %d, code 0x%02X)", r.providerErrorCode >>> 12 & 0xF,
                            r.providerErrorCode >>> 8 & 0xF, r.providerErrorCode & 0xFF) : ""), r.status);
        }
    }

    private static void check(int status, String what) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what, status);
        }
    }

    private NdkMr register(NdkPd pd, MemorySegment seg) {
        NdkMr mr = Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(Mdl.of(seg), seg.byteSize(),
                NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE, rc, c));
        mrs.add(mr);
        return mr;
    }

    private void setUp() {
        InetAddress lo = InetAddress.getLoopbackAddress();
        java.util.Map<String, String> opts = new java.util.HashMap<>();
        if (crc) {
            opts.put("crc", "true");
        }
        a = Ndk.open(NdkOpenParameters.of(transport, lo).withOptions(pcap == null ? opts : withPcap(opts, pcap)));
        b = Ndk.open(NdkOpenParameters.of(transport, lo).withOptions(opts));
        int qd = Math.max(depth * 2, 64);
        pdA = Sync.create("CreatePd", a::createPd);
        pdB = Sync.create("CreatePd", b::createPd);
        cqA = Sync.create("CreateCq", (cc, c, o) -> a.createCq(qd * 2, null, null, null, cc, c, o));
        cqB = Sync.create("CreateCq", (cc, c, o) -> b.createCq(qd * 2, null, null, null, cc, c, o));
        qpA = Sync.create("CreateQp", (cc, c, o) -> pdA.createQp(cqA, cqA, "A", qd, qd, 1, 1, 0, cc, c, o));
        qpB = Sync.create("CreateQp", (cc, c, o) -> pdB.createQp(cqB, cqB, "B", qd, qd, 1, 1, 0, cc, c, o));
        ConcurrentLinkedQueue<NdkConnector> incoming = new ConcurrentLinkedQueue<>();
        listener = Sync.create("CreateListener", (cc, c, o) -> b.createListener((x, conn) -> incoming.add(conn), null, cc, c, o));
        Sync.request("Listen", (rc, c) -> listener.listen(new InetSocketAddress(lo, 0), rc, c));
        Ref<InetSocketAddress> addr = new Ref<>();
        Sync.check("GetListenerLocalAddress", listener.getLocalAddress(addr, new IntRef(28)));
        connA = Sync.create("CreateConnector", a::createConnector);
        CompletableFuture<Integer> connect = Sync.start((rc, c) -> connA.connect(qpA, new InetSocketAddress(lo, 0), addr.get(),
                16, 16, null, rc, c));
        long deadline = System.nanoTime() + Sync.TIMEOUT_MS * 1_000_000;
        while (incoming.isEmpty()) {
            if (connect.isDone() && connect.join() != NtStatus.STATUS_PENDING) {
                Sync.check("Connect", connect.join());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no connection request arrived at the listener");
            }
            Thread.onSpinWait();
        }
        connB = incoming.poll();
        CompletableFuture<Integer> accept = Sync.start((rc, c) -> connB.accept(qpB, 16, 16, null, null, null, rc, c));
        Sync.check("Connect", Sync.get(connect, "Connect"));
        Sync.request("CompleteConnect", (rc, c) -> connA.completeConnect(null, null, rc, c));
        Sync.check("Accept", Sync.get(accept, "Accept"));
    }

    private static java.util.Map<String, String> withPcap(java.util.Map<String, String> opts, String file) {
        java.util.Map<String, String> m = new java.util.HashMap<>(opts);
        m.put("pcap", file);
        return m;
    }

    private void tearDown() {
        Sync.request("Disconnect", (rc, c) -> connA.disconnect(rc, c));
        Sync.close(connA);
        Sync.close(connB);
        Sync.close(listener);
        for (NdkMr mr : mrs) {
            Sync.close(mr);
        }
        Sync.close(qpA);
        Sync.close(qpB);
        Sync.close(cqA);
        Sync.close(cqB);
        Sync.close(pdA);
        Sync.close(pdB);
        a.close();
        b.close();
    }
}
