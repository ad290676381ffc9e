package io.jndk.tools.kit;

import io.jndk.api.IntRef;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One end of a tool's connection: the CQs, QPs, registered memory and connectors it creates on an adapter's PD,
 * closed together in one order (connectors, QPs, regions, CQs, then the session's arena). The static helpers open
 * the adapter ({@link #open}) and build its options; {@link Listening} is the passive side's listener. The adapter
 * and the PD stay the caller's: several sessions (a server's connections) share them.
 */
public final class Session implements AutoCloseable {
    private final NdkAdapter adapter;
    private final NdkPd pd;
    private final List<NdkConnector> connectors = new ArrayList<>();
    private final List<NdkQp> qps = new ArrayList<>();
    private final List<NdkMr> mrs = new ArrayList<>();
    private final List<NdkCq> cqs = new ArrayList<>();
    private Arena arena;
    private boolean quietConnectors;

    /** A session on {@code pd} of {@code adapter}. */
    public Session(NdkAdapter adapter, NdkPd pd) {
        this.adapter = adapter;
        this.pd = pd;
    }

    /**
     * Opens a {@code transport} adapter on {@code at}; a failure is one line: "cannot open an iwarp adapter on ..."
     * ("a loopback adapter"), a bad option value a {@link Failure.Kind#USAGE} failure.
     */
    public static NdkAdapter open(String transport, InetAddress at, Map<String, String> options) {
        String what = "cannot open " + article(transport) + " " + transport + " adapter on " + at.getHostAddress() + ": ";
        Ref<NdkAdapter> adapter = new Ref<>();
        int st;
        try {
            st = Ndk.openAdapter(NdkOpenParameters.of(transport, at).withOptions(options), adapter);
        } catch (IllegalArgumentException e) {
            throw new Failure(Failure.Kind.USAGE, what + e.getMessage());
        } catch (RuntimeException e) {
            throw new Failure(what + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
        }
        if (st != NtStatus.STATUS_SUCCESS) {
            throw new Failure(what + NtStatus.describe(st) + (st == NtStatus.NDIS_STATUS_ADAPTER_NOT_READY
                    ? " (the transports installed: " + String.join(", ", Ndk.transports()) + ")"
                    : st == NtStatus.NDIS_STATUS_RESOURCES && transport.equals("roce")
                    ? " (is UDP port " + options.getOrDefault("udp.port", "4791") + " of " + at.getHostAddress()
                            + " taken by another process? two roce processes on one host need two addresses, such as"
                            + " 127.0.0.1 and 127.0.0.2)" : ""));
        }
        return adapter.get();
    }

    /** "an" before a vowel, else "a" ("an iwarp adapter", "a loopback adapter"). */
    static String article(String word) {
        return !word.isEmpty() && "aeiouAEIOU".indexOf(word.charAt(0)) >= 0 ? "an" : "a";
    }

    /** {@code n} result slots. */
    public static NdkResultEx[] results(int n) {
        NdkResultEx[] r = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            r[i] = new NdkResultEx();
        }
        return r;
    }

    /** A CQ of {@code depth} without a notification callback (not owned by any session). */
    public static NdkCq cq(NdkAdapter adapter, int depth) {
        return Sync.create("CreateCq", (cc, c, o) -> adapter.createCq(depth, null, null, null, cc, c, o));
    }

    /** The adapter options of a run with {@code --crc} and {@code --pcap}. */
    public static Map<String, String> options(boolean crc, String pcap) {
        return options(crc, pcap, Map.of());
    }

    /**
     * The adapter options of a run: {@code extra} (perf's {@code -O KEY=VALUE}), then crc and pcap over them. A capture
     * file in a folder that does not exist is a usage error said now (the adapter would only fail to open).
     */
    public static Map<String, String> options(boolean crc, String pcap, Map<String, String> extra) {
        if (pcap != null) {
            java.nio.file.Path dir = java.nio.file.Path.of(pcap).toAbsolutePath().getParent();
            if (dir == null || !java.nio.file.Files.isDirectory(dir)) {
                throw new Failure(Failure.Kind.USAGE, "--pcap " + pcap + ": the folder " + dir + " does not exist (create it"
                        + " first, or give another file)");
            }
        }
        Map<String, String> o = new HashMap<>(extra);
        if (crc) {
            o.put("crc", "true");
        }
        if (pcap != null) {
            o.put("pcap", pcap);
        }
        return o;
    }

    /**
     * The private data a peer sent with its answer (a rejection's reason, say) as one printable line, or null when
     * none came or it cannot be read.
     */
    public static String peerText(NdkConnector conn) {
        byte[] data = new byte[256];
        IntRef length = new IntRef(data.length);
        return conn.getConnectionData(null, null, data, length) == NtStatus.STATUS_SUCCESS
                ? Failure.printable(data, length.value) : null;
    }

    /** The PD the session's objects live on. */
    public NdkPd pd() {
        return pd;
    }

    /** A CQ of {@code depth}; {@code notified} (null: none) runs on each of its notifications. */
    public NdkCq cq(int depth, Runnable notified) {
        NdkCq cq = Sync.create("CreateCq", (cc, c, o) -> adapter.createCq(depth,
                notified == null ? null : (x, st) -> notified.run(), null, null, cc, c, o));
        cqs.add(cq);
        return cq;
    }

    /** An RC QP on the session's PD. */
    public NdkQp qp(NdkCq rcq, NdkCq icq, String name, int rqDepth, int iqDepth, int rqSges, int iqSges, int inline) {
        NdkQp qp = Sync.create("CreateQp", (cc, c, o) -> pd.createQp(rcq, icq, name, rqDepth, iqDepth, rqSges, iqSges,
                inline, cc, c, o));
        qps.add(qp);
        return qp;
    }

    /** Registers the whole of {@code seg} for local and remote access. */
    public NdkMr register(MemorySegment seg) {
        return Memory.register(pd, seg, mrs);
    }

    /** {@code size} bytes at {@code alignment} from the session's arena (closed last). */
    public MemorySegment allocate(long size, long alignment) {
        if (arena == null) {
            arena = Arena.ofShared();
        }
        return arena.allocate(size, alignment);
    }

    /** A new connector on the adapter, closed with the session. */
    public NdkConnector connector() {
        return adopt(Sync.create("CreateConnector", adapter::createConnector));
    }

    /** Closes {@code conn} (an incoming connector, say) with the session. */
    public NdkConnector adopt(NdkConnector conn) {
        connectors.add(conn);
        return conn;
    }

    /** The connector created or adopted last (the connection's), or null. */
    public NdkConnector connection() {
        return connectors.isEmpty() ? null : connectors.getLast();
    }

    /** Connectors that fail to close (a connection being torn down) do not stop the rest of the close. */
    public Session quietConnectors() {
        quietConnectors = true;
        return this;
    }

    /** Closes everything in order; the first failure (of anything but a quiet connector) ends the close. */
    @Override
    public void close() {
        for (NdkConnector c : connectors) {
            if (quietConnectors) {
                try {
                    Sync.close(c);
                } catch (RuntimeException e) {
                    // the connection is being torn down anyway
                }
            } else {
                Sync.close(c);
            }
        }
        qps.forEach(Sync::close);
        mrs.forEach(Sync::close);
        cqs.forEach(Sync::close);
        if (arena != null) {
            arena.close();
        }
    }
}
