package io.jndk.tools.perf;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.tools.kit.Checks;
import io.jndk.tools.kit.CqWaiter;
import io.jndk.tools.kit.Loops;
import io.jndk.tools.kit.Memory;
import io.jndk.tools.kit.ProcessCpu;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.ToolThread;
import io.jndk.tools.kit.Watchdog;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * One connected QP pair of the one-process {@code jndk perf}: QP A (adapter a) initiates, QP B (adapter b) is the
 * target, or in latency mode the echoing peer. A owns {@code src} (the pattern) and {@code echo} (two slots: Read
 * destination, echoes); B owns {@code dst} (two slots: Write and Send destination) and {@code readSrc}.
 *
 * <ul>
 *   <li>bandwidth: {@code depth} operations in flight from A, then a latency phase of single operations, each timed
 *       from its posting to its completion (a Send to its receive completion at B);</li>
 *   <li>latency, write: A Writes to B, B sees the last byte change and Writes the received bytes back to A, A sees
 *       its last byte change (ib_write_lat); half of each round trip is recorded;</li>
 *   <li>latency, send: A Sends, B's receive completes, B Sends the received bytes back; half the round trip;</li>
 *   <li>latency, read: one Read at a time, posting to completion.</li>
 * </ul>
 * Latency values are recorded in units of 10 ns.
 */
final class PerfPair implements AutoCloseable {
    private static final int BW_LATENCY_SAMPLES = 5000;
    /** Receive contexts are slot numbers 0 and 1; ping-pong Sends carry 2. */
    private static final Integer[] CTX = {0, 1, 2};
    /** Context of {@link #settle}'s Read. */
    private static final Object SETTLE = new Object();

    final int index;
    final NdkQp qpA, qpB;
    final NdkConnector connA;
    private NdkConnector connB;
    private final Session endA, endB;
    private final CqWaiter waitA, waitB;
    private final Arena arena = Arena.ofShared();
    private final long slot;
    private final MemorySegment src, dst, readSrc, echo;
    private final NdkMr srcMr, dstMr, readSrcMr, echoMr;
    private final NdkResultEx[] resA = Session.results(32), resB = Session.results(32);
    private final NdkSge[] sgeA = {new NdkSge()}, sgeB = {new NdkSge()};
    private final int depth;
    /** A stream asks for a completion on every {@code cqMod}th request only (the others silent on success). */
    private final int cqMod;
    /** Context of a signalled stream request: how many requests its completion stands for (itself included). */
    private final Integer[] batch;
    private volatile long target;

    PerfPair(int index, NdkAdapter a, NdkPd pdA, NdkAdapter b, NdkPd pdB, int maxSize, int depth, int inlineLimit,
            boolean block, int cqMod) {
        this.index = index;
        this.depth = depth;
        this.cqMod = cqMod;
        this.batch = new Integer[cqMod + 1];
        for (int i = 0; i <= cqMod; i++) {
            batch[i] = i;
        }
        this.slot = maxSize;
        src = arena.allocate(maxSize, 4096);
        echo = arena.allocate(2L * maxSize, 4096);
        dst = arena.allocate(2L * maxSize, 4096);
        readSrc = arena.allocate(maxSize, 4096);
        endA = new Session(a, pdA);
        endB = new Session(b, pdB);
        srcMr = endA.register(src);
        echoMr = endA.register(echo);
        dstMr = endB.register(dst);
        readSrcMr = endB.register(readSrc);
        int qd = Math.max(depth * 2, 64);
        waitA = new CqWaiter(block);
        waitB = new CqWaiter(block);
        waitA.create(endA, qd * 2);
        waitB.create(endB, qd * 2);
        qpA = endA.qp(waitA.cq(), waitA.cq(), "A" + index, qd, qd, 1, 1, inlineLimit);
        qpB = endB.qp(waitB.cq(), waitB.cq(), "B" + index, qd, qd, 1, 1, inlineLimit);
        connA = endA.connector();
    }

