package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Verb;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code jndk ib_write_lat}: perftest's RDMA Write latency test, wire-compatible with perftest 4.5 in rdma_cm mode. */
@Command(name = "ib_write_lat", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"RDMA Write latency, compatible with perftest's ib_write_lat -R (perftest 4.5) over iWARP.",
                "Ping-pong: each side Writes when the other's Write has landed (the server Writes first); half of each round trip.",
                "Without HOST: serve one test on 127.0.0.1:PORT; with HOST: run the test against it."},
        footer = {"", "Examples:", "  ./jndk ib_write_lat -R -s 64 -n 1000                   server (one test, then exit)",
                "  ./jndk ib_write_lat -R -s 64 -n 1000 127.0.0.1         client",
                "  ./jndk ib_write_lat -R -a 127.0.0.1                    every size, 2 B to 8 MiB",
                "", "Exit status: 0 when the test ran to its end; otherwise one line says why and the status is its class"
                        + " in ./jndk --help (2 bad arguments, 4 nothing listens, 7 unreachable or no answer, 1 other)."})
public final class IbWriteLatCommand extends LatCommand {
    @Mixin
    PerftestOptions.Inline inline;

    /** The tool. */
    public IbWriteLatCommand() {
    }

    @Override
    Verb verb() {
        return Verb.WRITE;
    }

    @Override
    int inlineSize() {
        return inline.inline;
    }

    @Override
    String checkMore() {
        String c0 = inline.check();
        if (c0 != null) {
            return c0;
        }
        return super.checkMore();
    }
}
