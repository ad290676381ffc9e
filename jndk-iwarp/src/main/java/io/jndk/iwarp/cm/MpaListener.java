package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.MpaFrameCheck;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The passive side of MPA connection setup: a TCP listener (SO_REUSEADDR) whose accept loop runs on
 * its own virtual thread; each accepted connection gets a virtual thread that reads the MPA Request
 * within the request timeout (siw: 5 s) and validates it like siw (IWARP.md 1.5, 5.4 item 20):
 *
 * <ul>
 *   <li>wrong key, revision other than 1 or 2, PD_Length above 256: closed without an answer;</li>
 *   <li>M = 1 (markers), or S = 1 without room for the IRD/ORD word or on revision 1: answered with
 *       an MPA Reply with R = 1 and a short ASCII reason as private data, then closed;</li>
 *   <li>incomplete within the timeout: closed;</li>
 *   <li>otherwise handed to the {@link RequestHandler} as a {@link PendingMpaConnection}.</li>
 * </ul>
 *
 * <p>Exactly the Request's octets are read, nothing beyond. {@link #close()} stops accepting, closes
 * the server socket, and closes every connection still in setup or pending an answer.
 */
public final class MpaListener implements AutoCloseable {

    /** Default wait for the complete MPA Request after TCP accept (siw's 5 s). */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /** Default TCP backlog. */
    public static final int DEFAULT_BACKLOG = 128;
    /** Pause after a failed accept (out of file descriptors, say) before trying again. */
    private static final long ACCEPT_RETRY_NANOS = 10_000_000L;
    /** How long a close waits at most for the accept loop to leave {@code accept} (it takes microseconds). */
    private static final long ACCEPTOR_STOP_MILLIS = 2_000;
    /** Reject reason sent for M = 1. */
    static final String REASON_MARKERS = "MPA markers not supported";
    /** Reject reason sent for a malformed enhanced Request. */
    static final String REASON_ENHANCED = "MPA enhanced data malformed";

    private final ServerSocketChannel server;
    /** The accept loop's thread; set once, when the listener opens. */
    private volatile Thread acceptor;
    private final InetSocketAddress localAddress;
    private final Duration requestTimeout;
    private final RequestHandler handler;
    private final BooleanSupplier admit;
    private final Set<SocketChannel> inSetup = ConcurrentHashMap.newKeySet();
    private final Set<PendingMpaConnection> pending = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong handed = new AtomicLong();
    private volatile boolean open = true;

    /** Socket buffer sizes of accepted connections. */
    private final SocketBuffers buffers;

    private MpaListener(ServerSocketChannel server, Duration requestTimeout, RequestHandler handler,
                        BooleanSupplier admit, SocketBuffers buffers) throws IOException {
        this.buffers = buffers;
        this.server = server;
        this.localAddress = (InetSocketAddress) server.getLocalAddress();
        this.requestTimeout = requestTimeout;
        this.handler = handler;
        this.admit = admit;
    }

    /**
     * Opens a listener with the default backlog and request timeout.
     *
     * @param local address to bind; port 0 picks an ephemeral port ({@link #localAddress()} tells which)
     * @param handler receives valid Requests
     * @return the listener or the failure
     */
    public static MpaListenResult open(InetSocketAddress local, RequestHandler handler) {
        return open(local, DEFAULT_BACKLOG, DEFAULT_REQUEST_TIMEOUT, handler);
    }

    /**
     * Opens a listener.
     *
     * @param local address to bind; port 0 picks an ephemeral port
     * @param backlog TCP backlog, positive
     * @param requestTimeout wait for the complete MPA Request, positive
     * @param handler receives valid Requests
     * @return the listener or the failure ({@link MpaFailure#ADDRESS_IN_USE}, {@link MpaFailure#INVALID_ADDRESS})
     */
    public static MpaListenResult open(InetSocketAddress local, int backlog, Duration requestTimeout, RequestHandler handler) {
        return open(local, backlog, requestTimeout, handler, () -> true);
    }

