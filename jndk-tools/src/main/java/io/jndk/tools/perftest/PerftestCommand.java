package io.jndk.tools.perftest;

import io.jndk.tools.kit.ProviderOptions;
import io.jndk.tools.kit.Transports;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The options every perftest tool here shares (the subset jndk implements, spelled as perftest 4.5 spells them), their
 * checks, and the run. Without a host the command is the server and serves one test; with one it is the client.
 * {@link BwCommand} adds the bandwidth tools' options, {@link LatCommand} the latency tools'. A bad argument is one line
 * on standard error in perftest's manner (a leading space, the tool's name) and exit status 2.
 */
abstract class PerftestCommand implements Callable<Integer> {
    /** perftest's default iteration count. */
    static final int DEFAULT_ITERS = 1000;
    /** perftest's bounds for -n: "Iteration num should be between 5 and 100000000". */
    static final int MIN_ITERS = 5;
    static final int MAX_ITERS = 100_000_000;
    static final long MAX_SIZE = 1L << 26;
    /** The usage error's exit status (docs/USAGE.md, "Exit codes"). */
    static final int USAGE = 2;

    /** What {@code --output} asks for: everything, or one number per size. */
    enum Output {
        FULL, BANDWIDTH, MESSAGE_RATE, LATENCY
    }

    @Parameters(arity = "0..1", paramLabel = "HOST", description = "Server to connect to (client); none: be the server.")
    String host;

    @Option(names = {"-R", "--rdma_cm"}, description = "Connect QPs with rdma_cm and exchange parameters over it (required on iwarp and for the latency"
            + " tools; without it, over roce, the parameters go over TCP and the QPs connect without a CM, as perftest's"
            + " default).")
    boolean rdmaCm;

    @Option(names = {"-p", "--port"}, defaultValue = "" + PerftestWire.DEFAULT_PORT,
            description = "Server port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE",
            description = "Message size in bytes (default 65536 for the BW tests, 2 for the latency tests).")
    Long size;

