package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;

/** {@code jndk ib_write_bw}: perftest's RDMA Write bandwidth test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_write_bw", mixinStandardHelpOptions = true,
        description = {"RDMA Write bandwidth, compatible with perftest's ib_write_bw -R (perftest 4.5) over iWARP.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it."},
        footer = {"", "Examples:", "  ./jndk ib_write_bw -R -s 65536 -n 1000                server (one test, then exit)",
                "  ./jndk ib_write_bw -R -s 65536 -n 1000 127.0.0.1      client",
                "  ./jndk ib_write_bw -R -a --report_gbits 127.0.0.1     all sizes, Gb/sec"})
public final class IbWriteBwCommand extends PerftestCommand {
    @Override
    Verb verb() {
        return Verb.WRITE;
    }
}
