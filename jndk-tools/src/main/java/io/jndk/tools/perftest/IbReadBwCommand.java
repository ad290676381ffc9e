package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ib_read_bw}: perftest's RDMA Read bandwidth test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_read_bw", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"RDMA Read bandwidth, compatible with perftest's ib_read_bw -R (perftest 4.5) over iWARP.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it."},
        footer = {"", "Examples:", "  ./jndk ib_read_bw -R -s 65536 -n 1000                server (one test, then exit)",
                "  ./jndk ib_read_bw -R -s 65536 -n 1000 127.0.0.1      client",
                "  ./jndk ib_read_bw -R -b -q 4 127.0.0.1               both directions, 4 QPs",
                "  ./jndk ib_read_bw -R -a --report_gbits 127.0.0.1     all sizes, Gb/sec",
                "", "Exit status: 0 when the test ran to its end; otherwise one line says why and the status is its class"
                        + " in ./jndk --help (2 bad arguments, 4 nothing listens, 7 unreachable or no answer, 1 other)."})
public final class IbReadBwCommand extends BwCommand {
    @Mixin
    PerftestOptions.Outs outs;

    /** The tool. */
    public IbReadBwCommand() {
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
