package io.jndk.tools.perftest;

import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Watchdog;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.TimeoutException;

/**
 * perftest's control connection: every message is one plain Send. One receive stays posted (re-posted as soon as
 * a message arrives, before anything is sent back), so a strictly alternating exchange never finds the peer without
 * a receive. The client sends first in every exchange, the server receives first.
 */
final class PerftestControl implements PerftestChannel {
    /** Receive buffer: larger than any perftest 4.x message, so a newer peer's message is reported, not overflowed. */
    static final int RECEIVE_BYTES = 1024;
    static final int SEND_BYTES = 1024;
    static final Object RECEIVE = "receive";
    static final Object SEND = "send";

    private final NdkQp qp;
    private final NdkCq cq;
    private final MemorySegment rbuf;
    private final NdkMr rmr;
    private final MemorySegment sbuf;
    private final NdkMr smr;
    private final boolean client;
    private final NdkSge[] sge = {new NdkSge()};
    private final NdkResultEx[] res = Session.results(4);
    private final ArrayDeque<byte[]> arrived = new ArrayDeque<>();
    private int sendsOutstanding;
    private volatile boolean peerGone;

    PerftestControl(NdkQp qp, NdkCq cq, MemorySegment rbuf, NdkMr rmr, MemorySegment sbuf, NdkMr smr, boolean client) {
        this.qp = qp;
        this.cq = cq;
        this.rbuf = rbuf;
        this.rmr = rmr;
        this.sbuf = sbuf;
        this.smr = smr;
        this.client = client;
    }

    NdkQp qp() {
        return qp;
    }

    /** Called from the connection's disconnect event. */
    void markPeerGone() {
        peerGone = true;
    }

    @Override
    public boolean peerGone() {
        return peerGone;
    }

    void postReceive() {
        sge[0].set(rbuf.address(), RECEIVE_BYTES, rmr.getLocalToken());
        Checks.check(qp.receive(RECEIVE, sge, 1), "control Receive");
    }

    /** Takes whatever completed; received messages are queued and their receive re-posted at once. */
    int poll() {
        int k = cq.getCqResultsEx(res, res.length);
        for (int i = 0; i < k; i++) {
            NdkResultEx r = res[i];
            if (r.status != NtStatus.STATUS_SUCCESS) {
                String what = r.requestContext == RECEIVE ? "control receive" : "control send";
                Checks.check(r, what + " (the peer closed the control connection?)");
            }
            if (r.requestContext == RECEIVE) {
                byte[] m = new byte[r.bytesTransferred];
                MemorySegment.ofArray(m).copyFrom(rbuf.asSlice(0, m.length));
                arrived.add(m);
                postReceive();
            } else {
                sendsOutstanding--;
            }
        }
        return k;
    }

    /** Sends one message and waits until it has left. */
    void send(byte[] m, long timeoutMs) throws TimeoutException {
        if (m.length > SEND_BYTES) {
            throw new IllegalArgumentException("control message of " + m.length + " bytes");
        }
        MemorySegment.copy(MemorySegment.ofArray(m), 0, sbuf, 0, m.length);
        sge[0].set(sbuf.address(), m.length, smr.getLocalToken());
        Checks.check(qp.send(SEND, sge, 1, 0), "control Send");
        sendsOutstanding++;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        int spins = 0;
        while (sendsOutstanding > 0) {
            if (poll() == 0) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("a control Send did not complete within " + timeoutMs + " ms");
                }
                spins = Watchdog.spin(spins);
            }
        }
    }

    /** The next received message, waiting at most {@code timeoutMs}. */
    byte[] receive(long timeoutMs, String what) throws TimeoutException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        int spins = 0;
        while (arrived.isEmpty()) {
            if (poll() == 0) {
                if (peerGone && poll() == 0 && arrived.isEmpty()) {
                    throw new IllegalStateException("the peer closed the control connection while this side waited for its "
                            + what + " message");
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("no " + what + " message from the peer within " + timeoutMs / 1000 + " s");
                }
                spins = Watchdog.spin(spins);
            }
        }
        return arrived.poll();
    }

    @Override
    public byte[] tryReceive(int length) {
        return tryReceive();
    }

    /** A message if one has arrived, else {@code null}; never waits. */
    byte[] tryReceive() {
        if (arrived.isEmpty()) {
            poll();
        }
        return arrived.poll();
    }

    /** Puts a message taken with {@link #tryReceive} back: the next receive returns it. */
    @Override
    public void pushBack(byte[] m) {
        arrived.addFirst(m);
    }

    /** One exchange: the client sends then receives, the server receives then sends. Returns the peer's message. */
    @Override
    public byte[] exchange(byte[] mine, long timeoutMs, String what) throws TimeoutException {
        if (client) {
            send(mine, timeoutMs);
            return receive(timeoutMs, what);
        }
        byte[] theirs = receive(timeoutMs, what);
        send(mine, timeoutMs);
        return theirs;
    }
}
