package io.jndk.conformance.roce;

import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.RoceOpcode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injecting UDP relay between two roce devices of one host: device A sends to port {@link #portForA()}, device
 * B to {@link #portForB()} (their {@code udp.peer.port}); the relay forwards each datagram to the other device from
 * its other socket, as a switch between two hosts would, and on the way drops, duplicates, reorders (holds a packet
 * until the next one has gone) and delays (up to {@code maxDelayMillis}) data packets with seeded probabilities. The
 * ICRC covers the UDP ports, which the relay changes, so it writes the ICRC again for the ports it sends with (a
 * packet's other covered fields are untouched). CM datagrams (QP 1) pass untouched unless {@link #dropAll} is set:
 * the CM's own loss handling has its seeded tests, and its 6-second retries would dominate these.
 *
 * <p>It also counts what it saw: request packets (and Read requests) whose PSN it had already forwarded once for the
 * same QP, less the duplicates it injected itself, are the requesters' retransmissions.
 */
final class UdpFaultRelay implements AutoCloseable {
    /** The fault model of one seed. */
    record Faults(double drop, double duplicate, double reorder, double delay, int maxDelayMillis) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0);
    }

    private record Held(long dueNanos, boolean towardB, byte[] bytes) {}

    private final InetAddress host = InetAddress.getLoopbackAddress();
    private final DatagramChannel fromA;
    private final DatagramChannel fromB;
    private final int aPort;
    private final int bPort;
    private final Selector selector;
    private final Thread thread;
    private final ByteBuffer in = ByteBuffer.allocate(65536);
    private final Icrc icrc = new Icrc();
    private final List<Held> delayed = new ArrayList<>();
    private final Set<Long> seen = new HashSet<>();
    private Held reordered;
    private volatile boolean closed;
    private volatile Faults faults = Faults.NONE;
    private volatile Random random = new Random(0);
    volatile boolean dropAll;
    /** The destination QP and PSN of the last request packet forwarded toward B (the hostile tests aim with them). */
    volatile int lastQpTowardB;
    volatile int lastPsnTowardB;

    /**
     * While set, Read Response packets toward A are held, not forwarded, until {@link #releaseHeldResponses} (the
     * READ_FENCE test holds an RDMA Read open with it).
     */
    private boolean holdReadResponses;
    private final List<byte[]> heldResponses = new ArrayList<>();
    /** RDMA WRITE packets the relay saw on their way toward B (before any fault is applied). */
    final AtomicLong writesTowardB = new AtomicLong();

    final AtomicLong forwarded = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    final AtomicLong duplicated = new AtomicLong();
    final AtomicLong reorderedCount = new AtomicLong();
    final AtomicLong delayedCount = new AtomicLong();
    final AtomicLong retransmissions = new AtomicLong();

    /** @param aPort device A's {@code udp.port}; @param bPort device B's */
    UdpFaultRelay(int aPort, int bPort) throws IOException {
        this.aPort = aPort;
        this.bPort = bPort;
        fromA = DatagramChannel.open().bind(new InetSocketAddress(host, 0));
        fromB = DatagramChannel.open().bind(new InetSocketAddress(host, 0));
        selector = Selector.open();
        for (DatagramChannel c : new DatagramChannel[] {fromA, fromB}) {
            c.configureBlocking(false);
            c.register(selector, SelectionKey.OP_READ);
        }
        thread = new Thread(this::run, "roce-fault-relay");
        thread.setDaemon(true);
        thread.start();
    }

    int portForA() throws IOException {
        return ((InetSocketAddress) fromA.getLocalAddress()).getPort();
    }

    int portForB() throws IOException {
        return ((InetSocketAddress) fromB.getLocalAddress()).getPort();
    }

    /** Applies {@code f} from now on, drawing from a generator seeded with {@code seed}. */
    void faults(Faults f, long seed) {
        random = new Random(seed);
        faults = f;
    }

    private void run() {
        try {
            while (!closed) {
                selector.select(2);
                selector.selectedKeys().clear();
                pump(fromA, true);
                pump(fromB, false);
                releaseDelayed(System.nanoTime());
            }
        } catch (IOException e) {
            if (!closed) {
                throw new IllegalStateException(e);
            }
        }
    }

    private void pump(DatagramChannel c, boolean towardB) throws IOException {
        for (int i = 0; i < 256; i++) {
            in.clear();
            if (c.receive(in) == null) {
                return;
            }
            in.flip();
            byte[] p = new byte[in.remaining()];
            in.get(p);
            handle(towardB, p);
        }
    }

    private void handle(boolean towardB, byte[] p) throws IOException {
        if (p.length < 16) {
            return;
        }
        int destQp = (p[5] & 0xFF) << 16 | (p[6] & 0xFF) << 8 | p[7] & 0xFF;
        boolean data = destQp != 1;
        if (dropAll && data) {
            dropped.incrementAndGet();
            return;
        }
        int opcode = p[0] & 0xFF;
        if (data && countsAsRequest(p) && towardB) {
            lastQpTowardB = destQp;
            lastPsnTowardB = (p[9] & 0xFF) << 16 | (p[10] & 0xFF) << 8 | p[11] & 0xFF;
        }
        if (data && countsAsRequest(p)) {
            long key = (towardB ? 1L << 48 : 0) | (long) destQp << 24 | ((p[9] & 0xFF) << 16 | (p[10] & 0xFF) << 8
                | p[11] & 0xFF);
            if (!seen.add(key)) {
                retransmissions.incrementAndGet();
            }
        }
        if (data && towardB && opcode >= RoceOpcode.RDMA_WRITE_FIRST.code()
            && opcode <= RoceOpcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE.code()) {
            writesTowardB.incrementAndGet();
        }
        if (data && !towardB && opcode >= RoceOpcode.RDMA_READ_RESPONSE_FIRST.code()
            && opcode <= RoceOpcode.RDMA_READ_RESPONSE_ONLY.code() && holdResponse(p)) {
            return;
        }
        Faults f = faults;
        Random r = random;
        if (!data || f == Faults.NONE) {
            send(towardB, p);
            return;
        }
        if (r.nextDouble() < f.drop()) {
            dropped.incrementAndGet();
            return;
        }
        if (r.nextDouble() < f.delay()) {
            delayedCount.incrementAndGet();
            delayed.add(new Held(System.nanoTime() + (1 + r.nextInt(Math.max(1, f.maxDelayMillis()))) * 1_000_000L,
                towardB, p));
            return;
        }
        if (reordered == null && r.nextDouble() < f.reorder()) {
            reorderedCount.incrementAndGet();
            reordered = new Held(0, towardB, p);
            return;
        }
        send(towardB, p);
        if (r.nextDouble() < f.duplicate()) {
            duplicated.incrementAndGet(); // sent again here, not seen again above: not a retransmission
            send(towardB, p);
        }
        if (reordered != null) {
            Held h = reordered;
            reordered = null;
            send(h.towardB(), h.bytes());
        }
    }

    /** Starts holding Read Responses toward A. */
    synchronized void holdReadResponses() {
        holdReadResponses = true;
    }

    /** How many Read Response packets are held. */
    synchronized int heldResponses() {
        return heldResponses.size();
    }

    /** Stops holding and forwards what was held, in order. */
    synchronized void releaseHeldResponses() throws IOException {
        holdReadResponses = false;
        for (byte[] p : heldResponses) {
            send(false, p);
        }
        heldResponses.clear();
    }

    private synchronized boolean holdResponse(byte[] p) {
        if (holdReadResponses) {
            heldResponses.add(p);
        }
        return holdReadResponses;
    }

    /** RC request packets: SEND and WRITE packets, READ request (0x00-0x0C), SEND with Invalidate (0x16, 0x17). */
    private static boolean countsAsRequest(byte[] p) {
        int opcode = p[0] & 0xFF;
        return opcode <= 0x0C || opcode == 0x16 || opcode == 0x17;
    }

    private void releaseDelayed(long now) throws IOException {
        for (int i = delayed.size() - 1; i >= 0; i--) {
            Held h = delayed.get(i);
            if (h.dueNanos() <= now) {
                delayed.remove(i);
                send(h.towardB(), h.bytes());
            }
        }
        if (reordered != null && delayed.isEmpty()) {
            // nothing came after it for a whole turn: let it go rather than hold it for ever
            Held h = reordered;
            reordered = null;
            send(h.towardB(), h.bytes());
        }
    }

    /**
     * Sends a packet of the test's own toward B (as if A had sent it through the relay), with the ICRC for its
     * headers, or with that ICRC's bits flipped.
     */
    void inject(byte[] p, boolean goodIcrc) throws IOException {
        synchronized (this) {
            if (goodIcrc) {
                send(true, p);
            } else {
                DatagramChannel out = fromB;
                int fromPort = ((InetSocketAddress) out.getLocalAddress()).getPort();
                ByteBuffer b = ByteBuffer.wrap(p);
                int a = ipv4(host);
                Icrc.write(b, 0, p.length, ~icrc.ipv4(a, a, 0, Icrc.IPV4_DONT_FRAGMENT, fromPort, bPort, b, 0, p.length));
                out.send(b, new InetSocketAddress(host, bPort));
            }
        }
    }

    /** Sends {@code p} toward B as it is (a truncated packet has no ICRC to compute). */
    void injectRaw(byte[] p) throws IOException {
        fromB.send(ByteBuffer.wrap(p), new InetSocketAddress(host, bPort));
    }

    /** Forwards {@code p}: toward B from the socket B sends to, and the other way round. */
    private synchronized void send(boolean towardB, byte[] p) throws IOException {
        DatagramChannel out = towardB ? fromB : fromA;
        int fromPort = ((InetSocketAddress) out.getLocalAddress()).getPort();
        int toPort = towardB ? bPort : aPort;
        ByteBuffer b = ByteBuffer.wrap(p);
        int a = ipv4(host);
        Icrc.write(b, 0, p.length, icrc.ipv4(a, a, 0, Icrc.IPV4_DONT_FRAGMENT, fromPort, toPort, b, 0, p.length));
        out.send(b, new InetSocketAddress(host, toPort));
        forwarded.incrementAndGet();
    }

    private static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        selector.close();
        fromA.close();
        fromB.close();
    }
}
