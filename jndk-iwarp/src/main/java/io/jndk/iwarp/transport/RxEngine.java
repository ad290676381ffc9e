package io.jndk.iwarp.transport;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.EngineThread;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireCounters;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The receive side of one connection, its I/O (siw's {@code siw_tcp_rx_data}): it reads the stream and feeds the
 * resumable {@link FpduDecoder}, whose listener {@link RxDispatch} gives each frame its meaning. Tagged payload of at
 * least {@link RxPlacement#DIRECT_PLACEMENT_MIN} octets is read straight into its target through the provider's
 * {@link BufferCursor} (direct data placement, {@link #placeDirect}); everything else is read into a direct buffer.
 * A decoder error becomes a Terminate here ({@link #consume}), the end of the stream an orderly close or a reset
 * ({@link #endOfStream}), a failed read a reset ({@link #broke}).
 *
 * <p><b>Ownership.</b> Whoever runs the receive side makes every RX-side call into the {@link QpPort}
 * ({@code writeTarget}, {@code readSource}, {@code beginReceive}, {@code endReceive}, {@code failReceive},
 * {@code readDone}: a Read completes where its response's last octet is placed, with no hand-off) and
 * {@code peerClosed}: the receive thread ({@link #run}), or in polling mode a consumer's {@code progress} call while
 * the receive thread stands by ({@link ConsumerDrive}, which hands the receive side over). A protocol error builds
 * the Terminate on this side and hands it to the transmit thread (the recorded {@link Failure}).
 *
 * <p>The thread's loop reads top to bottom; polling mode adds three named hooks: {@link ConsumerDrive#consumersDrive}
 * then {@link ConsumerDrive#standBy}, and {@link ConsumerDrive#awaitReadable} when a non-blocking read found nothing.
 */
final class RxEngine implements Runnable {
    private static final Logger LOG = Logger.getLogger(RxEngine.class.getName());
    /** Outcome of one receive step: something was read, nothing was there (non-blocking), the stream ended. */
    static final int STEP_READ = 1, STEP_IDLE = 0, STEP_END = -1;
    /** {@link #placeDirect}: the payload is not for a direct read; the buffered read takes what comes. */
    private static final int PLACE_BUFFERED = -2;
    /**
     * {@link #placeDirect}: a large payload waits but nothing has arrived (blocking mode): a short buffered read waits
     * for it, so that no read straight into consumer memory ever waits for input.
     */
    private static final int PLACE_AWAIT = -3;
    private static final int RX_BUFFER = 64 * 1024;
    /** Read size while large frames arrive: a whole header, a little payload at most. */
    private static final int HEADER_READ = 64;
    /** What a direct read takes beyond the payload: pad and CRC (at most 7 octets), then a header's worth. */
    private static final int READ_AHEAD = 8 + HEADER_READ;

    // ---- wiring, set at construction (before the thread starts) ------------------------------------------
    private final IwarpConnection connection;
    private final ConnectionState state;
    private final SocketChannel channel;
    private final QpPort qp;
    private final ConnectionCapture capture;
    private final WireCounters counters;
    private final ConsumerDrive drive;
    /** FPDU octets read behind the MPA frame, consumed first (or {@code null}). */
    private final ByteBuffer surplus;
    private final RxDispatch dispatch;
    private final FpduDecoder decoder;
    private final RxPlacement placement;
    /** The socket's input stream, for {@code available()} (FIONREAD; it takes no read lock); null if closed. */
    private final InputStream input;

    // ---- read by other threads ----------------------------------------------------------------------------
    private volatile Thread thread;
    /** The shared engine's side of this connection (set before it starts), or null. */
    private volatile LoopDrive loop;

    // ---- the shared engine (the engine loop's) -------------------------------------------------------------
    /** {@link #loopReadable} outcomes: go on reading when readable, stand by for polling consumers, ended. */
    static final int LOOP_READ = 0, LOOP_STANDBY = 1, LOOP_ENDED = 2;
    /** {@link #loopReadable}: a consumer's step holds the receive side; stop watching the socket, its end schedules. */
    static final int LOOP_AWAIT_STEP = 3;
    /** Reads one readable event takes at most for this connection before the loop serves the others. */
    static final int LOOP_READS = 4;
    private boolean loopEnded;
    /** One read of its own is owed after a stand-by (as the receive thread's). */
    private boolean loopReadOwed;

    // ---- owned by whoever runs the receive side -----------------------------------------------------------
    /**
     * Where the stream is read into when it is not placed directly: the buffer of the thread that runs the receive
     * side (an engine loop, a receive thread, a polling consumer), since nothing of it is kept between reads (the
     * decoder copies what it keeps): a connection at rest holds none.
     */
    private static final ThreadLocal<ByteBuffer> BUFFERS = ThreadLocal.withInitial(
        () -> ByteBuffer.allocateDirect(RX_BUFFER));
    /** Views of the current target for direct placement (and one more place for the read-ahead); reused. */
    private final ByteBuffer[] views = new ByteBuffer[65];
    private final int[] viewStarts = new int[64];
    /** Nothing more is decoded or placed (a failure was recorded, or the decoder stopped). */
    private boolean draining;
    /**
     * The last step's read took less than it asked for: the socket held no more then, and a non-blocking reader
     * stops there instead of asking again only to hear that nothing is there (the selector, level-triggered, reports
     * what arrives later; a polling consumer reads on its next poll).
     */
    private boolean drained;

    RxEngine(IwarpConnection connection, QpPort qp, ReadQueues queues, TxEngine tx, ByteBuffer surplus) {
        this.connection = connection;
        this.state = connection.state;
        this.channel = connection.channel;
        this.qp = qp;
        this.capture = connection.capture;
        this.counters = connection.counters();
        this.drive = connection.drive;
        this.surplus = surplus;
        this.dispatch = new RxDispatch(connection, qp, queues, tx);
        this.decoder = dispatch.decoder();
        this.placement = dispatch.placement();
        InputStream in = null;
        try {
            in = channel.socket().getInputStream();
        } catch (IOException e) {
            // closed already: the receive thread ends at once (and never spins on available())
        }
        input = in;
    }

    /** Starts the receive thread {@code t} (made by the engine mode around this). */
    void start(Thread t) {
        thread = t;
        t.start();
    }

    /** Wakes the receive thread where it parks (standing by for polling consumers), or the engine loop. */
    void unpark() {
        LoopDrive.wake(loop, thread);
    }

    // ---- the shared engine ----------------------------------------------------------------------------------

    /** The shared engine: its side of this connection runs the receive side from now on. */
    void attach(LoopDrive l) {
        loop = l;
    }

    /**
     * The shared engine's first service of this connection: the octets read behind the MPA frame, then the receive
     * side is free for the loop and polling consumers, one turn of reads at a time.
     */
    int loopStart() {
        try {
            if (surplus != null && surplus.hasRemaining()) {
                capture.inbound(surplus, surplus.position(), surplus.remaining());
                consume(surplus);
            }
        } catch (RuntimeException e) {
            broke(e);
            return endReceive();
        }
        drive.releaseRx();
        return LOOP_READ;
    }

    /**
     * The shared engine, the socket is readable (or the connection closed, or a consumer handed over): up to
     * {@link #LOOP_READS} reads and everything they complete.
     *
     * @return {@link #LOOP_READ}, {@link #LOOP_STANDBY} (polling consumers drive: stop reading until
     *     {@link ConsumerDrive#standByGoesOn} says otherwise), {@link #LOOP_AWAIT_STEP} or {@link #LOOP_ENDED}
     */
    int loopReadable() {
        if (loopEnded) {
            return LOOP_ENDED;
        }
        if (state.isClosed()) {
            return endReceive();
        }
        if (!loopReadOwed && !draining && drive.consumersDrive()) {
            return LOOP_STANDBY;
        }
        loopReadOwed = false;
        if (!drive.tryTakeRx()) {
            return LOOP_AWAIT_STEP; // a consumer steps right now: its end schedules this connection again
        }
        try {
            for (int i = 0; i < LOOP_READS; i++) {
                int r = step(true);
                if (r == STEP_END) {
                    return endReceive(); // the receive side stays taken: nobody steps after the end
                }
                if (r == STEP_IDLE || drained) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            broke(e);
            return endReceive();
        }
        drive.releaseRx();
        return LOOP_READ;
    }

    /** After a stand-by: the next readable event reads once whatever the consumers do. */
    void owesRead() {
        loopReadOwed = true;
    }

    /** The shared engine: the receive side ends (the receive thread's {@code finally}). */
    private int endReceive() {
        loopEnded = true;
        dispatch.abandonReceive();
        state.rxEnded();
        connection.wakeTransmitter();
        connection.threadExit();
        return LOOP_ENDED;
    }

    // ---- the receive thread -------------------------------------------------------------------------------

    @Override
    public void run() {
        EngineThread deferred = EngineThread.enter();
        try {
            if (surplus != null && surplus.hasRemaining()) {
                capture.inbound(surplus, surplus.position(), surplus.remaining());
                consume(surplus);
            }
            boolean readOwed = false;
            while (!state.isClosed()) {
                deferred.runPending(); // notifications of what the last read completed, outside every lock
                Thread.interrupted(); // a callback's interrupt would make every wait return at once
                if (!readOwed && !draining && drive.consumersDrive()) {
                    drive.standBy();
                    readOwed = true; // one read of its own after each stand-by (an orderly close, a lull)
                    continue;
                }
                readOwed = false;
                int r = step(true);
                if (r == STEP_END) {
                    return;
                }
                if (r == STEP_IDLE) {
                    drive.awaitReadable(input);
                }
            }
        } catch (IOException | RuntimeException e) {
            broke(e);
        } finally {
            // a Send in progress when the stream ends for any reason (a local abort included, which reports nothing
            // back) completes its receive: the request it took from the receive queue is not flushed
            dispatch.abandonReceive();
            deferred.runPending();
            state.rxEnded();
            connection.wakeTransmitter();
            connection.threadExit();
        }
    }

    // ---- one step (the receive thread, or a polling consumer holding the receive side) --------------------

    /**
     * One read (straight into a target, or into the buffer) and everything it completes.
     *
     * @param engineThread the receive thread (it handles the end of the stream); false for a consumer's step
     * @return {@link #STEP_READ}, {@link #STEP_IDLE} (polling mode: nothing to read now) or {@link #STEP_END}
     */
    int step(boolean engineThread) throws IOException {
        ByteBuffer buffer = BUFFERS.get();
        drained = false;
        int direct = placeDirect(buffer);
        if (direct != PLACE_BUFFERED && direct != PLACE_AWAIT) {
            return direct;
        }
        buffer.clear();
        if (direct == PLACE_AWAIT) {
            // wait for the payload in this buffer, taking a header's worth of it at most: the next step places the
            // rest directly, from what has arrived by then
            buffer.limit(HEADER_READ);
        } else if (placement.largeFrames()) {
            // after a large frame, take just the next header so that its payload can go straight into its target
            // instead of through this buffer; a payload that is not placed directly (too little left after its
            // header, no target) is taken whole, not a header's worth at a time
            buffer.limit(Math.min(buffer.capacity(), HEADER_READ + decoder.payloadRemaining()));
        }
        int asked = buffer.remaining();
        int n = channel.read(buffer);
        drained = n < asked;
        if (n < 0) {
            if (engineThread) {
                capture.peerFin();
                endOfStream();
            }
            return STEP_END;
        }
        if (n == 0) {
            return STEP_IDLE; // non-blocking (polling mode): nothing there yet
        }
        buffer.flip();
        capture.inbound(buffer, 0, n);
        consume(buffer);
        return STEP_READ;
    }

    /**
     * Direct data placement: when the decoder waits for payload of a checked target, read the payload from the
     * socket straight into the target memory (scattering read), then account for it in the decoder (CRC).
     *
     * <p>Such a read never waits for input: in blocking mode it takes only what has arrived ({@code available()}),
     * and when nothing has, a short buffered read waits instead ({@link #PLACE_AWAIT}); in polling mode the channel
     * is non-blocking anyway. So a failure never finds the receive side waiting inside consumer memory: it sees the
     * failure before its next read and only drains from then on, and nothing but shutting the input (which would end
     * the drain, see {@link IwarpConnection#fail}) would be needed to wake it.
     *
     * @return {@link #STEP_READ}, {@link #STEP_IDLE} (non-blocking, nothing there yet), {@link #PLACE_AWAIT} or
     *     {@link #PLACE_BUFFERED}: not for a direct read, or the end of the stream (which the buffered read sees)
     */
    private int placeDirect(ByteBuffer buffer) throws IOException {
        int remaining = decoder.payloadRemaining();
        BufferCursor target = placement.directTarget();
        // small payloads are cheaper to take with the next buffered read than with a read of their own
        if (remaining < RxPlacement.DIRECT_PLACEMENT_MIN || target == null || draining) {
            return PLACE_BUFFERED;
        }
        int readAhead = READ_AHEAD;
        if (!drive.nonBlocking()) {
            int ready = input == null ? 0 : input.available();
            if (ready == 0) {
                return PLACE_AWAIT;
            }
            if (ready < RxPlacement.DIRECT_PLACEMENT_MIN && ready < remaining) {
                return PLACE_BUFFERED; // a little has arrived: the buffered read takes it (copies are cheap there)
            }
            readAhead = Math.min(READ_AHEAD, ready - Math.min(ready, remaining));
            remaining = Math.min(remaining, ready);
        }
        int k = target.slices(placement.offset(), remaining, Long.MAX_VALUE, views, 0);
        if (k <= 0 || k >= views.length) {
            return PLACE_BUFFERED; // more pieces than views, or outside the grant: the buffered path reports it
        }
        // views may be windows of a larger buffer (position = where the piece starts): remember the starts
        for (int i = 0; i < k; i++) {
            viewStarts[i] = views[i].position();
        }
        // the same read takes the FPDU's pad and CRC and the start of what follows (the next header) into the
        // receive buffer: one system call per FPDU while the stream keeps up
        buffer.clear().limit(readAhead);
        views[k] = buffer;
        // a failure recorded before is seen here; one recorded during the read finds it taking only octets that had
        // arrived before (blocking mode), and the next step drains
        if (state.failure() != null) {
            Arrays.fill(views, 0, k + 1, null);
            return PLACE_BUFFERED;
        }
        long n = channel.read(views, 0, readAhead > 0 ? k + 1 : k);
        views[k] = null;
        drained = n < (long) remaining + readAhead;
        if (n <= 0) {
            for (int i = 0; i < k; i++) {
                views[i] = null;
            }
            // the end of the stream: the buffered read sees it; nothing there (non-blocking): say so
            return n < 0 ? PLACE_BUFFERED : STEP_IDLE;
        }
        int placed = (int) Math.min(n, remaining);
        for (int i = 0; i < k; i++) {
            views[i].limit(views[i].position()).position(viewStarts[i]); // exactly the bytes this read placed
        }
        capture.inbound(views, k);
        decoder.payloadPlaced(views, 0, k, placed);
        placement.placed(placed);
        counters.bytesInDirect(placed);
        Arrays.fill(views, 0, k, null);
        if (n > placed) {
            buffer.flip();
            capture.inbound(buffer, 0, buffer.remaining());
            consume(buffer);
        }
        return STEP_READ;
    }

    /** @return whether the last {@link #step}'s read took less than it asked for (the socket held no more) */
    boolean drained() {
        return drained;
    }

    /** Feeds {@code chunk} to the decoder; a decoder error is answered (a Terminate) or closes the connection. */
    private void consume(ByteBuffer chunk) {
        if (!draining && state.failure() != null) {
            draining = true; // a local abort: nothing more is placed
        }
        if (draining) {
            return;
        }
        FpduError error = decoder.feed(chunk);
        if (error == FpduError.NONE) {
            return;
        }
        draining = true;
        if (error == FpduError.CRC_MISMATCH) {
            counters.crcError();
            // on a wire a damaged segment; between two jndk ends (loopback above all) a bug to chase: say where
            LOG.warning(() -> "iWARP " + connection + ": " + decoder.crcMismatchDetail() + "; " + placement.arrival()
                + "; answered with a Terminate (LLP, CRC error)");
        }
        if (error == FpduError.STOPPED) {
            return; // a listener callback recorded the failure already
        }
        if (!state.established()) {
            connection.failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
            return;
        }
        connection.fail(dispatch.terminates().answering(error, decoder), dispatch::abandonReceive);
    }

    /** The stream ended (the receive thread read the peer's FIN). */
    private void endOfStream() {
        if (draining || state.failure() != null || state.closingLocally()) {
            return;
        }
        if (!state.established()) {
            connection.failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
            return;
        }
        dispatch.abandonReceive();
        if (state.disconnectRequested()) {
            return;
        }
        if (!decoder.atFrameBoundary()) {
            // the stream ended inside an FPDU: the connection was lost (RFC 5044), not closed in order
            connection.fail(Failure.connectionReset());
            return;
        }
        if (state.claimEndReport()) {
            qp.peerClosed();
        }
    }

    /** A read failed (or the engine threw): the connection is reset, unless it is already going down. */
    void broke(Exception e) {
        if (e instanceof RuntimeException) {
            LOG.log(Level.WARNING, "iWARP receive engine failed; resetting the connection", e);
        }
        if (!state.closingLocally() && state.failure() == null && !state.isClosed()) {
            if (!state.established()) {
                connection.failPassive(NtStatus.STATUS_CONNECTION_ABORTED);
            } else {
                dispatch.abandonReceive();
                connection.fail(Failure.connectionReset());
            }
        }
    }
}
