package io.jndk.iwarp.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Shared helpers for the connection-setup tests: loopback addresses, raw peers, byte helpers. */
public final class CmTestSupport {

    static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    /** A guard against hanging, never a synchronisation device: every wait has this upper bound. */
    public static final int GUARD_MS = 20_000;

    private CmTestSupport() {
    }

    public static byte[] hex(String text) {
        return HexFormat.of().parseHex(text.replaceAll("\\s+", ""));
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static MpaListener listen(RequestHandler handler) {
        return listen(MpaListener.DEFAULT_REQUEST_TIMEOUT, handler);
    }

    static MpaListener listen(java.time.Duration requestTimeout, RequestHandler handler) {
        MpaListenResult r = MpaListener.open(ANY_LOOPBACK, 16, requestTimeout, handler);
        assertThat(r).isInstanceOf(MpaListenResult.Listening.class);
        return ((MpaListenResult.Listening) r).listener();
    }

    /** A handler that accepts every Request with fixed parameters and queues the outcome. */
    static final class Accepting implements RequestHandler {
        final BlockingQueue<MpaOutcome> outcomes = new LinkedBlockingQueue<>();
        final BlockingQueue<MpaRequest> requests = new LinkedBlockingQueue<>();
        private final MpaParams params;

        Accepting(MpaParams params) {
            this.params = params;
        }

        @Override
        public void onRequest(MpaRequest request, PendingMpaConnection connection) {
            requests.add(request);
            outcomes.add(connection.accept(params));
        }

        MpaOutcome.Accepted next() throws InterruptedException {
            MpaOutcome o = outcomes.poll(GUARD_MS, TimeUnit.MILLISECONDS);
            assertThat(o).isInstanceOf(MpaOutcome.Accepted.class);
            return (MpaOutcome.Accepted) o;
        }
    }

    public static Socket rawClient(InetSocketAddress to) throws IOException {
        Socket s = new Socket(to.getAddress(), to.getPort());
        s.setSoTimeout(GUARD_MS);
        s.setTcpNoDelay(true);
        return s;
    }

    public static byte[] readExactly(Socket s, int n) throws IOException {
        byte[] out = s.getInputStream().readNBytes(n);
        assertThat(out).as("octets before close").hasSize(n);
        return out;
    }

    /** Reads until the peer closes (EOF or reset); returns what arrived before. */
    public static byte[] readUntilClose(Socket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[1024];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // a close with unread octets on the other side arrives as a reset: still a close
        }
        return out.toByteArray();
    }

    static void readExactly(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("closed");
            }
        }
    }

    /** A port with nothing listening on it (bound, then released). */
    static int unusedPort() throws IOException {
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(ANY_LOOPBACK);
            return ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
    }

    /** The siw reference captures: {@code testdata/siw} of the test resources (recorded data; its README says how). */
    static Path siwTestdata() {
        URL request = CmTestSupport.class.getResource("/testdata/siw/siw-mpa-request.bin");
        if (request == null) {
            throw new IllegalStateException("test resource testdata/siw/siw-mpa-request.bin is missing");
        }
        try {
            return Path.of(request.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
