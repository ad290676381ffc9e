package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;

/** {@code jndk ib_send_bw}: perftest's Send bandwidth test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_send_bw", mixinStandardHelpOptions = true,
        description = {"Send bandwidth, compatible with perftest's ib_send_bw -R (perftest 4.5) over iWARP.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it.",
                "The receiver returns credits by RDMA Write (iWARP has no receiver-not-ready retry), as perftest does."},
        footer = {"", "Examples:", "  ./jndk ib_send_bw -R -s 4096 -n 1000                  server (one test, then exit)",
                "  ./jndk ib_send_bw -R -s 4096 -n 1000 127.0.0.1        client"})
public final class IbSendBwCommand extends PerftestCommand {
    @Override
    Verb verb() {
        return Verb.SEND;
    }
}
