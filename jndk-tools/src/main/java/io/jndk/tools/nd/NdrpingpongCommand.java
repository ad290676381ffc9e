package io.jndk.tools.nd;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ndrpingpong}: RDMA Read, one at a time: Latency is one Read's round trip. */
@Command(name = "ndrpingpong", sortOptions = false, usageHelpWidth = 110,
        description = {"RDMA Read, one at a time: Latency is one Read's round trip.", "NetworkDirect's ndrpingpong-style (RDMA Read, one at a time) test over iwarp; default port 54327. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndrpingpong -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndrpingpong -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndrpingpong -c 127.0.0.1:54327 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdrpingpongCommand extends NdCommand {
    @Mixin
    NdVerifyOption verifyOption;

    /** The tool. */
    public NdrpingpongCommand() {
        super(NdTest.RPINGPONG);
    }

    @Override
    boolean verify() {
        return verifyOption.verify;
    }
}
