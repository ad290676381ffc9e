package io.jndk.tools.nd;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ndpingpong}: Send/Receive ping-pong: the server Sends every message straight back; Latency is half the round trip. */
@Command(name = "ndpingpong", sortOptions = false, usageHelpWidth = 110,
        description = {"Send/Receive ping-pong: the server Sends every message straight back; Latency is half the round trip.", "NetworkDirect's ndpingpong test over iwarp; default port 54325. The client prints Size, Iter, Latency (us),"
                + " CPU (%%) and Bytes/Sec per size, 1 octet to 4 MiB."},
        footer = {"", "Examples:", "  ./jndk ndpingpong -s 127.0.0.1            server (serves one client run, then exits)",
                "  ./jndk ndpingpong -c 127.0.0.1 -b         client, blocking on CQ notifications",
                "  ./jndk ndpingpong -c 127.0.0.1:54325 --json --iters 100",
                "", "Exit codes: see ./jndk --help (0 ok, 4 nothing listening, 5 rejected, 7 unreachable/timeout)."})
public final class NdpingpongCommand extends NdCommand {
    @Mixin
    NdVerifyOption verifyOption;

    /** The tool. */
    public NdpingpongCommand() {
        super(NdTest.PINGPONG);
    }

    @Override
    boolean verify() {
        return verifyOption.verify;
    }
}
