package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jndk ib_read_bw}: perftest's RDMA Read bandwidth test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_read_bw", mixinStandardHelpOptions = true,
        description = {"RDMA Read bandwidth, compatible with perftest's ib_read_bw -R (perftest 4.5) over iWARP.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it."},
        footer = {"", "Examples:", "  ./jndk ib_read_bw -R -s 4096 -n 1000                  server (one test, then exit)",
                "  ./jndk ib_read_bw -R -s 4096 -n 1000 127.0.0.1        client"})
public final class IbReadBwCommand extends PerftestCommand {
    @Option(names = {"-o", "--outs"}, defaultValue = "128",
            description = "Outstanding reads asked for (IRD/ORD, at most 128; default ${DEFAULT-VALUE}).")
    int outs;

    @Override
    Verb verb() {
        return Verb.READ;
    }

    @Override
    int outReads() {
        return Math.clamp(outs, 1, 128);
    }
}
