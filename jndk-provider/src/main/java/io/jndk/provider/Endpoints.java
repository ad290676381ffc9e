package io.jndk.provider;

import io.jndk.api.NtStatus;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The endpoint table shared by the adapters of one transport in this JVM (NDKPI §7.6): the local addresses held
 * (ND port = the transport's port), with their reference counts, and the 4-tuples of connections in use. Listening
 * and connecting are the transport's ({@link io.jndk.provider.spi.WireTransport}); this table only decides which
 * local endpoints may be used.
 */
final class Endpoints {
    static final int EPHEMERAL_LOW = 49152, EPHEMERAL_HIGH = 65535;

    private static final Map<String, Endpoints> NAMED = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The endpoint table of a transport, one per name in the JVM.
     *
     * @param hostPorts ports come from the host's port space (a transport over host sockets), not from the table alone
     */
    static Endpoints named(String name, boolean hostPorts) {
        Endpoints e = NAMED.computeIfAbsent(name, Endpoints::new);
        e.osPorts = hostPorts;
        return e;
    }

    private final String name;
    private final Map<InetSocketAddress, int[]> endpoints = new HashMap<>();
    private final Set<String> tuples = new HashSet<>();
    private int nextEphemeral = EPHEMERAL_LOW;
    /** Ports come from the host's port space (wire transports) rather than the in-JVM table alone. */
    volatile boolean osPorts;

    private Endpoints(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    static boolean wildcard(InetAddress ip) {
        return ip.isAnyLocalAddress();
    }

    /** The IPv4 limited broadcast address, 255.255.255.255. */
    private static final byte[] BROADCAST = {-1, -1, -1, -1};

    /**
     * True when {@code ip} can be the destination of a connection: not a wildcard (0.0.0.0, ::), not the limited
     * broadcast address (255.255.255.255), not multicast (224.0.0.0/4, ff00::/8). A connect to any of those is refused
     * with {@code STATUS_INVALID_ADDRESS} before a transport sees it (Linux, for one, turns a TCP connect to 0.0.0.0
     * into one to the local host).
     */
    static boolean connectable(InetAddress ip) {
        return !ip.isAnyLocalAddress() && !ip.isMulticastAddress()
                && !(ip instanceof Inet4Address && java.util.Arrays.equals(ip.getAddress(), BROADCAST));
    }

    /** True when {@code ip} may be bound by {@code a}: its own address or the wildcard. */
    static boolean validLocal(SoftAdapter a, InetAddress ip) {
        return wildcard(ip) || ip.equals(a.address());
    }

    /**
     * Takes a reference on a local endpoint; port 0 picks an ephemeral port. {@code exclusive}: fail when
     * the address:port is already held. Returns a status and the bound address in {@code out[0]}.
     */
    synchronized int bind(SoftAdapter a, InetSocketAddress want, boolean exclusive, InetSocketAddress[] out) {
        InetAddress ip = want.getAddress();
        if (ip == null || !validLocal(a, ip)) {
            return NtStatus.STATUS_INVALID_ADDRESS;
        }
        if (want.getPort() == 0 && osPorts) {
            // a wire transport shares the host's port space: let the OS pick a free port, then reserve it here
            for (int tries = 0; tries < 64; tries++) {
                int port = osEphemeralPort(ip);
                if (port <= 0) {
                    return NtStatus.STATUS_TOO_MANY_ADDRESSES;
                }
                InetSocketAddress cand = new InetSocketAddress(ip, port);
                if (!inUse(cand)) {
                    endpoints.put(cand, new int[] {1});
                    out[0] = cand;
                    return NtStatus.STATUS_SUCCESS;
                }
            }
            return NtStatus.STATUS_TOO_MANY_ADDRESSES;
        }
        if (want.getPort() == 0) {
            for (int tries = 0; tries <= EPHEMERAL_HIGH - EPHEMERAL_LOW; tries++) {
                int port = nextEphemeral;
                nextEphemeral = nextEphemeral == EPHEMERAL_HIGH ? EPHEMERAL_LOW : nextEphemeral + 1;
                InetSocketAddress cand = new InetSocketAddress(ip, port);
                if (!inUse(cand)) {
                    endpoints.put(cand, new int[] {1});
                    out[0] = cand;
                    return NtStatus.STATUS_SUCCESS;
                }
            }
            return NtStatus.STATUS_TOO_MANY_ADDRESSES;
        }
        if (exclusive && inUse(want)) {
            return NtStatus.STATUS_SHARING_VIOLATION;
        }
        endpoints.computeIfAbsent(want, k -> new int[1])[0]++;
        out[0] = want;
        return NtStatus.STATUS_SUCCESS;
    }

    private boolean inUse(InetSocketAddress addr) {
        if (endpoints.containsKey(addr)) {
            return true;
        }
        // a wildcard endpoint conflicts with every address on its port, and the other way round
        for (InetSocketAddress e : endpoints.keySet()) {
            if (e.getPort() == addr.getPort() && (wildcard(e.getAddress()) || wildcard(addr.getAddress()))
                    && (e.getAddress() instanceof Inet4Address) == (addr.getAddress() instanceof Inet4Address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A port in the NDK ephemeral range 49152-65535 that the OS reports free on {@code ip} right now, or -1.
     * Probing starts at a random port so that successive runs do not meet each other's TIME_WAIT sockets.
     */
    private static int osEphemeralPort(InetAddress ip) {
        int span = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
        int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < 512; i++) {
            int port = EPHEMERAL_LOW + (start + i) % span;
            try (java.nio.channels.ServerSocketChannel ch = java.nio.channels.ServerSocketChannel.open()) {
                // without address reuse the probe also fails on ports held by TIME_WAIT connections
                ch.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, false);
                ch.bind(new InetSocketAddress(ip, port));
                return port;
            } catch (java.io.IOException e) {
                // in use: try the next one
            }
        }
        return -1;
    }

    /** Takes another reference on an endpoint already held. */
    synchronized void retain(InetSocketAddress addr) {
        endpoints.computeIfAbsent(addr, k -> new int[1])[0]++;
    }

    synchronized void release(InetSocketAddress addr) {
        int[] n = endpoints.get(addr);
        if (n != null && --n[0] <= 0) {
            endpoints.remove(addr);
        }
    }

    synchronized boolean addTuple(InetSocketAddress local, InetSocketAddress remote) {
        return tuples.add(local + ">" + remote);
    }

    synchronized void removeTuple(InetSocketAddress local, InetSocketAddress remote) {
        tuples.remove(local + ">" + remote);
    }

    /**
     * An address query's answer (GetLocalAddress, GetPeerAddress): {@code STATUS_BUFFER_TOO_SMALL} with the size
     * needed (16 octets for IPv4, 28 for IPv6) when {@code length} is short, else the address.
     */
    static int copyAddress(InetSocketAddress a, io.jndk.api.Ref<InetSocketAddress> out, io.jndk.api.IntRef length) {
        int need = a == null || a.getAddress() instanceof Inet4Address ? 16 : 28;
        if (length == null || Integer.compareUnsigned(length.value, need) < 0) { // *pAddressLength is a ULONG
            if (length != null) {
                length.value = need;
            }
            return NtStatus.STATUS_BUFFER_TOO_SMALL;
        }
        length.value = need;
        if (out != null) {
            out.set(a);
        }
        return NtStatus.STATUS_SUCCESS;
    }
}
