package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ib_read_lat}: perftest's RDMA Read latency test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_read_lat", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"RDMA Read latency, compatible with perftest's ib_read_lat -R (perftest 4.5) over iWARP.",
                "One Read at a time from the server's buffer, each timed from post to post; the server only lends its buffer.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it."},
        footer = {"", "Examples:", "  ./jndk ib_read_lat -R -s 64 -n 1000                   server (one test, then exit)",
                "  ./jndk ib_read_lat -R -s 64 -n 1000 127.0.0.1         client",
                "  ./jndk ib_read_lat -R -a 127.0.0.1                    every size, 2 B to 8 MiB",
                "", "Exit status: 0 when the test ran to its end; otherwise one line says why and the status is its class"
                        + " in ./jndk --help (2 bad arguments, 4 nothing listens, 7 unreachable or no answer, 1 other)."})
public final class IbReadLatCommand extends LatCommand {
    @Mixin
    PerftestOptions.Outs outs;

    /** The tool. */
    public IbReadLatCommand() {
    }

    @Override
    Verb verb() {
        return Verb.READ;
    }

    @Override
    int outReads() {
        return outs.outs;
    }

    @Override
    String checkMore() {
        String c0 = outs.check();
        if (c0 != null) {
            return c0;
        }
        return super.checkMore();
    }
}
