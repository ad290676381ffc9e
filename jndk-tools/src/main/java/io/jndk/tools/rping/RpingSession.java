package io.jndk.tools.rping;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Session;
import io.jndk.tools.rping.RpingProtocol.Info;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One rping connection's resources, as rping makes them: one CQ for sends and receives, an RC QP (16 send, 2 receive
 * requests, one SGE), a 16-octet receive buffer (re-posted after every receive), a 16-octet send buffer, the
 * {@code size}-octet RDMA buffer (the client's sink, the server's Read target and Write source) and, on the client,
 * the {@code size}-octet source buffer. Completions are waited for with CQ notifications, not by spinning.
 */
final class RpingSession implements AutoCloseable {
    /** A step of the ping loop that sees no completion for this long fails. */
    static final long STEP_TIMEOUT_MS = 30_000;

    final int size;
    final boolean server;
    private final PrintStream out;
    private final boolean debug;
    private final Session session;
    private final Semaphore wake = new Semaphore(0);
    private final NdkResultEx[] res = Session.results(1);
    private final NdkSge[] sge = {new NdkSge()};
    final NdkCq cq;
    final NdkQp qp;
    final MemorySegment recvBuf, sendBuf, rdmaBuf, startBuf;
    final NdkMr recvMr, sendMr, rdmaMr, startMr;
    volatile boolean disconnected;

    RpingSession(NdkAdapter adapter, NdkPd pd, int size, boolean server, PrintStream out, boolean debug) {
        this.size = size;
        this.server = server;
        this.out = out;
        this.debug = debug;
        this.session = new Session(adapter, pd);
        boolean ok = false;
        NdkCq c = null;
        NdkQp q = null;
        try {
            c = session.cq(32, wake::release);
            debug("created cq");
            q = session.qp(c, c, server ? "rping server" : "rping client", 2, 16, 1, 1, 0);
            debug("created qp");
            recvBuf = session.allocate(RpingProtocol.INFO_LENGTH, 64);
            sendBuf = session.allocate(RpingProtocol.INFO_LENGTH, 64);
            rdmaBuf = session.allocate(size, 4096);
            startBuf = server ? null : session.allocate(size, 4096);
            recvMr = session.register(recvBuf);
            sendMr = session.register(sendBuf);
            rdmaMr = session.register(rdmaBuf);
            startMr = server ? null : session.register(startBuf);
            debug("allocated & registered buffers...");
            ok = true;
        } finally {
            cq = c;
            qp = q;
            if (!ok) {
                close();
            }
        }
    }

    /** The session holding this end's objects (and its connector). */
    Session session() {
        return session;
    }

    void debug(String fmt, Object... args) {
        if (debug) {
            out.println(String.format(Locale.ROOT, fmt, args));
            out.flush();
        }
    }

    /** Called by the connector when the peer disconnects. */
    void onDisconnect() {
        disconnected = true;
        wake.release();
    }

    /** Posts the one 16-octet receive. */
    void postReceive() {
        sge[0].set(recvBuf.address(), RpingProtocol.INFO_LENGTH, recvMr.getLocalToken());
        Checks.check(qp.receive("recv", sge, 1), "post recv");
    }

    /** Sends the 16-octet send buffer (an advertisement, or zeros: the server's go-ahead). */
    void postSend() {
        sge[0].set(sendBuf.address(), RpingProtocol.INFO_LENGTH, sendMr.getLocalToken());
        Checks.check(qp.send("send", sge, 1, 0), "post send");
    }

    /** Reads {@code length} octets from the peer into the RDMA buffer. */
    void postRead(Info from, int length) {
        sge[0].set(rdmaBuf.address(), length, rdmaMr.getLocalToken());
        Checks.check(qp.read("read", sge, 1, from.address(), from.stag(), 0), "post rdma read");
    }

    /** Writes the first {@code length} octets of the RDMA buffer to the peer. */
    void postWrite(Info to, int length) {
        sge[0].set(rdmaBuf.address(), length, rdmaMr.getLocalToken());
        debug("rdma write from lkey %x laddr %x len %d", rdmaMr.getLocalToken(), rdmaBuf.address(), length);
        Checks.check(qp.write("write", sge, 1, to.address(), to.stag(), 0), "post rdma write");
    }

    /**
     * The next completion other than a Send's (Sends are checked and passed over, as rping does), or {@code null}
     * when the peer disconnected before it. A receive must hold 16 octets; the caller re-posts it.
     */
    NdkResultEx next(String waitingFor) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEP_TIMEOUT_MS);
        while (true) {
            NdkResultEx r = poll();
            if (r == null) {
                cq.armCq(NdkCqNotifyType.ANY);
                r = poll();
            }
            if (r != null) {
                if (r.status != NtStatus.STATUS_SUCCESS) {
                    if (r.status == NtStatus.STATUS_CANCELLED) {
                        return null; // flushed: the connection is going; its disconnect event may come after the flush
                    }
                    String op = NdkOperationType.name(r.type).toLowerCase(Locale.ROOT);
                    throw new Failure("cq completion failed: " + op + " " + NtStatus.describe(r.status)
                            + Checks.terminate(r.providerErrorCode));
                }
                switch (r.type) {
                    case NdkOperationType.SEND -> {
                        debug("send completion");
                        continue;
                    }
                    case NdkOperationType.RECEIVE -> {
                        debug("recv completion");
                        if (r.bytesTransferred != RpingProtocol.INFO_LENGTH) {
                            throw new Failure("Received bogus data, size " + r.bytesTransferred);
                        }
                    }
                    case NdkOperationType.READ -> debug("rdma read completion");
                    case NdkOperationType.WRITE -> debug("rdma write completion");
                    default -> throw new Failure("unexpected completion " + NdkOperationType.name(r.type));
                }
                return r;
            }
            if (disconnected) {
                return null;
            }
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !wake.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    throw new Failure("wait for " + waitingFor + ": nothing from the peer for " + STEP_TIMEOUT_MS / 1000 + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure("wait for " + waitingFor + ": interrupted");
            }
        }
    }

    private NdkResultEx poll() {
        return cq.getCqResultsEx(res, 1) == 1 ? res[0] : null;
    }

    /** The next completion, which must be of {@code type}; {@code null} when the peer disconnected first. */
    NdkResultEx expect(int type, String waitingFor) {
        NdkResultEx r = next(waitingFor);
        if (r != null && r.type != type) {
            throw new Failure("wait for " + waitingFor + ": got a " + NdkOperationType.name(r.type).toLowerCase(Locale.ROOT)
                    + " completion instead");
        }
        return r;
    }

    @Override
    public void close() {
        session.close();
    }
}
