package io.jndk.tools.fault;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.tools.kit.Sync;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Two iwarp adapters on 127.0.0.1 for fault sessions, and a listener on the passive one that hands each incoming
 * connector to the session whose number leads the connect's private data (sessions run concurrently).
 */
final class FaultPair implements AutoCloseable {
    /** Bound of each adapter close. */
    static final long CLOSE_MILLIS = 10_000;
    final NdkAdapter active;
    final NdkAdapter passive;
    final InetSocketAddress address;
    private final NdkListener listener;
    private final Map<Long, CompletableFuture<NdkConnector>> expected = new ConcurrentHashMap<>();

    /** Opens both adapters with {@code options} (for example {@code crc=true}) and starts listening. */
    FaultPair(Map<String, String> options) {
        NdkOpenParameters p = NdkOpenParameters.of("iwarp", InetAddress.getLoopbackAddress()).withOptions(options);
        active = Ndk.open(p);
        passive = Ndk.open(p);
        listener = Sync.create("CreateListener", (cc, c, o) -> passive.createListener((ctx, conn) -> route(conn), null,
            cc, c, o));
        Sync.request("Listen", (rc, c) -> listener.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), rc,
            c));
        Ref<InetSocketAddress> bound = new Ref<>();
        Sync.check("GetLocalAddress", listener.getLocalAddress(bound, new IntRef(28)));
        address = bound.get();
    }

    /**
     * Connects {@code activeQp} to the listener through {@code via} (a proxy in front of {@link #address}) and
     * accepts on {@code passiveQp}.
     *
     * @param session a number unique among the connections of this pair (it routes the incoming connector)
     * @param created receives each connector as it is created, active first (the caller closes them)
     * @throws Sync.NdkException or IllegalStateException if a step fails or times out
     */
    void connect(NdkQp activeQp, NdkQp passiveQp, InetSocketAddress via, long session, Consumer<NdkConnector> created) {
        CompletableFuture<NdkConnector> incoming = expected.computeIfAbsent(session, k -> new CompletableFuture<>());
        try {
            NdkConnector ac = Sync.create("CreateConnector", active::createConnector);
            created.accept(ac);
            byte[] privateData = ByteBuffer.allocate(Long.BYTES).putLong(session).array();
            CompletableFuture<Integer> connect = Sync.start((rc, c) -> ac.connect(activeQp,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), via, 4, 4, privateData, rc, c));
            NdkConnector pc;
            try {
                pc = Sync.get(incoming, "connect event");
            } catch (IllegalStateException e) {
                throw new IllegalStateException(e.getMessage() + " (Connect: " + (connect.isDone()
                    ? NtStatus.describe(connect.join()) : "pending") + ")", e);
            }
            created.accept(pc);
            CompletableFuture<Integer> accept = Sync.start((rc, c) -> pc.accept(passiveQp, 4, 4, null, x -> { }, null,
                rc, c));
            Sync.check("Connect", Sync.get(connect, "Connect"));
            Sync.request("CompleteConnect", (rc, c) -> ac.completeConnect(x -> { }, null, rc, c));
            Sync.check("Accept", Sync.get(accept, "Accept"));
        } finally {
            expected.remove(session);
        }
    }

    private void route(NdkConnector conn) {
        byte[] data = new byte[Long.BYTES];
        IntRef length = new IntRef(data.length);
        CompletableFuture<NdkConnector> f = null;
        if (conn.getConnectionData(null, null, data, length) == NtStatus.STATUS_SUCCESS
            && length.value == Long.BYTES) {
            f = expected.get(ByteBuffer.wrap(data).getLong());
        }
        if (f == null || !f.complete(conn)) {
            // not ours (or too late): refuse it; the close completes later on this dispatcher, so do not wait
            conn.reject(null);
            conn.close(c -> { }, null);
        }
    }

    /**
     * Closes the listener, then both adapters, each within {@value #CLOSE_MILLIS} ms.
     *
     * @throws IllegalStateException if an adapter close did not return in time (an object was leaked)
     */
    @Override
    public void close() {
        try {
            Sync.close(listener);
        } finally {
            closeAdapter(active);
            closeAdapter(passive);
        }
    }

    private static void closeAdapter(NdkAdapter a) {
        Thread t = Thread.ofVirtual().name("fault-adapter-close").start(a::close);
        try {
            if (!t.join(java.time.Duration.ofMillis(CLOSE_MILLIS))) {
                throw new IllegalStateException("adapter close did not return within " + CLOSE_MILLIS + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing an adapter", e);
        }
    }
}
