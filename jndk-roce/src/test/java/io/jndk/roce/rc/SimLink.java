package io.jndk.roce.rc;

import java.nio.ByteBuffer;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One direction of a simulated link on a virtual clock: every packet handed to it is copied and delivered after a
 * latency, unless the seeded fault injector drops it; it may also be duplicated, or held back by a random extra
 * delay so that later packets overtake it (reordering).
 */
final class SimLink implements PacketSink {

    /**
     * Fault rates of one direction.
     *
     * @param drop probability a packet is lost
     * @param duplicate probability a packet arrives twice
     * @param reorder probability a packet is held back by up to {@code maxExtraDelayNanos}
     * @param latencyNanos the fixed one-way delay
     * @param maxExtraDelayNanos the largest extra delay of a held-back packet
     */
    record Faults(double drop, double duplicate, double reorder, long latencyNanos, long maxExtraDelayNanos) {
        static Faults none(long latencyNanos) {
            return new Faults(0, 0, 0, latencyNanos, 0);
        }

        boolean any() {
            return drop > 0 || duplicate > 0 || reorder > 0;
        }
    }

    private record Flight(long at, long seq, byte[] bytes) {
    }

    private final PriorityQueue<Flight> inFlight =
        new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private final SplittableRandom random;
    private final VirtualClock clock;
    private Faults faults;
    private long seq;
    private Predicate<Packet> dropIf = p -> false;
    long sent;
    long dropped;
    long duplicated;
    long delivered;

    SimLink(VirtualClock clock, Faults faults, long seed) {
        this.clock = clock;
        this.faults = faults;
        this.random = new SplittableRandom(seed);
    }

    void faults(Faults f) {
        this.faults = f;
    }

    /** Drops, on top of the random faults, every packet the predicate selects. */
    void dropIf(Predicate<Packet> predicate) {
        this.dropIf = predicate;
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) {
        sent++;
        byte[] bytes = new byte[length];
        buffer.get(offset, bytes);
        if (random.nextDouble() < faults.drop() || dropIf.test(new Packet(buffer, offset, length))) {
            dropped++;
            return;
        }
        int copies = random.nextDouble() < faults.duplicate() ? 2 : 1;
        duplicated += copies - 1;
        for (int i = 0; i < copies; i++) {
            long extra = random.nextDouble() < faults.reorder() && faults.maxExtraDelayNanos() > 0
                ? 1 + random.nextLong(faults.maxExtraDelayNanos()) : 0;
            inFlight.add(new Flight(clock.now + faults.latencyNanos() + extra, seq++, bytes));
        }
    }

    /** Delivers every packet due by now; @return how many */
    int deliverDue(Consumer<ByteBuffer> receiver) {
        int n = 0;
        while (!inFlight.isEmpty() && inFlight.peek().at <= clock.now) {
            receiver.accept(ByteBuffer.wrap(inFlight.poll().bytes));
            delivered++;
            n++;
        }
        return n;
    }

    /** @return when the next packet arrives, or {@link Long#MAX_VALUE} */
    long nextArrival() {
        return inFlight.isEmpty() ? Long.MAX_VALUE : inFlight.peek().at;
    }

    /** The virtual clock the link and the requester share. */
    static final class VirtualClock {
        long now;

        long get() {
            return now;
        }
    }
}
