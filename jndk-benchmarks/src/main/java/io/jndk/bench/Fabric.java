package io.jndk.bench;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.Mdl;
import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NtStatus;
import io.jndk.api.IntRef;
import io.jndk.api.Ref;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Two adapters in this process over one transport (side A connects, side B listens), with methods that make CQs,
 * register memory and connect QP pairs, one or many at a time. Closing disconnects and closes everything made
 * through it, newest first.
 */
public final class Fabric implements AutoCloseable {
    /** Attempts repeated in all, at most: on a busy machine a source port may still be in TIME_WAIT. */
    private static final int MAX_RETRIES = 100;

    /** A connected QP pair: {@code a} on side A, {@code b} on side B. */
    public record Pair(NdkQp a, NdkQp b) {}

    /** Side A (connects). */
    public final NdkAdapter a;
    /** Side B (listens). */
    public final NdkAdapter b;
    /** Side A's protection domain. */
    public final NdkPd pdA;
    /** Side B's protection domain. */
    public final NdkPd pdB;
    private final NdkListener listener;
    private final InetSocketAddress listening;
    private final BlockingQueue<NdkConnector> incoming = new LinkedBlockingQueue<>();
    private final List<NdkClosable> owned = new ArrayList<>();
    private final List<NdkConnector> initiators = new ArrayList<>();
    private int retries;

    /** The address side A's adapter opens on ({@code a.address=}; default: the loopback address, as B's). */
    private final InetAddress addressA;

    private Fabric(String transport, Map<String, String> given) {
        InetAddress lo = InetAddress.getLoopbackAddress();
        Map<String, String> options = new HashMap<>(given);
        String aAddress = options.remove("a.address"); // the benchmark's, not a provider option
        try {
            addressA = aAddress == null ? lo : InetAddress.getByName(aAddress);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("a.address=" + aAddress + ": not an address", e);
        }
        a = Ndk.open(NdkOpenParameters.of(transport, addressA).withOptions(options));
        b = Ndk.open(NdkOpenParameters.of(transport, lo).withOptions(options));
        pdA = own(Calls.create("CreatePd", a::createPd));
        pdB = own(Calls.create("CreatePd", b::createPd));
        listener = own(Calls.create("CreateListener", (cc, c, o) -> b.createListener((x, conn) -> incoming.add(conn), null,
                cc, c, o)));
        Calls.request("Listen", (rc, c) -> listener.listen(new InetSocketAddress(lo, 0), rc, c));
        Ref<InetSocketAddress> at = new Ref<>();
        Calls.check("GetListenerLocalAddress", listener.getLocalAddress(at, new IntRef(28)));
        listening = at.get();
    }

    /**
     * Opens both adapters with the given provider options (e.g. {@code crc=true}) and starts listening on B. The
     * option {@code a.address=IP} (taken out before the providers see the options) opens A on another address, e.g.
     * 127.0.0.2: over roce each address has a device of its own (its socket, its engine), as two hosts would.
     */
    public static Fabric open(String transport, Map<String, String> options) {
        return new Fabric(transport, options);
    }