    /**
     * Opens a listener whose accepted TCP connections are first offered to {@code admit}: when it answers false
     * (a connection limit is reached) the connection is closed at once, before anything is read, and counted as
     * dropped.
     *
     * @param local address to bind; port 0 picks an ephemeral port
     * @param backlog TCP backlog, positive
     * @param requestTimeout wait for the complete MPA Request, positive
     * @param handler receives valid Requests
     * @param admit asked once per accepted TCP connection, on the accept thread
     * @return the listener or the failure ({@link MpaFailure#ADDRESS_IN_USE}, {@link MpaFailure#INVALID_ADDRESS})
     */
    public static MpaListenResult open(InetSocketAddress local, int backlog, Duration requestTimeout, RequestHandler handler,
                                       BooleanSupplier admit) {
        return open(local, backlog, requestTimeout, handler, admit, SocketBuffers.SYSTEM);
    }

    /**
     * As {@link #open(InetSocketAddress, int, Duration, RequestHandler, BooleanSupplier)}, with the socket buffer
     * sizes of the accepted connections (set on the listening socket, which they inherit them from).
     *
     * @param buffers {@code SO_SNDBUF}/{@code SO_RCVBUF} of accepted connections
     */
    public static MpaListenResult open(InetSocketAddress local, int backlog, Duration requestTimeout, RequestHandler handler,
                                       BooleanSupplier admit, SocketBuffers buffers) {
        Objects.requireNonNull(buffers, "buffers");
        Objects.requireNonNull(admit, "admit");
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(handler, "handler");
        if (backlog <= 0 || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("backlog and requestTimeout must be positive");
        }
        if (local.isUnresolved()) {
            return new MpaListenResult.Failed(MpaFailure.INVALID_ADDRESS, "unresolved address " + local);
        }
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open(local.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            buffers.apply(server);
            server.bind(local, backlog);
            MpaListener listener = new MpaListener(server, requestTimeout, handler, admit, buffers);
            listener.acceptor = Thread.ofVirtual().name("mpa-listen-" + listener.localAddress.getPort())
                .start(listener::acceptLoop);
            return new MpaListenResult.Listening(listener);
        } catch (UnresolvedAddressException | UnsupportedAddressTypeException e) {
            MpaIo.closeQuietly(server);
            return new MpaListenResult.Failed(MpaFailure.INVALID_ADDRESS, MpaIo.describe(e));
        } catch (IOException e) {
            MpaIo.closeQuietly(server);
            return new MpaListenResult.Failed(MpaIo.classify(MpaIo.Phase.BIND, e), "bind " + local + ": " + MpaIo.describe(e));
        }
    }

    /** @return the bound address (with the actual port) */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** @return whether the listener is still accepting */
    public boolean isOpen() {
        return open;
    }

    /** @return TCP connections accepted so far */
    public long connectionsAccepted() {
        return accepted.get();
    }

    /** @return connections closed without an answer (malformed, incomplete, timed out, handler failure) */
    public long requestsDropped() {
        return dropped.get();
    }

    /** @return connections answered with a protocol-level MPA reject (markers, malformed enhanced data) */
    public long requestsRejected() {
        return rejected.get();
    }

    /** @return valid Requests handed to the handler */
    public long requestsHandled() {
        return handed.get();
    }

    /** @return TCP connections still reading their MPA Request */
    public int inSetupCount() {
        return inSetup.size();
    }

    /** @return connections handed to the handler and not yet answered */
    public int pendingCount() {
        return pending.size();
    }

    /** Stops accepting, closes the server socket and every connection in setup or pending. Idempotent. */
    @Override
    public void close() {
        stopAccepting();
        for (PendingMpaConnection p : pending) {
            p.close();
        }
    }

    /**
     * Stops accepting and closes the server socket and the connections still reading their Request,
     * but leaves connections already handed to the handler (pending an answer) alone. Idempotent.
     */
    public void stopAccepting() {
        open = false;
        MpaIo.closeQuietly(server);
        for (SocketChannel c : inSetup) {
            MpaIo.closeQuietly(c);
        }
        awaitAcceptor();
    }

    /**
     * Waits (bounded) until the accept loop has left {@code accept}: a server channel closed while a thread is inside
     * its accept closes the socket only when that thread returns, and until then a connect can still be taken into the
     * backlog (and then reset) instead of refused. The accept loop takes no lock, so this cannot wait on its caller.
     */
    private void awaitAcceptor() {
        Thread t = acceptor;
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(Duration.ofMillis(ACCEPTOR_STOP_MILLIS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (open) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (!open || !server.isOpen()) {
                    return;
                }
                LockSupport.parkNanos(ACCEPT_RETRY_NANOS); // e.g. EMFILE: keep listening, without spinning
                continue;
            }
            accepted.incrementAndGet();
            if (!admit.getAsBoolean()) {
                dropped.incrementAndGet();
                MpaIo.closeQuietly(channel);
                continue;
            }
            inSetup.add(channel);
            if (!open) {
                inSetup.remove(channel);
                MpaIo.closeQuietly(channel);
                return;
            }
            Thread.ofVirtual().name("mpa-setup-" + localAddress.getPort()).start(() -> serve(channel));
        }
    }

