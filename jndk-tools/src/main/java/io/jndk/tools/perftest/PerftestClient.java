package io.jndk.tools.perftest;

import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Report;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The client side of {@code ib_write_bw}, {@code ib_read_bw} and {@code ib_send_bw}: connects the control connection
 * and one data connection per QP (retrying while the server re-listens), then posts the measured Writes, Reads or
 * credited Sends; with {@code -b} it also serves the server's traffic and prints the sum of both reports.
 */
final class PerftestClient extends PerftestRun {
    PerftestClient(Params p, PrintStream out, PrintStream err) {
        super(p, out, err);
    }

    @Override
    void body(Arena arena) throws TimeoutException, InterruptedException {
        clientControl(arena);
        int n = iterations();
        int tx = Math.min(p.txDepth(), n > 0 ? n : p.txDepth());
        int rx = Math.min(p.rxDepth(), n > 0 ? n : p.rxDepth());
        boolean send = p.verb() == Verb.SEND;
        preConnect();
        List<Data> data = data(arena, p.qps(), send && p.duplex() ? rx : 1, tx + 16); // 16 more for credit Writes
        if (send && p.duplex()) {
            data.forEach(d -> d.postReceives(rx)); // before the server can Send: it does as soon as the start handshake is done
        }
        List<Dest> remote = connectAndExchange(data);
        if (full()) {
            PerftestReport.printHeader(out, p, true, ord, tx, rx);
            PerftestReport.printAddresses(out, data.stream().map(Data::dest).toList(), remote);
            out.println(PerftestWire.columns(p.gbits()));
        }
        PerftestTraffic traffic = new PerftestTraffic(this, data, remote);
        if (p.infinite()) {
            traffic.every = this::print;
        }
        Dest mine = data.getFirst().dest();
        long[] sizes = p.all() ? PerftestWire.allSizes() : new long[] {p.size()};
        Report last = null;
        if (send) {
            for (long size : sizes) {
                handshake(mine, "start");
                data.forEach(d -> d.setCredit(0));
                last = traffic.sends(size, tx, rx, true, p.duplex());
                if (!p.duplex()) {
                    print(last);
                }
                if (p.all()) {
                    for (Data d : credits ? data : List.<Data>of()) {
                        awaitCredit(d, n);
                    }
                    handshake(mine, "end of size");
                }
            }
        } else {
            if (p.duplex()) {
                handshake(mine, "start");
            }
            for (long size : sizes) {
                last = traffic.initiate(size, tx);
                if (!p.duplex()) {
                    print(last);
                }
            }
            if (!p.duplex()) {
                handshake(mine, "end of test");
            }
        }
        if (!send || p.duplex()) {
            Report theirs = exchangeReports(last);
            if (p.duplex()) {
                print(last.plus(theirs));
            }
        }
        if (full()) {
            out.println(PerftestWire.LINE);
        }
        if (dataGone) {
            throw new Failure("the data connection was closed by the peer during the test");
        }
        handshake(mine, "close");
        orderlyClose();
    }

    /** With -a the next size resets the credit: first the server's last credit write (its count) must have landed. */
    private void awaitCredit(Data d, long count) {
        long deadline = System.nanoTime() + STEP_TIMEOUT_MS * 1_000_000;
        int spins = 0;
        while ((d.creditValue() & 0xFFFFFFFFL) < count && p.duration() == 0) {
            if (System.nanoTime() > deadline) {
                throw new Failure("the server's last credit (" + count + ") did not arrive");
            }
            spins = Watchdog.spin(spins);
        }
    }
}
