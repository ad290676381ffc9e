package io.jndk.tools.nd;

import picocli.CommandLine.Command;

/** {@code jndk ndping}: Send/Receive one way: up to -q Sends in flight, the server returning receive credits. */
@Command(name = "ndping", sortOptions = false, usageHelpWidth = 110,
        description = {"Send/Receive one way: up to -q Sends in flight, the server returning receive credits.", "NetworkDirect's ndping (send/receive) test over iwarp; default port 54324. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndping -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndping -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndping -c 127.0.0.1:54324 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdpingCommand extends NdCommand {
    /** The tool. */
    public NdpingCommand() {
        super(NdTest.PING);
    }
}
