package io.jndk.roce.cm;

import io.jndk.roce.mad.CmAttribute;
import io.jndk.roce.mad.MadHeaderFlyweight;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Agents joined by an in-memory GSI with a virtual clock: each MAD sent is copied, then delivered to the agent of
 * its destination GID after a delay, unless a seeded loss model drops it; it may also be duplicated. Everything is
 * deterministic for a seed.
 */
final class MemoryLink {

    /** One MAD on the wire, as the test sees it afterwards. */
    record Sent(long nanos, Gid from, Gid to, CmAttribute attribute, ByteBuffer mad) {
    }

    private record InFlight(long at, long order, Gid from, Gid to, byte[] mad) {
    }

    final VirtualClock clock = new VirtualClock();
    final List<Sent> sent = new ArrayList<>();
    private final Map<Gid, CmAgent> agents = new HashMap<>();
    private final PriorityQueue<InFlight> queue = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
        : Long.compare(a.order, b.order));
    private final Random random;
    private double drop;
    private double duplicate;
    private long maxDelayMillis = 1;
    private long order;
    private boolean blackhole;
    private int dropped;

    MemoryLink(long seed) {
        random = new Random(seed);
    }

    /** @return this, dropping and duplicating MADs with these probabilities, delaying each by 1 to max ms */
    MemoryLink lossy(double dropProbability, double duplicateProbability, long maxDelay) {
        drop = dropProbability;
        duplicate = duplicateProbability;
        maxDelayMillis = maxDelay;
        return this;
    }

    /** @param on whether every MAD is lost from now on */
    void blackhole(boolean on) {
        blackhole = on;
    }

    CmAgent agent(Gid gid, CmConfig config, CmIdSource ids) {
        CmAgent a = new CmAgent(gid, config, clock, ids, (to, mad) -> transmit(gid, to, mad));
        agents.put(gid, a);
        return a;
    }

    private void transmit(Gid from, Gid to, ByteBuffer mad) {
        byte[] copy = new byte[MadHeaderFlyweight.MAD_LENGTH];
        mad.duplicate().get(0, copy);
        int attribute = ByteBuffer.wrap(copy).getShort(MadHeaderFlyweight.ATTRIBUTE_ID_OFFSET) & 0xFFFF;
        sent.add(new Sent(clock.getAsLong(), from, to, CmAttribute.of(attribute), ByteBuffer.wrap(copy).asReadOnlyBuffer()));
        if (blackhole || random.nextDouble() < drop) {
            dropped++;
            return;
        }
        int copies = random.nextDouble() < duplicate ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            long delay = (1 + (long) (random.nextDouble() * maxDelayMillis)) * 1_000_000L;
            queue.add(new InFlight(clock.getAsLong() + delay, order++, from, to, copy));
        }
    }

    /**
     * Delivers MADs and runs timers in time order until nothing is left to do before {@code limitMillis} from now.
     *
     * @param limitMillis how far the clock may move
     */
    void run(long limitMillis) {
        long limit = clock.getAsLong() + limitMillis * 1_000_000L;
        while (true) {
            long next = Long.MAX_VALUE;
            for (CmAgent a : agents.values()) {
                next = Math.min(next, a.nextDeadline());
            }
            if (!queue.isEmpty()) {
                next = Math.min(next, queue.peek().at);
            }
            if (next > limit) {
                return;
            }
            clock.advanceTo(next);
            while (!queue.isEmpty() && queue.peek().at <= clock.getAsLong()) {
                InFlight f = queue.poll();
                CmAgent to = agents.get(f.to);
                if (to != null) {
                    to.receive(f.from, ByteBuffer.wrap(f.mad.clone()), 0, f.mad.length);
                }
            }
            for (CmAgent a : agents.values()) {
                a.tick();
            }
        }
    }

    /** @return how many MADs were lost */
    int dropped() {
        return dropped;
    }

    /** Runs until quiet, at most a simulated day. */
    void settle() {
        run(24L * 3600 * 1000);
    }

    List<CmAttribute> attributes(Gid from) {
        return sent.stream().filter(s -> s.from.equals(from)).map(Sent::attribute).toList();
    }

    List<Sent> sent(Gid from, CmAttribute attribute) {
        return sent.stream().filter(s -> s.from.equals(from) && s.attribute == attribute).toList();
    }
}
