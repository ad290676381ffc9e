package io.jndk.tools.perf;

import io.jndk.tools.kit.CaptureOption;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.ProviderOptions;
import io.jndk.tools.kit.Transports;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jndk perf}: connects QPs over the provider, registers memory, runs RDMA Write, RDMA Read and Send at a
 * few sizes (or all sizes), verifies the bytes, and prints bandwidth and latency as a table, JSON or CSV.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Demonstration and benchmark: write, read and send between two QPs, every transfer verified.",
                "Without --server or --client both QPs live in this process; with them, in two processes (iwarp or roce).",
                "--mode bw streams --depth operations (latency columns: single operations, posting to completion);",
                "--mode lat ping-pongs one message at a time (write, send: half the round trip; read: per operation)."},
        footer = {"", "Examples:", "  ./jndk perf", "  ./jndk perf --op write -s 65536 -n 20000",
                "  ./jndk perf -a --mode lat --op write,send   latency, 2 B to 8 MiB",
                "  ./jndk perf -a -D 0.5 --qps 2 --plot p.svg  0.5 s a row, 2 QPs, chart",
                "  ./jndk perf --json                          one JSON record a row",
                "  ./jndk perf --server                        serve on 127.0.0.1:" + PerfCommand.DEFAULT_PORT,
                "  ./jndk perf --client 127.0.0.1 --op send -s 4096",
                "  ./jndk perf --server --transport roce       RoCEv2 over UDP 4791 on 127.0.0.1",
                "  ./jndk perf --client 127.0.0.1 --bind 127.0.0.2 --transport roce   (one UDP port 4791 per address)"})
public final class PerfCommand implements Callable<Integer> {
    /** The TCP port of {@code --server} and {@code --client} unless {@code --port} is given. */
    static final int DEFAULT_PORT = 7471;
    /** Largest size of {@code -a}: sizes run from 2 B to this, doubling. */
    static final int ALL_SIZES_MAX = 8 << 20;

    @Option(names = "--op", split = ",", defaultValue = "write,read,send", description = "Operations: write, read, send.")
    List<String> ops;

