package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The options perftest's {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw} share (the subset jndk
 * implements), and the run. Without a host the command is the server and serves one test; with one it is the client.
 */
abstract class PerftestCommand implements Callable<Integer> {
    /** perftest's default iteration count. */
    static final int DEFAULT_ITERS = 1000;
    static final long MAX_SIZE = 1L << 26;

    @Parameters(arity = "0..1", paramLabel = "HOST", description = "Server to connect to (client); none: be the server.")
    String host;

    @Option(names = {"-R", "--rdma_cm"}, description = "Connect QPs with rdma_cm and exchange parameters over it (required).")
    boolean rdmaCm;

    @Option(names = {"-p", "--port"}, defaultValue = "" + PerftestWire.DEFAULT_PORT,
            description = "Server port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = {"-s", "--size"}, defaultValue = "65536", description = "Message size in bytes (default ${DEFAULT-VALUE}).")
    long size;

    @Option(names = {"-n", "--iters"}, defaultValue = "" + DEFAULT_ITERS,
            description = "Iterations per size (default ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = {"-a", "--all"}, description = "Run sizes 2 bytes to 8 MiB, doubling.")
    boolean all;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "Run for SECONDS instead of -n iterations.")
    int duration;

    @Option(names = "--report_gbits", description = "Report bandwidth in Gb/sec instead of MB/sec.")
    boolean gbits;

    @Option(names = {"-F", "--CPU-freq"}, description = "Accepted for compatibility (jndk takes no CPU frequency samples).")
    boolean cpuFreq;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Accepted for compatibility (the device is jndk0).")
    String device;

    @Option(names = {"-t", "--tx-depth"}, defaultValue = "128", description = "Requests in flight (default ${DEFAULT-VALUE}).")
    int txDepth;

    @Option(names = {"-r", "--rx-depth"}, defaultValue = "512",
            description = "Receives posted (send; also the client's credit window; default ${DEFAULT-VALUE}).")
    int rxDepth;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Local address (server default 127.0.0.1; client default: the route to HOST).")
    String bind;

    @Option(names = "--crc", description = "Ask for MPA CRC32c on every FPDU (jndk option).")
    boolean crc;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Capture every iWARP frame to FILE (jndk option).")
    String pcap;

    /** Where the run prints; tests may replace them. */
    PrintStream out = System.out;
    PrintStream err = System.err;

    abstract Verb verb();

    /** Read's outstanding-read option; 0 elsewhere. */
    int outReads() {
        return 0;
    }

    @Override
    public Integer call() {
        String tool = verb().tool;
        if (!rdmaCm) {
            err.println(" " + tool + ": jndk speaks only perftest's rdma_cm mode over iWARP: add -R");
            return 1;
        }
        if (size < 1 || size > MAX_SIZE) {
            err.println(" " + tool + ": size " + size + " outside 1.." + MAX_SIZE);
            return 1;
        }
        if (iters < 1 || duration < 0 || txDepth < 1 || txDepth > 16384 || rxDepth < 1 || rxDepth > 16384) {
            err.println(" " + tool + ": iterations, depths and duration must be positive (depths at most 16384)");
            return 1;
        }
        if (port < 1 || port > 65535) {
            err.println(" " + tool + ": port " + port + " outside 1..65535");
            return 1;
        }
        if (all && duration > 0) {
            err.println(" " + tool + ": -a and -D exclude each other");
            return 1;
        }
        PerftestRun.Params p = new PerftestRun.Params(verb(), host, port, size, iters, all, duration, gbits, txDepth, rxDepth,
                outReads(), crc, pcap, bind);
        return (host != null ? new PerftestClient(p, out, err) : new PerftestServer(p, out, err)).run();
    }
}