    private void serve(SocketChannel channel) {
        boolean kept = false;
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            buffers.applyAccepted(channel);
            long deadline = MpaIo.deadline(requestTimeout);
            ByteBuffer in = ByteBuffer.allocate(MpaFrameFlyweight.HEADER_LENGTH + MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW);
            in.limit(MpaFrameFlyweight.HEADER_LENGTH);
            MpaIo.readAtLeast(channel, in, MpaFrameFlyweight.HEADER_LENGTH, deadline);
            MpaFrameFlyweight request = new MpaFrameFlyweight().wrap(in, 0);
            MpaFrameCheck check = request.validate(MpaFrameKind.REQUEST);
            MpaFrameCheck.Disposition disposition = check.disposition(MpaFrameKind.REQUEST);
            if (disposition == MpaFrameCheck.Disposition.CLOSE
                || request.privateDataLength() > MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW) {
                dropped.incrementAndGet();
                return;
            }
            int frameLength = request.frameLength();
            in.limit(frameLength);
            MpaIo.readAtLeast(channel, in, frameLength, deadline);
            if (disposition == MpaFrameCheck.Disposition.REJECT) {
                rejected.incrementAndGet();
                boolean enhanced = check != MpaFrameCheck.ENHANCED_NEEDS_REVISION_2 && request.enhanced();
                String reason = check == MpaFrameCheck.MARKERS_NOT_SUPPORTED ? REASON_MARKERS : REASON_ENHANCED;
                inSetup.remove(channel);
                kept = true;
                sendRejectAndClose(channel, request.revision(), enhanced, request.crc(),
                    reason.getBytes(StandardCharsets.US_ASCII));
                return;
            }
            MpaFrames.Frame frame = MpaFrames.parse(in);
            MpaFrames.Word w = frame.word();
            MpaRequest mpaRequest = new MpaRequest(frame.revision(), frame.enhanced(), frame.crc(),
                w == null ? MpaNegotiated.UNKNOWN : w.ird(), w == null ? MpaNegotiated.UNKNOWN : w.ord(),
                w != null && w.peerToPeer(), w == null ? Set.of() : w.rtr(), frame.ulpData(),
                (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress) channel.getRemoteAddress());
            byte[] requestOctets = new byte[frameLength];
            in.get(0, requestOctets);
            PendingMpaConnection connection = new PendingMpaConnection(this, channel, frame, mpaRequest,
                requestOctets);
            pending.add(connection);
            inSetup.remove(channel);
            kept = true;
            if (!open) {
                connection.close();
                return;
            }
            handed.incrementAndGet();
            try {
                handler.onRequest(mpaRequest, connection);
            } catch (RuntimeException | Error e) {
                dropped.incrementAndGet();
                connection.close();
                if (e instanceof Error err) {
                    throw err;
                }
            }
        } catch (IOException e) {
            dropped.incrementAndGet(); // timeout, EOF, reset, listener closed
        } finally {
            if (!kept) {
                inSetup.remove(channel);
                MpaIo.closeQuietly(channel);
            }
        }
    }

    void forget(PendingMpaConnection connection) {
        pending.remove(connection);
    }

    /** Writes an MPA Reply with R = 1 and closes; returns whether the Reply was written. */
    boolean sendRejectAndClose(SocketChannel channel, int revision, boolean enhanced, boolean crc, byte[] privateData) {
        MpaFrames.Word word = enhanced ? new MpaFrames.Word(false, Set.of(), 0, 0) : null;
        ByteBuffer reply = MpaFrames.encode(MpaFrameKind.REPLY, revision, crc, true, word, privateData);
        try {
            MpaIo.writeFully(channel, reply);
            channel.shutdownOutput();
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            MpaIo.closeQuietly(channel);
        }
    }

    @Override
    public String toString() {
        return "MpaListener[" + localAddress + (open ? "" : " closed") + "]";
    }
}