    @Option(names = "--mode", defaultValue = "bw", description = "bw (streaming, --depth in flight) or lat (ping-pong)"
            + " (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = {"-s", "--size"}, split = ",", defaultValue = "8,4096,65536,1048576", description = "Message sizes in bytes.")
    List<Integer> sizes;

    @Option(names = {"-a", "--all-sizes"}, description = "Every size from 2 B to 8 MiB, doubling (replaces -s).")
    boolean allSizes;

    @Option(names = {"-n", "--iters"}, description = "Iterations per size and operation and QP (default: by size).")
    Integer iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "Run each size and operation this long"
            + " instead of -n iterations.")
    Double duration;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "In one process: run each size and operation"
            + " this long, unmeasured, before its measured run (JIT compilation, TCP ramp-up), and on until the JIT is"
            + " quiet (at most 8 times as long again, and 8 s).")
    Double warmup;

    @Option(names = {"-O", "--option"}, paramLabel = "KEY=VALUE", description = "Provider option for both adapters,"
            + " repeatable, checked before the run (docs/TRANSPORTS.md lists them; e.g. -O poll=true, -O mss=9000).")
    java.util.Map<String, String> providerOptions = new java.util.LinkedHashMap<>();

    @Option(names = "--depth", defaultValue = "16", description = "Operations in flight in bw mode (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--cq-mod", paramLabel = "N", defaultValue = "1", description = "In a bw stream, ask for a completion"
            + " on every Nth request only, the others posted with NDK_OP_FLAG_SILENT_SUCCESS (as perftest's --cq-mod);"
            + " 1..--depth, one process only (default: ${DEFAULT-VALUE}, every request completes).")
    int cqMod;

    @Option(names = "--qps", defaultValue = "1", description = "QPs (connections), one thread each; rows sum them"
            + " (default: ${DEFAULT-VALUE}).")
    int qps;

    @Option(names = "--inline", description = "Post Writes and Sends up to the adapter's inline limit with"
            + " NDK_OP_FLAG_INLINE (larger ones run as usual; the data column says which were inline).")
    boolean inline;

    @ArgGroup(exclusive = true)
    Wait wait = new Wait();

    /** {@code --poll} or {@code --block}. */
    static final class Wait {
        @Option(names = "--poll", description = "Spin on the CQ for completions (the default).")
        boolean poll;

        @Option(names = "--block", description = "Arm the CQ and sleep until its notification.")
        boolean block;
    }

    @Option(names = "--json", description = "Print one JSON record per size and operation (stdout holds only those).")
    boolean json;

    @Option(names = "--csv", description = "Print CSV: a header line, then one line per size and operation.")
    boolean csv;

    @Option(names = "--plot", paramLabel = "FILE", description = "Draw bandwidth and latency against size into FILE"
            + " (.svg or .png).")
    Path plot;

    @Option(names = "--transport", description = "Transport: loopback, iwarp or roce (default: loopback in one process,"
            + " iwarp with --server/--client). roce: RoCEv2 over UDP port 4791, one port per address, so two roce"
            + " processes on one host need two addresses (--bind 127.0.0.2 on the client).")
    String transport;

    @Option(names = "--crc", description = "Ask for MPA CRC32c on every FPDU (iwarp).")
    boolean crc;

    @Mixin
    CaptureOption capture;

    @Option(names = "--server", description = "Serve perf clients in this process, each connection in its own thread.")
    boolean server;

    @Option(names = "--client", paramLabel = "HOST", description = "Run against the perf server at HOST.")
    String client;

    @Option(names = "--port", defaultValue = "" + DEFAULT_PORT,
            description = "Server port (default: ${DEFAULT-VALUE}; 0 with --server picks a free one).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Local address: the server listens on it (default 127.0.0.1); the client connects from it"
                    + " (default: the address the route to HOST leaves from); in one process, the connecting side's"
                    + " adapter opens on it (default 127.0.0.1, as the listening side's; over roce another address"
                    + " gives each side a device of its own).")
    String bind;

    @Option(names = "--once", description = "With --server: exit after one connection.")
    boolean once;

    @Option(names = "--connections", paramLabel = "N",
            description = "With --server: exit after N connections (the client makes --qps per size and operation).")
    int connections;

    @Option(names = "--inject-fault", hidden = true,
            description = "With --server: one wrong byte in the buffer served to Reads and in the pattern Sends are checked"
                    + " against (tests the verification).")
    boolean injectFault;

    @Option(names = "--seed", description = "With --client: seed of the data pattern (default: random).")
    Long seed;

    @Override
    public Integer call() throws Exception {
        validate();
        PerfFormat format = json ? PerfFormat.JSON : csv ? PerfFormat.CSV : PerfFormat.TABLE;
        if (server) {
            InetAddress at = Net.resolve(bind == null ? "127.0.0.1" : bind);
            return new PerfServer(transportName(), at, port, once ? 1 : connections, crc, capture.file(),
                    injectFault, System.out, System.err).withOptions(providerOptions).run();
        }
        if (client != null) {
            InetAddress host = Net.resolve(client);
            InetAddress from = bind == null ? null : Net.resolve(bind);
            int status;
            try (PerfProgress progress = progress(format); Interrupt stop = new Interrupt(progress)) {
                status = new PerfClient(transportName(), client, new InetSocketAddress(host, port),
                        from, ops, sizes(), this::itersFor, depth, crc, capture.file(),
                        seed != null ? seed : new SplittableRandom().nextLong(), format, mode.equals("lat"), qps, inline,
                        wait.block, System.out, System.err).withOptions(providerOptions).run(rows, progress);
                stop.finished();
            }
            return plotted(List.copyOf(rows), status);
        }
        return local(format, transportName(), System.out);
    }

    /** The rows finished so far (the run adds them; an interrupt reports and plots them). */
    private final List<PerfFormat.Row> rows = java.util.Collections.synchronizedList(new ArrayList<>());

    /**
     * Ctrl-C (SIGINT) or a SIGTERM during the run: the rows printed so far are complete and stay; the hook clears the
     * progress bar, says how many rows were done, and draws the {@code --plot} chart from them, so that what the
     * interrupted run measured is not lost. The JVM then ends as it would (status 130 after SIGINT).
     */
    private final class Interrupt implements AutoCloseable {
        private final PerfProgress progress;
        private final Thread hook;
        private volatile boolean finished;

        Interrupt(PerfProgress progress) {
            this.progress = progress;
            this.hook = new Thread(this::interrupted, "perf-interrupt");
            Runtime.getRuntime().addShutdownHook(hook);
        }

        void finished() {
            finished = true;
        }

        private void interrupted() {
            if (finished) {
                return;
            }
            progress.close();
            System.out.flush();
            List<PerfFormat.Row> done = List.copyOf(rows);
            int total = sizes().size() * ops.size();
            System.err.println("jndk perf: interrupted after " + done.size() + " of " + total + " rows (the rows printed"
                    + " are complete; the one running was dropped)");
            try {
                plotted(done, 0);
            } catch (RuntimeException e) {
                System.err.println("jndk perf: " + e.getMessage());
            }
            System.err.flush();
        }

        @Override
        public void close() {
            finished = true;
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (and sees finished)
            }
        }
    }

    /** The transport: --transport, else loopback in one process and iwarp with --server or --client. */
    private String transportName() {
        return transport != null ? transport : server || client != null ? "iwarp" : "loopback";
    }

    private void validate() {
        for (String op : ops) {
            if (!List.of("write", "read", "send").contains(op)) {
                throw new IllegalArgumentException("unknown --op " + op + " (write, read or send)");
            }
        }
        for (int size : sizes()) {
            if (size < 1 || size > PerfProtocol.MAX_SIZE) {
                throw new IllegalArgumentException("size " + size + " outside 1.." + PerfProtocol.MAX_SIZE);
            }
        }
        if (!mode.equals("bw") && !mode.equals("lat")) {
            throw new IllegalArgumentException("unknown --mode " + mode + " (bw or lat)");
        }
        if (depth < 1 || depth > 1024) {
            throw new IllegalArgumentException("--depth " + depth + " outside 1..1024");
        }
        if (cqMod < 1 || cqMod > depth) {
            throw new IllegalArgumentException("--cq-mod " + cqMod + " outside 1.." + depth + " (--depth): a window of"
                    + " silent requests only would never complete");
        }
        if (cqMod > 1 && (client != null || server)) {
            throw new IllegalArgumentException("--cq-mod runs in one process only (not with --server or --client)");
        }
        if (qps < 1 || qps > 64) {
            throw new IllegalArgumentException("--qps " + qps + " outside 1..64");
        }
        if (iters != null && iters < 1) {
            throw new IllegalArgumentException("-n " + iters + " must be at least 1");
        }
        if (iters != null && duration != null) {
            throw new IllegalArgumentException("-n and -D exclude each other");
        }
        if (duration != null && !(duration > 0 && duration <= 3600)) {
            throw new IllegalArgumentException("-D " + duration + " outside (0, 3600] seconds");
        }
        if (json && csv) {
            throw new IllegalArgumentException("--json and --csv exclude each other");
        }
        if (plot != null) {
            PerfPlot.Kind.of(plot); // an unknown extension fails before the run, not after
            Path dir = plot.toAbsolutePath().getParent();
            if (dir == null || !java.nio.file.Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--plot " + plot + ": the folder " + dir + " does not exist (create it"
                        + " first, or give another file)");
            }
            if (!java.nio.file.Files.isWritable(dir) || java.nio.file.Files.isDirectory(plot)
                    || java.nio.file.Files.exists(plot) && !java.nio.file.Files.isWritable(plot)) {
                throw new IllegalArgumentException("--plot " + plot + ": cannot write there (check the permissions, or give"
                        + " another file)");
            }
        }
        if (!Transports.ALL.contains(transportName())) {
            throw new IllegalArgumentException("unknown --transport " + transport + " (loopback, iwarp or roce)");
        }
        String iwarpOnly = Transports.iwarpOnly(transportName(), crc, capture.file());
        if (iwarpOnly != null) {
            throw new IllegalArgumentException(iwarpOnly);
        }
        if (server && transportName().equals("loopback") || client != null && transportName().equals("loopback")) {
            throw new IllegalArgumentException("--server and --client run over iwarp or roce (loopback joins QPs of one"
                    + " process only)");
        }
        ProviderOptions.check(providerOptions, transportName());
        if (server && client != null) {
            throw new IllegalArgumentException("--server and --client exclude each other");
        }
        if (warmup != null && !(warmup >= 0 && warmup <= 600)) {
            throw new IllegalArgumentException("--warmup " + warmup + " outside [0, 600] seconds");
        }
        if (warmup != null && (client != null || server)) {
            throw new IllegalArgumentException("--warmup runs in one process only (not with --server or --client)");
        }
        if (client != null && duration != null) {
            throw new IllegalArgumentException("-D runs in one process only (not yet with --client)");
        }
    }

    List<Integer> sizes() {
        if (!allSizes) {
            return sizes;
        }
        List<Integer> all = new ArrayList<>();
        for (int s = 2; s <= ALL_SIZES_MAX; s *= 2) {
            all.add(s);
        }
        return all;
    }

    private int local(PerfFormat format, String transportName, PrintStream out) {
        List<Integer> sizeList = sizes();
        int maxSize = sizeList.stream().mapToInt(Integer::intValue).max().orElse(4096);
        boolean lat = mode.equals("lat");
        PerfLocal.Settings settings = new PerfLocal.Settings(transportName, lat, depth, qps, inline, wait.block, crc, capture.file(),
                duration == null ? 0 : duration, warmup == null ? 0 : warmup, providerOptions,
                bind == null ? null : Net.resolve(bind), cqMod);
        try (PerfProgress progress = progress(format);
                Interrupt stop = new Interrupt(progress);
                PerfLocal run = new PerfLocal(settings, maxSize)) {
            if (format == PerfFormat.TABLE) {
                header(out, transportName, lat, run.inlineLimit());
            }
            format.header(out);
            int total = sizeList.size() * ops.size(), index = 0;
            for (int size : sizeList) {
                for (String op : ops) {
                    long n = itersFor(size);
                    if (warmup != null && warmup > 0) {
                        run.warmUp(op, size);
                    }
                    progress.row(index++, total, op + " " + size + " B", (long) qps * (lat ? n : n + Math.min(n, 5000)),
                            duration == null ? 0 : (long) (duration * 1e9), size);
                    PerfFormat.Row r = run.run(op, size, n, progress);
                    rows.add(r);
                    progress.println(() -> format.row(out, r, transportName));
                }
            }
            stop.finished();
        }
        boolean ok = rows.stream().allMatch(PerfFormat.Row::verified);
        if (format == PerfFormat.TABLE) {
            out.println();
            out.println(ok ? "All data verified: every transfer's bytes matched the source."
                    : "DATA MISMATCH: see the rows marked FAILED.");
        }
        return plotted(List.copyOf(rows), ok ? 0 : Failure.Kind.VERIFY.exit);
    }

    private void header(PrintStream out, String transportName, boolean lat, int inlineLimit) {
        out.printf(Locale.ROOT, "jndk perf: %s transport, two adapters in one process, %d QP pair%s, %s mode%s,"
                + " completions by %s%s%n",
                transportName, qps, qps == 1 ? "" : "s", lat ? "latency" : "bandwidth",
                lat ? "" : " (" + depth + " in flight)", wait.block ? "blocking" : "polling",
                inline ? ", inline up to " + inlineLimit + " B" : "");
        out.println(lat ? "latency: write and send: half the round trip of a ping-pong; read: one Read, posting to completion"
                : "latency: one operation at a time, posting to completion (send: to the receive completion)");
        out.println();
    }

    private static PerfProgress progress(PerfFormat format) {
        return format == PerfFormat.TABLE ? PerfProgress.forTerminal(System.err) : PerfProgress.off();
    }

    private int plotted(List<PerfFormat.Row> rows, int status) {
        if (plot != null && !rows.isEmpty()) {
            try {
                PerfPlot.write(plot, rows, "jndk perf, " + transportName()
                        + ", " + (mode.equals("lat") ? "latency" : "bandwidth") + " mode");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot write the chart " + plot + ": " + e.getMessage(), e);
            }
            System.err.println("jndk perf: chart written to " + plot);
        }
        return status;
    }

    private int itersFor(int size) {
        if (iters != null) {
            return iters;
        }
        if (mode.equals("lat")) {
            return (int) Math.max(100, Math.min(5_000, (256L << 20) / Math.max(size, 1)));
        }
        return (int) Math.max(200, Math.min(50_000, (512L << 20) / Math.max(size, 1)));
    }
}
