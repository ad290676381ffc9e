package io.jndk.tools.nd;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ndwpingpong}: RDMA Write ping-pong: each side Writes the data then Sends a 4-octet notice; Latency is half the round trip. */
@Command(name = "ndwpingpong", sortOptions = false, usageHelpWidth = 110,
        description = {"RDMA Write ping-pong: each side Writes the data then Sends a 4-octet notice; Latency is half the round trip.", "NetworkDirect's ndrpingpong (RDMA Write ping-pong) test over iwarp; default port 54327. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndwpingpong -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndwpingpong -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndwpingpong -c 127.0.0.1:54327 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdwpingpongCommand extends NdCommand {
    @Mixin
    NdVerifyOption verifyOption;

    /** The tool. */
    public NdwpingpongCommand() {
        super(NdTest.WPINGPONG);
    }

    @Override
    boolean verify() {
        return verifyOption.verify;
    }
}
