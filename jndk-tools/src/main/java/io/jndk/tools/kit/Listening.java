package io.jndk.tools.kit;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkListener;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A server's listener and the connection requests it has received, in order. */
public final class Listening implements AutoCloseable {
    private final NdkListener listener;
    private final LinkedBlockingQueue<NdkConnector> incoming = new LinkedBlockingQueue<>();

    /** Creates a listener on {@code adapter}; it listens once {@link #listen} is called. */
    public Listening(NdkAdapter adapter) {
        listener = Sync.create("CreateListener", (cc, c, o) -> adapter.createListener((x, conn) -> incoming.add(conn), null,
                cc, c, o));
    }

    /** The listener itself (for an owner that closes it with other objects). */
    public NdkListener listener() {
        return listener;
    }

    /** Starts listening on {@code at}; returns the status. */
    public int tryListen(InetSocketAddress at) {
        return Sync.get(Sync.start((rc, c) -> listener.listen(at, rc, c)), "Listen");
    }

    /** Starts listening on {@code at}, or throws the {@link Failure#listen} line for it. */
    public void listen(InetSocketAddress at) {
        int st = tryListen(at);
        if (st != NtStatus.STATUS_SUCCESS) {
            throw Failure.listen(at.getAddress().getHostAddress() + ":" + at.getPort(), st);
        }
    }

    /** Where it listens (the port chosen when 0 was asked for). */
    public InetSocketAddress bound() {
        Ref<InetSocketAddress> where = new Ref<>();
        Checks.check(listener.getLocalAddress(where, new IntRef(28)), "GetListenerLocalAddress");
        return where.get();
    }

    /** The next connection request, waiting as long as it takes. */
    public NdkConnector take() throws InterruptedException {
        return incoming.take();
    }

    /** The next connection request within {@code ms}, or null. */
    public NdkConnector poll(long ms) throws InterruptedException {
        return incoming.poll(ms, TimeUnit.MILLISECONDS);
    }

    /** Closes the listener. */
    @Override
    public void close() {
        Sync.close(listener);
    }
}
