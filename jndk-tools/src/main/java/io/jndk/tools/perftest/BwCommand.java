package io.jndk.tools.perftest;

import picocli.CommandLine.Option;

/** The options of perftest's bandwidth tools ({@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw}). */
abstract class BwCommand extends PerftestCommand {
    /** The most QPs {@code -q} opens (each its own connection). */
    static final int MAX_QPS = 64;

    @Option(names = {"-b", "--bidirectional"}, description = "Measure bidirectional bandwidth: both sides post; each"
            + " prints the sum of both directions.")
    boolean duplex;

    @Option(names = {"-q", "--qp"}, paramLabel = "QPS", defaultValue = "1",
            description = "QPs, each on its own connection, 1 to " + MAX_QPS + " (default ${DEFAULT-VALUE}); -n is per QP.")
    int qps;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "Run for SECONDS instead of -n iterations.")
    int duration;

    @Option(names = {"-t", "--tx-depth"}, defaultValue = "128", description = "Requests in flight per QP, 1 to 15000"
            + " (default ${DEFAULT-VALUE}).")
    int txDepth;

    @Option(names = "--report_gbits", description = "Report bandwidth in Gb/sec instead of MB/sec.")
    boolean gbits;

    @Option(names = "--run_infinitely", description = "Run until stopped, printing a row every -D seconds (default 5).")
    boolean infinite;

    @Option(names = {"-N", "--noPeak"}, description = "Do not compute the BW peak (it reads 0.00).")
    boolean noPeak;

    @Override
    boolean latency() {
        return false;
    }

    @Override
    String checkMore() {
        if (txDepth < 1 || txDepth > 15000) {
            return "Tx depth should be between 1 and 15000 (-t " + txDepth + ")";
        }
        if (rxDepth() < 1 || rxDepth() > 15000) {
            return "Rx depth should be between 1 and 15000 (-r " + rxDepth() + ")";
        }
        if (qps < 1 || qps > MAX_QPS) {
            return "-q " + qps + " outside 1.." + MAX_QPS;
        }
        if (duration < 0 || duration > 3600) {
            return "-D " + duration + " outside 1..3600 seconds";
        }
        if (all && (duration > 0 || infinite)) {
            return "-a runs every size a given number of times: not with -D or --run_infinitely";
        }
        if (duplex && (all || duration > 0 || infinite)) {
            return "-b runs one size for -n iterations in jndk: not with -a, -D or --run_infinitely";
        }
        return null;
    }

    @Override
    PerftestRun.Params params(long size, Output output) {
        int seconds = infinite && duration == 0 ? 5 : duration;
        return new PerftestRun.Params(verb(), false, host, port, size, iters, all, seconds, gbits, txDepth, rxDepth(),
                outReads(), crc, pcap, bind, duplex, qps, output, infinite, inlineSize(), noPeak, transport, providerOptions,
                rdmaCm);
    }
}