    @Option(names = {"-n", "--iters"}, defaultValue = "" + DEFAULT_ITERS,
            description = "Iterations per size, 5 to 100000000 (default ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = {"-a", "--all"}, description = "Run sizes 2 bytes to 8 MiB, doubling.")
    boolean all;

    @Option(names = {"-F", "--CPU-freq"}, description = "Accepted for compatibility (jndk takes no CPU frequency samples).")
    boolean cpuFreq;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Accepted for compatibility (the device is jndk0).")
    String device;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX", defaultValue = "0",
            description = "GID index: 0, the only one jndk0 has (the GID is the local address; rdma_cm picks it anyway).")
    int gidIndex;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "256, 512, 1024, 2048 or 4096: accepted and not"
            + " applied, as on siw: an iWARP port's MTU is 1024 (FPDUs follow the TCP segment size).")
    Integer mtu;

    @Option(names = {"-c", "--connection"}, paramLabel = "TYPE", defaultValue = "RC",
            description = "Connection type: RC (the default and the only one iWARP has; UC, UD, XRC, DC are refused).")
    String connection;

    @Option(names = "--output", paramLabel = "UNITS", description = "Print only one number per size: bandwidth or"
            + " message_rate (BW tests), latency (latency tests: the average).")
    String output;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Local address (server default 127.0.0.1; client default: the route to HOST).")
    String bind;

    @Option(names = "--crc", description = "Ask for MPA CRC32c on every FPDU (jndk option).")
    boolean crc;

    @Option(names = "--pcap", paramLabel = "FILE",
            description = "Capture every iWARP frame (iwarp) or RoCEv2 packet (roce) to FILE (jndk option).")
    String pcap;

    @Option(names = "--transport", paramLabel = "TRANSPORT", defaultValue = "iwarp", description = "iwarp (the"
            + " default) or roce: RoCEv2 over UDP port 4791, one port per address, so a client on the server's host"
            + " binds another address (--bind 127.0.0.2) (jndk option).")
    String transport;

    @Option(names = {"-O", "--option"}, paramLabel = "KEY=VALUE", description = "Provider option, repeatable, checked"
            + " before the run (docs/TRANSPORTS.md; e.g. -O link=dgram:24793:24792 for a QEMU guest) (jndk option).")
    java.util.Map<String, String> providerOptions = new java.util.LinkedHashMap<>();

    /** Where the run prints; tests may replace them. */
    PrintStream out = System.out;
    PrintStream err = System.err;

    abstract Verb verb();

    /** Whether this is a latency tool. */
    abstract boolean latency();

    /** Read's outstanding-read option; 0 elsewhere. */
    int outReads() {
        return 0;
    }

    /** The inline size (-I of the Write and Send tools); 0 elsewhere. */
    int inlineSize() {
        return 0;
    }

    /** The receive depth (-r of the Send tools). */
    int rxDepth() {
        return 512;
    }

    /** The tools' own checks: a line to print, or null. */
    String checkMore() {
        return null;
    }

    /** The run's parameters, once the options checked out. */
    abstract PerftestRun.Params params(long size, Output output);

    String tool() {
        return verb().tool(latency());
    }

    @Override
    public Integer call() {
        String problem = check();
        if (problem != null) {
            err.println(" " + tool() + ": " + problem);
            return USAGE;
        }
        long s = size != null ? size : latency() ? 2 : 65536;
        Output o = output == null ? Output.FULL : Output.valueOf(output.toUpperCase(Locale.ROOT));
        PerftestRun.Params p = params(s, o);
        PerftestRun run = latency() ? new PerftestLatency(p, out, err)
                : host != null ? new PerftestClient(p, out, err) : new PerftestServer(p, out, err);
        return run.run();
    }

    /** The first problem with the options, or null. */
    private String check() {
        if (!rdmaCm && !"roce".equals(transport)) {
            return "on iwarp jndk speaks only perftest's rdma_cm mode (an iWARP QP is connected by MPA): add -R"
                + " (--transport roce also speaks perftest's TCP exchange)";
        }
        if (!Transports.WIRE.contains(transport)) {
            return "unknown --transport " + transport + " (iwarp or roce)";
        }
        String iwarpOnly = Transports.iwarpOnly(transport, crc, pcap);
        if (iwarpOnly != null) {
            return iwarpOnly;
        }
        try {
            ProviderOptions.check(providerOptions, transport);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        long s = size != null ? size : 1;
        if (s < 1 || s > MAX_SIZE) {
            return "size " + s + " outside 1.." + MAX_SIZE;
        }
        if (iters < MIN_ITERS || iters > MAX_ITERS) {
            return "Iteration num should be between " + MIN_ITERS + " and " + MAX_ITERS + " (-n " + iters + ")";
        }
        if (port < 1 || port > 65535) {
            return "port " + port + " outside 1..65535";
        }
        if (gidIndex != 0) {
            return "-x " + gidIndex + ": jndk0 has one GID, index 0 (the local address)";
        }
        if (mtu != null && !(mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096)) {
            return "Invalid MTU - " + mtu + " (256, 512, 1024, 2048 or 4096)";
        }
        String type = connection.toUpperCase(Locale.ROOT);
        switch (type) {
            case "RC" -> { }
            case "UC" -> {
                return verb() == Verb.READ ? "UC connection not possible in READ/ATOMIC verbs" : "UC is not supported in librdmacm";
            }
            case "UD" -> {
                return verb() != Verb.SEND ? "UD connection only possible in SEND verb"
                        : "UD is not supported by jndk (iWARP connects RC QPs only)";
            }
            case "XRC" -> {
                return "XRC does not support RDMA_CM";
            }
            case "DC", "SRD" -> {
                return type + " is not supported by jndk (iWARP connects RC QPs only)";
            }
            default -> {
                return "Invalid Connection type " + connection + ". Please choose from {RC,UC,UD,XRC,DC,SRD}";
            }
        }
        if (output != null) {
            String o = output.toLowerCase(Locale.ROOT);
            boolean valid = latency() ? o.equals("latency") : o.equals("bandwidth") || o.equals("message_rate");
            if (!valid) {
                return latency() ? "Output verbosity level for latency can be: latency"
                        : "Output verbosity level for BW can be: bandwidth, message_rate";
            }
        }
        return checkMore();
    }
}
