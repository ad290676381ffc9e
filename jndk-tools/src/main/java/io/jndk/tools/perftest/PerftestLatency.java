package io.jndk.tools.perftest;

import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Watchdog;
import io.jndk.tools.perftest.PerftestReport.Latency;
import io.jndk.tools.perftest.PerftestWire.Dest;
import io.jndk.tools.perftest.PerftestWire.Verb;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ib_write_lat}, {@code ib_read_lat} and {@code ib_send_lat}, client and server, as perftest 4.5 runs them
 * (seen between two siw peers, docs/INTEROP-PERFTEST.md): the control connection and its four system exchanges, the
 * empty pre-connect handshake, one data connection, the empty connected handshake and the destination four times;
 * then, per size:
 *
 * <ul>
 *   <li>write: a ping-pong of Writes; the server Writes first. Each side's message ends with a one-byte tag (1, 2, ...
 *       modulo 256, from 1 again at each size) and is written into the peer's advertised buffer; a side posts its
 *       next Write when the peer's has landed (the tag at size - 1 of its own advertised buffer). No message follows
 *       the last size: the client disconnects.</li>
 *   <li>read: the client Reads from the server's buffer, one Read at a time; the server waits for the close
 *       handshake (one destination exchange after the last size).</li>
 *   <li>send: a ping-pong of Sends, the client first; each side re-posts the receive it used; a handshake follows
 *       every size (there is no other close handshake).</li>
 * </ul>
 * Each side that measures records the time of every post and prints perftest's latency row
 * ({@link PerftestReport.Latency}): for Write and Send half of each round trip, for Read the whole one.
 */
final class PerftestLatency extends PerftestRun {
    /** Receives kept posted by a Send ping-pong side (one message comes at a time; a few spare). */
    private static final int RECEIVES = 4;
    /** The initiator queue; completions are reaped once half of it is outstanding (they may lag the answers). */
    private static final int QUEUE = 16;
    /** Waits for the peer's answer in the ping-pong without a deadline of their own (the watchdog bounds them). */
    private static final long CLOSE_WAIT_MS = TimeUnit.MINUTES.toMillis(10);

    PerftestLatency(Params p, PrintStream out, PrintStream err) {
        super(p, out, err);
    }

    @Override
    void body(Arena arena) throws TimeoutException, InterruptedException {
        if (client) {
            clientControl(arena);
        } else {
            serverControl(arena);
        }
        boolean send = p.verb() == Verb.SEND;
        boolean read = p.verb() == Verb.READ;
        int n = p.iters();
        Data d = data(arena, 1, send ? RECEIVES : 1, QUEUE).getFirst();
        if (send) {
            d.postReceives(RECEIVES);
        }
        preConnect();
        Dest remote = connectAndExchange(List.of(d)).getFirst();
        if (!client) {
            // posts only on a connected QP: a passive Accept completes when the initiator's first FPDU has arrived,
            // which may come after the control connection's exchange (the server's first Write then failed with
            // STATUS_CONNECTION_INVALID)
            awaitAccepted(dataAccepts, "data");
        }
        Dest mine = d.dest();
        int rx = Math.min(p.rxDepth(), n);
        if (full()) {
            PerftestReport.printHeader(out, p, client, ord, 1, rx);
            PerftestReport.printAddresses(out, List.of(mine), List.of(remote));
        }
        if (read && !client) {
            ctl.exchange(encode(mine), CLOSE_WAIT_MS, "close"); // the client Reads; this side lends its buffer
        } else {
            if (full()) {
                out.println(PerftestWire.LAT_COLUMNS);
                out.flush();
            }
            long[] sizes = p.all() ? PerftestWire.allSizes() : new long[] {p.size()};
            long[] posted = new long[n];
            for (long size : sizes) {
                switch (p.verb()) {
                    case WRITE -> writes(d, remote, size, posted);
                    case SEND -> sends(d, size, posted);
                    case READ -> reads(d, remote, size, posted);
                }
                Latency l = Latency.of(posted, n, read ? 1 : 2);
                out.println(full() ? PerftestWire.latRow(size, n, l) : PerftestWire.value(l.average()));
                out.flush();
                if (send) {
                    ctl.exchange(encode(mine), CLOSE_WAIT_MS, "end of size");
                }
            }
            if (read) {
                handshake(mine, "close");
            }
        }
        if (full()) {
            out.println(PerftestWire.LINE);
        }
        orderlyClose();
    }

    /** perftest's tag of message {@code i} (0-based) of a size: its count modulo 256, from 1. */
    static byte tag(long i) {
        return (byte) (i + 1);
    }

