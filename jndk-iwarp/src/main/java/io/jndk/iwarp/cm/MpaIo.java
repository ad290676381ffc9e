package io.jndk.iwarp.cm;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.time.Duration;
import java.util.Locale;

/** Blocking I/O with deadlines on a {@link SocketChannel}, and the mapping of failures to {@link MpaFailure}. */
final class MpaIo {

    /** Where in the setup an exception happened; the same exception means different things. */
    enum Phase { BIND, CONNECT, MPA }

    private MpaIo() {
    }

    static long deadline(Duration timeout) {
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException e) {
            nanos = Long.MAX_VALUE / 2;
        }
        return System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 2);
    }

    static int millis(Duration timeout) {
        long ms = timeout.toMillis();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    }

    /**
     * Reads into the heap buffer {@code buffer} (from its position, up to its limit) until its
     * position reaches {@code atLeast}; may read more, up to the limit.
     *
     * @throws EOFException the peer closed first
     * @throws SocketTimeoutException the deadline passed first
     */
    static void readAtLeast(SocketChannel channel, ByteBuffer buffer, int atLeast, long deadlineNanos) throws IOException {
        InputStream in = channel.socket().getInputStream();
        while (buffer.position() < atLeast) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                throw new SocketTimeoutException("MPA frame not complete in time");
            }
            channel.socket().setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, remaining / 1_000_000L)));
            int n = in.read(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            if (n < 0) {
                throw new EOFException("peer closed the connection after " + buffer.position() + " octets");
            }
            buffer.position(buffer.position() + n);
        }
    }

    static void writeFully(SocketChannel channel, ByteBuffer data) throws IOException {
        while (data.hasRemaining()) {
            channel.write(data);
        }
    }

    /** How long {@link #closeAfterLinger} waits for the peer to close: as the stream engine's linger. */
    static final long LINGER_MILLIS = 2_000;

    /**
     * Closes {@code channel} after a frame that must reach the peer (a Terminate during setup): half-closes it at once,
     * then, on a virtual thread, reads and discards whatever the peer still sends until it closes or
     * {@link #LINGER_MILLIS} pass, and closes. Closing straight away with input unread would make Linux send a reset,
     * which can destroy the frame before the peer reads it.
     */
    static void closeAfterLinger(SocketChannel channel) {
        try {
            channel.shutdownOutput();
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            return;
        }
        Thread.ofVirtual().name("mpa-linger").start(() -> {
            long deadline = deadline(Duration.ofMillis(LINGER_MILLIS));
            byte[] discard = new byte[4096];
            try {
                InputStream in = channel.socket().getInputStream();
                for (long remaining; (remaining = deadline - System.nanoTime()) > 0; ) {
                    channel.socket().setSoTimeout((int) Math.max(1, remaining / 1_000_000L));
                    if (in.read(discard) < 0) {
                        break;
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // timed out, reset, or closed: close now
            } finally {
                closeQuietly(channel);
            }
        });
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // nothing more to do with a broken socket
        }
    }

    /** Maps an exception of the given phase to a failure reason. */
    static MpaFailure classify(Phase phase, Throwable e) {
        if (e instanceof ClosedByInterruptException || Thread.currentThread().isInterrupted()) {
            return MpaFailure.CANCELLED;
        }
        if (e instanceof UnresolvedAddressException || e instanceof UnsupportedAddressTypeException) {
            return MpaFailure.INVALID_ADDRESS;
        }
        if (e instanceof SocketTimeoutException) {
            return MpaFailure.TIMEOUT;
        }
        String message = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
        if (e instanceof BindException) {
            // EADDRNOTAVAIL ("Cannot assign requested address") and EACCES also surface as BindException
            if (message.contains("assign") || message.contains("not available")) {
                return MpaFailure.INVALID_ADDRESS;
            }
            return phase == Phase.CONNECT && !message.contains("in use") ? MpaFailure.INVALID_ADDRESS : MpaFailure.ADDRESS_IN_USE;
        }
        if (phase == Phase.BIND) {
            return MpaFailure.INVALID_ADDRESS;
        }
        if (e instanceof NoRouteToHostException || message.contains("host is unreachable")) {
            return MpaFailure.HOST_UNREACHABLE;
        }
        if (message.contains("network is unreachable")) {
            return MpaFailure.NETWORK_UNREACHABLE;
        }
        if (message.contains("timed out")) {
            return MpaFailure.TIMEOUT;
        }
        if (phase == Phase.MPA) {
            return MpaFailure.PEER_CLOSED; // EOF, reset, any other I/O error once TCP was up: the peer went away
        }
        return MpaFailure.REFUSED; // ConnectException and any other error of the TCP connect: nobody listens there
    }

    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
