package io.jndk.tools.nd;

import picocli.CommandLine.Command;

/** {@code jndk ndwping}: RDMA Write into the server's buffer, up to -q Writes in flight. */
@Command(name = "ndwping", sortOptions = false, usageHelpWidth = 110,
        description = {"RDMA Write into the server's buffer, up to -q Writes in flight.", "NetworkDirect's ndrping -w (RDMA Write) test over iwarp; default port 54326. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndwping -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndwping -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndwping -c 127.0.0.1:54326 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdwpingCommand extends NdCommand {
    /** The tool. */
    public NdwpingCommand() {
        super(NdTest.WPING);
    }
}