    /**
     * The Write ping-pong: post Write i with tag i at the end of this side's message, wait until the peer's Write i
     * has landed at the end of this side's advertised half; the server does not wait before its first Write.
     */
    private void writes(Data d, Dest remote, long size, long[] posted) {
        int n = p.iters();
        long last = d.half + size - 1;
        NdkResultEx[] res = Session.results(4);
        NdkSge[] sge = size <= p.inline() ? new NdkSge[] {NdkSge.inline(d.buf.asSlice(0, size))} : d.sge;
        int flags = size <= p.inline() ? NdkOpFlags.INLINE : 0;
        if (flags == 0) {
            sge[0].set(d.buf.address(), (int) size, d.mr.getLocalToken());
        }
        Watchdog dog = new Watchdog("the peer's Write");
        long completed = 0;
        for (int i = 0; i < n; i++) {
            if (client || i > 0) {
                awaitTag(d, last, tag(client ? i : i - 1), dog);
            }
            posted[i] = System.nanoTime();
            d.buf.set(ValueLayout.JAVA_BYTE, size - 1, tag(i));
            if (flags != 0) {
                sge = new NdkSge[] {NdkSge.inline(d.buf.asSlice(0, size))};
            }
            Checks.check(d.qp.write(null, sge, 1, remote.vaddr(), remote.rkey(), flags), "Write");
            completed += reap(d, res, "RDMA Write", i + 1 - completed, dog);
            while (i + 1 - completed >= QUEUE / 2) {
                completed += reap(d, res, "RDMA Write", i + 1 - completed, dog);
                dog.idle();
            }
        }
        if (!client) {
            awaitTag(d, last, tag(n - 1), dog); // the client's last Write answers this side's last one
        }
        while (completed < n) {
            completed += reap(d, res, "RDMA Write", n - completed, dog);
        }
    }

    private void awaitTag(Data d, long at, byte tag, Watchdog dog) {
        while (Memory.byteAcquire(d.buf, at) != tag) {
            // the peer's last Write is placed before its disconnect is seen: look once more after seeing that
            if (dataGone && Memory.byteAcquire(d.buf, at) != tag) {
                throw new io.jndk.tools.kit.Failure("the peer closed the data connection during the ping-pong");
            }
            dog.idle();
        }
        dog.progress();
    }

    /** Takes the completions there are (never more than {@code outstanding}); the Write itself must not fail. */
    private static int reap(Data d, NdkResultEx[] res, String what, long outstanding, Watchdog dog) {
        int k = d.icq.getCqResultsEx(res, (int) Math.min(res.length, Math.max(1, outstanding)));
        for (int j = 0; j < k; j++) {
            Checks.check(res[j], what);
        }
        return k;
    }

    /** The Send ping-pong: the client Sends first; each side Sends when the peer's Send has arrived. */
    private void sends(Data d, long size, long[] posted) {
        int n = p.iters();
        NdkResultEx[] res = Session.results(4);
        NdkSge[] out = {new NdkSge()};
        int flags = size <= p.inline() ? NdkOpFlags.INLINE : 0;
        Watchdog dog = new Watchdog("the peer's Send");
        long sent = 0, done = 0;
        for (int i = 0; i < n; i++) {
            if (!client || i > 0) {
                awaitReceive(d, size, res, dog);
            }
            posted[i] = System.nanoTime();
            NdkSge[] sge = flags != 0 ? new NdkSge[] {NdkSge.inline(d.buf.asSlice(0, size))} : out;
            if (flags == 0) {
                out[0].set(d.buf.address(), (int) size, d.mr.getLocalToken());
            }
            Checks.check(d.qp.send(null, sge, 1, flags), "Send");
            sent++;
            done += reap(d, res, "Send", sent - done, dog);
            while (sent - done >= QUEUE / 2) {
                done += reap(d, res, "Send", sent - done, dog);
                dog.idle();
            }
        }
        if (client) {
            awaitReceive(d, size, res, dog); // the server's answer to the last Send
        }
        while (done < sent) {
            done += reap(d, res, "Send", sent - done, dog);
            dog.idle();
        }
    }

    private void awaitReceive(Data d, long size, NdkResultEx[] res, Watchdog dog) {
        while (d.rcq.getCqResultsEx(res, 1) == 0) {
            if (dataGone) {
                // the peer's last Send completes here before its disconnect is seen: poll once more after seeing that
                if (d.rcq.getCqResultsEx(res, 1) > 0) {
                    break;
                }
                throw new io.jndk.tools.kit.Failure("the peer closed the data connection during the ping-pong");
            }
            dog.idle();
        }
        dog.progress();
        Checks.check(res[0], "receive");
        if (res[0].bytesTransferred != size) {
            throw new io.jndk.tools.kit.Failure("a message of " + res[0].bytesTransferred + " bytes arrived, expected " + size
                    + ": run both sides with the same -s (and -a)");
        }
        d.postReceives(1);
    }

    /** One Read at a time from the peer's advertised buffer into this side's, each timed from its post. */
    private void reads(Data d, Dest remote, long size, long[] posted) {
        int n = p.iters();
        NdkResultEx[] res = Session.results(1);
        d.sge[0].set(d.buf.address(), (int) size, d.mr.getLocalToken());
        Watchdog dog = new Watchdog("RDMA Read");
        for (int i = 0; i < n; i++) {
            posted[i] = System.nanoTime();
            Checks.check(d.qp.read(null, d.sge, 1, remote.vaddr(), remote.rkey(), 0), "Read");
            while (d.icq.getCqResultsEx(res, 1) == 0) {
                if (dataGone) {
                    throw new io.jndk.tools.kit.Failure("the peer closed the data connection during the Reads");
                }
                dog.idle();
            }
            dog.progress();
            Checks.check(res[0], "RDMA Read");
        }
    }
}
