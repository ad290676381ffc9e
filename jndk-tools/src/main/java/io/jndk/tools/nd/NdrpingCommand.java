package io.jndk.tools.nd;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ndrping}: RDMA Read from the server's buffer, up to -q Reads in flight (within the negotiated ORD). */
@Command(name = "ndrping", sortOptions = false, usageHelpWidth = 110,
        description = {"RDMA Read from the server's buffer, up to -q Reads in flight (within the negotiated ORD).", "NetworkDirect's ndrping -r (RDMA Read) test over iwarp; default port 54326. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndrping -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndrping -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndrping -c 127.0.0.1:54326 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdrpingCommand extends NdCommand {
    @Mixin
    NdVerifyOption verifyOption;

    /** The tool. */
    public NdrpingCommand() {
        super(NdTest.RPING);
    }

    @Override
    boolean verify() {
        return verifyOption.verify;
    }
}