    /** Provider options given as {@code key=value} arguments from {@code args[from]} on. */
    public static Map<String, String> options(String[] args, int from) {
        Map<String, String> options = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("provider option " + args[i] + " is not key=value");
            }
            options.put(kv[0], kv[1]);
        }
        return options;
    }

    private <T extends NdkClosable> T own(T o) {
        owned.add(o);
        return o;
    }

    /** A CQ on {@code adapter} of {@code depth} entries, notifying {@code notify} (may be null). */
    public NdkCq cq(NdkAdapter adapter, int depth, CqNotificationCallback notify) {
        return own(Calls.create("CreateCq", (cc, c, o) -> adapter.createCq(depth, notify, null, null, cc, c, o)));
    }

    /** Registers {@code seg} in {@code pd} for local write and remote read and write. */
    public NdkMr register(NdkPd pd, MemorySegment seg) {
        NdkMr mr = own(Calls.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o)));
        Calls.request("RegisterMr", (rc, c) -> mr.registerMr(Mdl.of(seg), seg.byteSize(),
                NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE, rc, c));
        return mr;
    }

    /** Connects one QP pair: A's QP on {@code cqA}, B's on {@code cqB}, each with {@code depth} slots per queue. */
    public Pair connect(NdkCq cqA, NdkCq cqB, int depth) {
        List<NdkQp> qb = new ArrayList<>(1);
        return new Pair(connect(1, 1, cqA, cqB, depth, qb).getFirst(), qb.getFirst());
    }

    /**
     * Connects {@code n} QP pairs with up to {@code window} connection setups in flight at once and returns A's
     * QPs; B's QPs are added to {@code qb} in the order in which the requests reached the listener.
     */
    public List<NdkQp> connect(int n, int window, NdkCq cqA, NdkCq cqB, int depth, List<NdkQp> qb) {
        List<NdkQp> qa = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            qa.add(own(Calls.create("CreateQp", (cc, c, o) -> pdA.createQp(cqA, cqA, null, depth, depth, 1, 1, 0, cc, c, o))));
            qb.add(own(Calls.create("CreateQp", (cc, c, o) -> pdB.createQp(cqB, cqB, null, depth, depth, 1, 1, 0, cc, c, o))));
        }
        BlockingQueue<int[]> connected = new LinkedBlockingQueue<>();
        List<CompletableFuture<Integer>> accepts = new ArrayList<>(n);
        List<NdkConnector> mine = new ArrayList<>(n);
        int started = 0, accepted = 0, completed = 0;
        long deadline = System.nanoTime() + Calls.TIMEOUT_MS * 1_000_000 + n * 50_000_000L;
        InetSocketAddress from = new InetSocketAddress(addressA, 0);
        while (completed < n || accepted < n) {
            while (started < n && started - completed < window) {
                mine.add(null);
                startConnect(started++, qa, mine, from, connected);
            }
            try {
                NdkConnector in = incoming.poll(1, TimeUnit.MILLISECONDS);
                if (in != null) {
                    own(in);
                    NdkQp q = qb.get(accepted++);
                    accepts.add(Calls.start((rc, x) -> in.accept(q, 16, 16, null, null, null, rc, x)));
                }
                for (int[] done = connected.poll(); done != null; done = connected.poll()) {
                    if (done[1] == NtStatus.STATUS_SHARING_VIOLATION && retries < MAX_RETRIES) {
                        retries++; // the OS gave the source port of a connection still in TIME_WAIT: try another
                        startConnect(done[0], qa, mine, from, connected);
                        continue;
                    }
                    Calls.check("Connect", done[1]);
                    NdkConnector c = mine.get(done[0]);
                    Calls.request("CompleteConnect", (rc, x) -> c.completeConnect(null, null, rc, x));
                    completed++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("connected only " + completed + " of " + n + " QP pairs in time");
            }
        }
        for (CompletableFuture<Integer> f : accepts) {
            Calls.check("Accept", Calls.await(f, "Accept"));
        }
        initiators.addAll(mine);
        return qa;
    }

    private void startConnect(int i, List<NdkQp> qa, List<NdkConnector> mine, InetSocketAddress from,
            BlockingQueue<int[]> connected) {
        NdkConnector c = own(Calls.create("CreateConnector", a::createConnector));
        mine.set(i, c);
        Calls.start((rc, x) -> c.connect(qa.get(i), from, listening, 16, 16, null, rc, x))
                .thenAccept(s -> connected.add(new int[] {i, s}));
    }

    /** Connection attempts repeated because the OS refused the source address (see {@link #MAX_RETRIES}). */
    public int retries() {
        return retries;
    }

    @Override
    public void close() {
        List<CompletableFuture<Integer>> gone = new ArrayList<>();
        for (NdkConnector c : initiators) {
            gone.add(Calls.start((rc, x) -> c.disconnect(rc, x)));
        }
        for (CompletableFuture<Integer> f : gone) {
            Calls.await(f, "Disconnect");
        }
        for (int i = owned.size() - 1; i >= 0; i--) {
            Calls.close(owned.get(i));
        }
        a.close();
        b.close();
    }
}
