package io.jndk.tools.kit;

import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small helpers shared by the tools (public API only). */
public final class PerfSupport {
    private PerfSupport() {}

    /** " (peer Terminate layer L, type T, code 0xCC)" for a completion's provider error code, or "" when it is 0. */
    public static String terminate(int providerErrorCode) {
        return providerErrorCode == 0 ? "" : String.format(" (peer Terminate layer %d, type %d, code 0x%02X)",
                providerErrorCode >>> 12 & 0xF, providerErrorCode >>> 8 & 0xF, providerErrorCode & 0xFF);
    }

    /** Throws unless the completion {@code r} succeeded (the peer's Terminate, if any, in the message). */
    public static void check(NdkResultEx r, String what) {
        if (r.status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what + terminate(r.providerErrorCode), r.status);
        }
    }

    /** Throws unless {@code status} is success. */
    public static void check(int status, String what) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what, status);
        }
    }

    /** {@code n} result slots. */
    public static NdkResultEx[] results(int n) {
        NdkResultEx[] r = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            r[i] = new NdkResultEx();
        }
        return r;
    }

    /** A CQ of {@code depth} without a notification callback. */
    public static NdkCq cq(NdkAdapter adapter, int depth) {
        return Sync.create("CreateCq", (cc, c, o) -> adapter.createCq(depth, null, null, null, cc, c, o));
    }

    /** Registers a whole segment for local and remote access; the region is added to {@code owned}. */
    public static NdkMr register(NdkPd pd, MemorySegment seg, List<NdkMr> owned) {
        NdkMr mr = Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
        owned.add(mr);
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(Mdl.of(seg), seg.byteSize(),
                NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE, rc, c));
        return mr;
    }

    /** The adapter options of a run with {@code --crc} and {@code --pcap}. */
    public static Map<String, String> options(boolean crc, String pcap) {
        return options(crc, pcap, Map.of());
    }

    /** The adapter options of a run: {@code extra} (perf's {@code -O KEY=VALUE}), then crc and pcap over them. */
    public static Map<String, String> options(boolean crc, String pcap, Map<String, String> extra) {
        Map<String, String> o = new HashMap<>(extra);
        if (crc) {
            o.put("crc", "true");
        }
        if (pcap != null) {
            o.put("pcap", pcap);
        }
        return o;
    }

    /** The local address the route to {@code peer} leaves from (a connected UDP socket sends nothing). */
    public static InetAddress localAddressFor(InetAddress peer) throws IOException {
        if (peer.isLoopbackAddress()) {
            return peer;
        }
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(peer, 9);
            InetAddress a = s.getLocalAddress();
            if (a == null || a.isAnyLocalAddress()) {
                throw new IOException("no route");
            }
            return a;
        }
    }

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    /** A byte read with acquire semantics: the last byte of a buffer a peer Writes into, polled for arrival. */
    public static byte byteAcquire(MemorySegment seg, long offset) {
        return (byte) BYTE.getAcquire(seg, offset);
    }

    /** The ping-pong tag of round {@code i}: never 0 (buffers start cleared), different from the previous one. */
    public static byte tag(long i) {
        return (byte) (i % 255 + 1);
    }

    /** Busy-wait step that leaves the (possibly few) cores to the transport now and then. */
    public static int idle(int spins) {
        if ((spins & 1023) == 1023) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return spins + 1;
    }

    /** Fails when no progress was made for {@link Sync#TIMEOUT_MS}. */
    public static final class Watchdog {
        private final String what;
        private long last = System.nanoTime();
        private int spins;

        /** A watchdog for {@code what}, its clock started now. */
        public Watchdog(String what) {
            this.what = what;
        }

        /** Progress was made: restart the clock. */
        public void progress() {
            last = System.nanoTime();
        }

        /** No progress: check the clock, then spin a little. */
        public void idle() {
            check();
            spins = PerfSupport.idle(spins);
        }

        /** Throws when there was no progress for {@link Sync#TIMEOUT_MS}. */
        public void check() {
            if (System.nanoTime() - last > Sync.TIMEOUT_MS * 1_000_000) {
                throw new IllegalStateException(what + ": no progress for " + Sync.TIMEOUT_MS + " ms");
            }
        }
    }
}
