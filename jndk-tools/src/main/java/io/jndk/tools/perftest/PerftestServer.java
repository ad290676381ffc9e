package io.jndk.tools.perftest;

import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The server side of {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw}: accepts the control connection
 * and one data connection per QP, lends its buffers (Write, Read) or receives and returns credits (Send), and prints
 * the client's report; with {@code -b} it also posts its own traffic and prints the sum of both reports.
 */
final class PerftestServer extends PerftestRun {
    PerftestServer(Params p, PrintStream out, PrintStream err) {
        super(p, out, err);
    }

    @Override
    void body(Arena arena) throws TimeoutException, InterruptedException {
        serverControl(arena);
        int n = iterations();
        int tx = Math.min(p.txDepth(), n > 0 ? n : p.txDepth());
        int rx = Math.min(p.rxDepth(), n > 0 ? n : p.rxDepth());
        boolean send = p.verb() == Verb.SEND;
        List<Data> data = data(arena, p.qps(), send ? rx : 1, p.duplex() ? tx + 16 : 16); // 16 more for credit Writes
        if (send) {
            data.forEach(d -> d.postReceives(rx));
        }
        preConnect();
        List<Dest> remote = connectAndExchange(data);
        // posts only on connected QPs: a passive Accept completes when the initiator's first FPDU has arrived, which
        // may come after the control connection's exchange (a -b server's first Write failed CONNECTION_INVALID)
        awaitAccepted(dataAccepts, "data");
        if (full()) {
            PerftestReport.printHeader(out, p, false, ord, tx, rx);
            PerftestReport.printAddresses(out, data.stream().map(Data::dest).toList(), remote);
            out.println(PerftestWire.columns(p.gbits()));
            out.flush();
        }
        PerftestTraffic traffic = new PerftestTraffic(this, data, remote);
        Dest mine = data.getFirst().dest();
        if (send) {
            if (p.infinite()) {
                traffic.every = this::print;
            }
            if (n == 0) {
                traffic.senderDone = () -> {
                    // Duration mode: receive (and return credits) until the client's close message arrives, which
                    // it sends once its time is up and its Sends have completed; the close exchange then uses it.
                    byte[] m = ctl.tryReceive(destLength());
                    if (m != null) {
                        ctl.pushBack(m);
                        return true;
                    }
                    return false;
                };
            }
            long[] sizes = p.all() ? PerftestWire.allSizes() : new long[] {p.size()};
            Report last = null;
            for (long size : sizes) {
                handshake(mine, "start");
                if (p.duplex()) {
                    data.forEach(d -> d.setCredit(0));
                }
                last = traffic.sends(size, tx, rx, p.duplex(), true);
                if (!p.duplex()) {
                    print(last);
                }
                if (p.all()) {
                    handshake(mine, "end of size");
                }
            }
            if (p.duplex()) {
                print(last.plus(exchangeReports(last)));
            }
        } else if (p.duplex()) {
            handshake(mine, "start");
            Report r = traffic.initiate(p.size(), tx);
            print(r.plus(exchangeReports(r)));
        } else {
            long wait = p.infinite() ? TimeUnit.DAYS.toMillis(365) : p.duration() > 0 ? (p.duration() + 120) * 1000L : 600_000L;
            ctl.exchange(encode(mine), wait, "end of test");
            print(exchangeReports(new Report(0, 0, 0, 0, 0))); // perftest's server sends noise; jndk zeros
        }
        if (full()) {
            out.println(PerftestWire.LINE);
        }
        handshake(mine, "close");
        orderlyClose();
    }
}
