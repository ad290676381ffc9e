package io.jndk.tools.perftest;

import io.jndk.tools.kit.Failure;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;

/**
 * perftest's exchange without rdma_cm: one TCP connection (the client connects to the server's port, 18515 by
 * default) carrying the same messages as the rdma_cm mode's control Sends, back to back with no framing: each side
 * knows the length of the next message (both send the same kind), and the destinations go as ASCII keys
 * ({@link PerftestWire.Dest#encodeKeys}) instead of the binary structure.
 */
final class PerftestTcpControl implements PerftestChannel {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final boolean client;
    private final ArrayDeque<byte[]> back = new ArrayDeque<>();
    private volatile boolean gone;

    private PerftestTcpControl(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** The client's side: connects to {@code server} from {@code local} (null: the system's choice). */
    static PerftestTcpControl connect(InetSocketAddress local, InetSocketAddress server, long timeoutMs, int attempts)
            throws InterruptedException {
        IOException last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            Socket s = new Socket();
            try {
                if (local != null) {
                    s.bind(new InetSocketAddress(local.getAddress(), 0));
                }
                s.connect(server, (int) timeoutMs);
                return new PerftestTcpControl(s, true);
            } catch (IOException e) {
                last = e;
                closeQuietly(s);
                Thread.sleep(Math.min(500, 50L * attempt)); // the server is not listening yet: a back-off, bounded
            }
        }
        throw new Failure(Failure.Kind.UNREACHABLE, "Couldn't connect to " + server.getHostString() + ":"
                + server.getPort() + " (" + (last == null ? "" : last.getMessage()) + "; start the server first)");
    }

    /** The server's side: listens on {@code at} for one client and takes it. */
    static PerftestTcpControl accept(InetSocketAddress at, long timeoutMs) throws TimeoutException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(at, 1);
            ss.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs));
            return new PerftestTcpControl(ss.accept(), false);
        } catch (SocketTimeoutException e) {
            throw new TimeoutException("no client connected to " + at + " within " + timeoutMs / 1000 + " s");
        } catch (IOException e) {
            throw new Failure(Failure.Kind.OTHER, "Couldn't listen to port " + at.getPort() + " (" + e.getMessage() + ")");
        }
    }

    @Override
    public byte[] exchange(byte[] mine, long timeoutMs, String what) throws TimeoutException {
        if (client) {
            send(mine);
            return receive(mine.length, timeoutMs, what);
        }
        byte[] theirs = receive(mine.length, timeoutMs, what);
        send(mine);
        return theirs;
    }

    /** Both sides write, then both read (the exchange's last message, "done", goes this way in perftest). */
    byte[] sendThenReceive(byte[] mine, long timeoutMs, String what) throws TimeoutException {
        send(mine);
        return receive(mine.length, timeoutMs, what);
    }

    private void send(byte[] m) {
        try {
            out.write(m);
            out.flush();
        } catch (IOException e) {
            gone = true;
            throw new Failure("the peer closed the TCP exchange (" + e.getMessage() + ")");
        }
    }

    private byte[] receive(int length, long timeoutMs, String what) throws TimeoutException {
        byte[] held = back.poll();
        if (held != null) {
            return held;
        }
        byte[] m = new byte[length];
        int got = 0;
        try {
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, timeoutMs)));
            while (got < length) {
                int n = in.read(m, got, length - got);
                if (n < 0) {
                    gone = true;
                    throw new Failure("the peer closed the TCP exchange while this side waited for its " + what
                            + " message (" + got + " of " + length + " bytes)");
                }
                got += n;
            }
        } catch (SocketTimeoutException e) {
            throw new TimeoutException("no " + what + " message from the peer within " + timeoutMs / 1000 + " s");
        } catch (IOException e) {
            gone = true;
            throw new Failure("the TCP exchange failed while this side waited for its " + what + " message ("
                    + e.getMessage() + ")");
        }
        return m;
    }

    @Override
    public byte[] tryReceive(int length) {
        if (!back.isEmpty()) {
            return back.poll();
        }
        try {
            if (in.available() < length) {
                return null;
            }
            return receive(length, 1000, "next");
        } catch (IOException | TimeoutException e) {
            return null;
        }
    }

    @Override
    public void pushBack(byte[] m) {
        back.addFirst(Arrays.copyOf(m, m.length));
    }

    @Override
    public boolean peerGone() {
        return gone;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
