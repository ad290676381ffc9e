package io.jndk.tools.perftest;

/**
 * perftest's latency tools ({@code ib_write_lat}, {@code ib_read_lat}, {@code ib_send_lat}): one QP, one message in
 * flight, every round trip timed; no {@code -b}, {@code -q} or {@code -t} (perftest 4.5 has none for them either).
 */
abstract class LatCommand extends PerftestCommand {
    @Override
    boolean latency() {
        return true;
    }

    @Override
    PerftestRun.Params params(long size, Output output) {
        return new PerftestRun.Params(verb(), true, host, port, size, iters, all, 0, false, 1, rxDepth(), outReads(), crc,
                pcap, bind, false, 1, output, false, inlineSize(), false, transport, providerOptions, rdmaCm);
    }
}
