package io.jndk.provider.loopback;

import io.jndk.provider.spi.ListenHandler;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What the loopback adapters of one JVM share, as a network would: the listening addresses (with the address of the
 * adapter that listens), the addresses the adapters own (a destination nobody owns is unreachable), and one timer
 * thread for connection setup deadlines.
 */
final class LoopbackFabric {
    static final LoopbackFabric JVM = new LoopbackFabric();

    /** A listening address: its handler and the transport (adapter) that listens. */
    record Listening(ListenHandler handler, LoopbackTransport transport) {}

    private final Map<InetSocketAddress, Listening> listeners = new HashMap<>();
    private final Map<InetAddress, Integer> owners = new HashMap<>();
    private final ScheduledThreadPoolExecutor timer;

    private LoopbackFabric() {
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jndk-loopback-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    synchronized void adapterOpened(InetAddress a) {
        owners.merge(a, 1, Integer::sum);
    }

    synchronized void adapterClosed(InetAddress a) {
        owners.computeIfPresent(a, (k, v) -> v == 1 ? null : v - 1);
    }

    synchronized boolean owned(InetAddress ip) {
        return owners.containsKey(ip);
    }

    synchronized void listen(InetSocketAddress address, ListenHandler handler, LoopbackTransport transport) {
        listeners.put(address, new Listening(handler, transport));
    }

    synchronized void unlisten(InetSocketAddress address) {
        listeners.remove(address);
    }

    /**
     * The listener for a destination: the exact address first, then the wildcard on that port when the wildcard's
     * adapter owns the destination address.
     */
    synchronized Listening find(InetSocketAddress destination) {
        Listening l = listeners.get(destination);
        if (l == null) {
            InetAddress ip = destination.getAddress();
            InetSocketAddress any = new InetSocketAddress(ip instanceof Inet4Address ? "0.0.0.0" : "::", destination.getPort());
            l = listeners.get(any);
            if (l != null && !l.transport().address().equals(ip)) {
                l = null;
            }
        }
        return l;
    }

    /** Runs {@code task} after {@code millis} on the timer thread. */
    ScheduledFuture<?> schedule(Runnable task, long millis) {
        return timer.schedule(task, millis, TimeUnit.MILLISECONDS);
    }
}