    /** B's end of the connection: the connector the listener handed over (closed with B's objects). */
    void accepted(NdkConnector conn) {
        connB = endB.adopt(conn);
    }

    /** B's connector, once accepted. */
    NdkConnector connB() {
        return connB;
    }

    /** Runs {@code iters} operations (or for {@code durationNs} when positive) of one kind and size. */
    PerfFormat.Part run(String op, int size, long iters, long durationNs, boolean latencyMode, boolean inline,
            PerfProgress progress) {
        settle(); // the last part's Writes may still be arriving at B: they land before B's target is cleared
        SplittableRandom rnd = new SplittableRandom(size * 31L + op.hashCode() + index * 1_000_003L);
        for (long i = 0; i < size; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt(256));
        }
        MemorySegment.copy(src, 0, readSrc, 0, size);
        for (int s = 0; s < 2; s++) {
            dst.asSlice(s * slot, size).fill((byte) 0);
            echo.asSlice(s * slot, size).fill((byte) 0);
        }
        waitA.clearWake();
        waitB.clearWake();
        long n = durationNs > 0 ? Long.MAX_VALUE : iters;
        long deadline = durationNs > 0 ? System.nanoTime() + durationNs : Long.MAX_VALUE;
        Op o = new Op(op, size, inline);
        Histogram h = new Histogram(3_600_000_000L, 3);
        if (!latencyMode) {
            // the CPU row is the stream's: the timed single operations after it move data the row does not count
            double cpu0 = ProcessCpu.seconds();
            long t0 = System.nanoTime();
            PerfFormat.Part bw = streaming(o, n, deadline, progress);
            long elapsed = System.nanoTime() - t0;
            double cpu1 = ProcessCpu.seconds();
            settle();
            boolean ok = bw.verified() & placed(o.target(), o.source(), size);
            ok &= singles(o, Math.min(bw.ops(), BW_LATENCY_SAMPLES), Long.MAX_VALUE, h, progress);
            return new PerfFormat.Part(bw.ops(), elapsed, h, ok, cpu0, cpu1);
        }
        return switch (op) {
            case "write" -> pingPongWrite(o, n, deadline, h, progress);
            case "send" -> pingPongSend(o, n, deadline, h, progress);
            default -> {
                long t0 = System.nanoTime();
                long[] done = {0};
                boolean ok = singles(o, n, deadline, h, progress, done);
                yield new PerfFormat.Part(done[0], System.nanoTime() - t0, h, ok);
            }
        };
    }

    /** What to post from A: the operation, its size, and its SGE (an inline one when asked). */
    private final class Op {
        final String name;
        final int size;
        final int flags;
        final NdkSge[] sge;
        final NdkSge[] echoSge0, answer;

        Op(String name, int size, boolean inline) {
            this.name = name;
            this.size = size;
            this.flags = inline ? NdkOpFlags.INLINE : 0;
            MemorySegment from = name.equals("read") ? echo : src;
            NdkMr fromMr = name.equals("read") ? echoMr : srcMr;
            this.sge = new NdkSge[] {inline ? NdkSge.inline(src.asSlice(0, size)) : new NdkSge(from.address(), size,
                    fromMr.getLocalToken())};
            this.echoSge0 = sge(dst, dstMr, inline);
            this.answer = sge(readSrc, readSrcMr, inline);
        }

        private NdkSge[] sge(MemorySegment seg, NdkMr mr, boolean inline) {
            MemorySegment part = seg.asSlice(0, size);
            return new NdkSge[] {inline ? NdkSge.inline(part) : new NdkSge(part.address(), size, mr.getLocalToken())};
        }

        MemorySegment source() {
            return name.equals("read") ? readSrc : src;
        }

        MemorySegment target() {
            return name.equals("read") ? echo : dst;
        }

        int post(Object ctx) {
            return post(ctx, 0);
        }

        /** Posts the operation with {@code extra} flags besides the inline one (NDK_OP_FLAG_SILENT_SUCCESS). */
        int post(Object ctx, int extra) {
            return switch (name) {
                case "write" -> qpA.write(ctx, sge, 1, dst.address(), dstMr.getRemoteToken(), flags | extra);
                case "read" -> qpA.read(ctx, sge, 1, readSrc.address(), readSrcMr.getRemoteToken(), extra);
                default -> qpA.send(ctx, sge, 1, flags | extra);
            };
        }

        void receiveAtB(int s) {
            sgeB[0].set(dst.address() + s * slot, size, dstMr.getLocalToken());
            Checks.check(qpB.receive(CTX[s], sgeB, 1), "Receive");
        }

        void receiveAtA(int s) {
            sgeA[0].set(echo.address() + s * slot, size, echoMr.getLocalToken());
            Checks.check(qpA.receive(CTX[s], sgeA, 1), "Receive");
        }
    }

    /**
     * Bandwidth: up to {@code depth} operations in flight; every Send is preceded by its receive at B. With
     * {@code cqMod} above 1 only every {@code cqMod}th request asks for a completion (the others carry
     * NDK_OP_FLAG_SILENT_SUCCESS, as perftest's {@code --cq-mod}); a signalled request's context says how many
     * requests its completion retires (send queues complete in order), and the stream's last request is always
     * signalled, so that the stream ends on a completion.
     */
    private PerfFormat.Part streaming(Op o, long n, long deadline, PerfProgress progress) {
        boolean send = o.name.equals("send");
        long posted = 0, completed = 0, received = 0;
        long signalled = 0; // requests up to the last signalled one: A's completions can retire no more than these
        boolean ok = true;
        while (true) {
            boolean more = posted < n && System.nanoTime() < deadline;
            boolean closing = !more && posted > signalled; // stopped after silent requests: one signalled closes it
            while ((more || closing) && posted - completed < depth && posted - received < depth) {
                if (send) {
                    o.receiveAtB(0);
                }
                int retires = (int) (posted - signalled) + 1; // this request and the silent ones since the last signal
                boolean signal = closing || retires >= cqMod || posted + 1 >= n;
                Checks.check(o.post(signal ? batch[retires] : null, signal ? 0 : NdkOpFlags.SILENT_SUCCESS), o.name);
                posted++;
                signalled = signal ? posted : signalled;
                more = posted < n;
                closing = false;
            }
            if (!more && completed == posted && (!send || received == posted)) {
                return new PerfFormat.Part(posted, 0, null, ok);
            }
            int k = 0;
            if (completed < signalled) { // (silent requests alone never complete: B's receives are awaited instead)
                int c = waitA.await(resA, o.name);
                for (int i = 0; i < c; i++) {
                    Checks.check(resA[i], o.name + " completion");
                    k += (Integer) resA[i].requestContext;
                }
                completed += k;
            }
            if (send) {
                int m = received < completed || k == 0 ? waitB.await(resB, "receive") : waitB.poll(resB);
                for (int i = 0; i < m; i++) {
                    Checks.check(resB[i], "receive completion");
                    ok &= resB[i].bytesTransferred == o.size;
                }
                received += m;
            } else {
                received = completed;
            }
            progress.add(k);
        }
    }

    private boolean singles(Op o, long n, long deadline, Histogram h, PerfProgress progress) {
        return singles(o, n, deadline, h, progress, new long[1]);
    }

    /** One operation at a time, timed from posting to completion (a Send's: the receive at B); counts into done[0]. */
    private boolean singles(Op o, long n, long deadline, Histogram h, PerfProgress progress, long[] done) {
        boolean send = o.name.equals("send");
        boolean check = o.size <= 4096;
        boolean ok = true;
        MemorySegment target = o.target().asSlice(0, o.size);
        MemorySegment source = o.source().asSlice(0, o.size);
        long i = 0;
        for (; i < n && ((i & 15) != 0 || System.nanoTime() < deadline); i++) {
            if (check) {
                target.fill((byte) 0);
            }
            if (send) {
                o.receiveAtB(0);
            }
            long s = System.nanoTime();
            Checks.check(o.post(null), o.name);
            CqWaiter w = send ? waitB : waitA;
            NdkResultEx[] res = send ? resB : resA;
            w.await(res, o.name);
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 10));
            Checks.check(res[0], o.name + " completion");
            ok &= !send || res[0].bytesTransferred == o.size;
            if (send) {
                waitA.await(resA, "send");
                Checks.check(resA[0], "send completion");
            }
            if (check) {
                ok &= placed(target, source, o.size);
            }
            if ((i & 255) == 255) {
                progress.add(256);
            }
        }
        done[0] = i;
        return ok & placed(target, source, o.size);
    }

    /** ib_write_lat: A and B Write to each other in turn; each sees the other's Write land by its last byte. */
    private PerfFormat.Part pingPongWrite(Op o, long n, long deadline, Histogram h, PerfProgress progress) {
        target = Long.MAX_VALUE;
        int last = o.size - 1;
        int inlineFlags = o.flags;
        Watchdog dog = new Watchdog("write echo");
        ToolThread peer = ToolThread.start("perf-echo-" + index, () -> {
            Watchdog w = new Watchdog("write ping");
            long outstanding = 0;
            for (long i = 0; ; i++) {
                byte tag = Loops.tag(i);
                while (Memory.byteAcquire(dst, last) != tag) {
                    if (i >= target) {
                        drain(waitB, resB, outstanding);
                        return;
                    }
                    w.idle();
                }
                w.progress();
                Checks.check(qpB.write(null, o.echoSge0, 1, echo.address(), echoMr.getRemoteToken(), inlineFlags),
                        "Write");
                outstanding += 1 - Loops.reap(waitB.cq(), resB, "write completion");
            }
        });
        Loops.PingPong pp = Loops.writePingPong(src, echo, last, n, deadline, () -> o.post(null),
                () -> Loops.reap(waitA.cq(), resA, "write completion"), dog, h, () -> progress.add(256));
        target = pp.rounds();
        drain(waitA, resA, pp.outstanding());
        peer.join();
        boolean ok = dst.asSlice(0, o.size).mismatch(src.asSlice(0, o.size)) == -1
                && echo.asSlice(0, o.size).mismatch(src.asSlice(0, o.size)) == -1;
        return new PerfFormat.Part(pp.rounds(), pp.elapsedNs(), h, ok);
    }

    /**
     * ib_send_lat: A Sends, B answers each message with a Send of the same pattern (from {@code readSrc}). Each
     * side checks a received message after timing it (B after answering) and re-posts its receive before it sends
     * again, so two receive slots a side suffice.
     */
    private PerfFormat.Part pingPongSend(Op o, long n, long deadline, Histogram h, PerfProgress progress) {
        target = Long.MAX_VALUE;
        for (int s = 0; s < 2; s++) {
            o.receiveAtB(s);
            o.receiveAtA(s);
        }
        MemorySegment expect = src.asSlice(0, o.size);
        boolean[] peerOk = {true};
        ToolThread peer = ToolThread.start("perf-echo-" + index, () -> {
            long received = 0, sending = 0;
            while (received < target || sending > 0) {
                int k = waitB.await(resB, "send ping");
                for (int j = 0; j < k; j++) {
                    NdkResultEx r = resB[j];
                    Checks.check(r, "echo");
                    int c = (Integer) r.requestContext;
                    if (c == 2) {
                        sending--;
                        continue;
                    }
                    Checks.check(qpB.send(CTX[2], o.answer, 1, o.flags), "Send");
                    sending++;
                    received++;
                    peerOk[0] &= r.bytesTransferred == o.size && dst.asSlice(c * slot, o.size).mismatch(expect) == -1;
                    o.receiveAtB(c);
                }
            }
        });
        boolean ok = true;
        long i = 0, sending = 0;
        long t0 = System.nanoTime();
        for (; i < n && ((i & 15) != 0 || System.nanoTime() < deadline); i++) {
            long s = System.nanoTime();
            Checks.check(o.post(CTX[2]), "Send");
            sending++;
            int echoed = -1;
            while (echoed < 0) {
                int k = waitA.await(resA, "send echo");
                for (int j = 0; j < k; j++) {
                    Checks.check(resA[j], "send");
                    int c = (Integer) resA[j].requestContext;
                    if (c < 2) {
                        echoed = c;
                        ok &= resA[j].bytesTransferred == o.size;
                    } else {
                        sending--;
                    }
                }
            }
            h.recordValue(Math.max(1, (System.nanoTime() - s) / 20));
            MemorySegment got = echo.asSlice(echoed * slot, o.size);
            ok &= got.mismatch(expect) == -1;
            got.fill((byte) 0);
            o.receiveAtA(echoed);
            if ((i & 255) == 255) {
                progress.add(256);
            }
        }
        long elapsed = System.nanoTime() - t0;
        target = i;
        waitB.wake();
        peer.join();
        // Both sides still have their two receives posted: consume them so that the next row starts clean.
        for (int s = 0; s < 2; s++) {
            Checks.check(o.post(CTX[2]), "Send");
            Checks.check(qpB.send(CTX[2], o.answer, 1, o.flags), "Send");
        }
        drain(waitA, resA, 4 + sending);
        drain(waitB, resB, 4);
        return new PerfFormat.Part(i, elapsed, h, ok && peerOk[0]);
    }

    /** Waits for {@code outstanding} completions on {@code w}, checking each. */
    private static void drain(CqWaiter w, NdkResultEx[] res, long outstanding) {
        Loops.drain(outstanding, () -> {
            int k = w.await(res, "drain");
            for (int j = 0; j < k; j++) {
                Checks.check(res[j], "completion");
            }
            return k;
        });
    }

    /**
     * Waits until B has taken everything A sent before: an 8-byte Read of B's memory, answered only after every earlier
     * request on the connection. A Write completes at A once handed to the transport (RDMAP rule 9), so B may still be
     * placing the last ones, and writing into B's target meanwhile (clearing it for the next part) would race with
     * that placement. Over iwarp with CRC, where B's receive side sums the bytes it placed straight into the target,
     * the race made B find a CRC mismatch and end the connection with a Terminate (seen three times in
     * bench/run.sh, polling mode, where B's receive side runs late: docs/PERFORMANCE.md).
     */
    private void settle() {
        NdkSge[] into = {new NdkSge(echo.address() + slot, 8, echoMr.getLocalToken())}; // slot 1: no part checks it
        Checks.check(qpA.read(SETTLE, into, 1, readSrc.address(), readSrcMr.getRemoteToken(), 0), "Read (settle)");
        while (true) {
            int k = waitA.await(resA, "Read (settle)");
            for (int i = 0; i < k; i++) {
                Checks.check(resA[i], "Read (settle) completion");
                if (resA[i].requestContext == SETTLE) {
                    return;
                }
            }
        }
    }

    /**
     * Whether the destination holds the source bytes. A Write is complete at its sender once handed to the
     * transport (RDMAP rule 9), so placement at the target may follow a moment later: wait for it, bounded.
     */
    private static boolean placed(MemorySegment dst, MemorySegment src, int size) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (dst.asSlice(0, size).mismatch(src.asSlice(0, size)) != -1) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    @Override
    public void close() {
        Sync.request("Disconnect", (rc, c) -> connA.disconnect(rc, c));
        endA.close();
        endB.close();
        arena.close();
    }
}
