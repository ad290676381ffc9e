package io.jndk.tools.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.fault.FaultKind;
import io.jndk.iwarp.fault.FaultPlan;
import io.jndk.iwarp.fault.SeededFaultPlan;
import io.jndk.iwarp.fault.SeededFaultPlan.Rates;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded property test of the iwarp transport under faults: per seed, two adapters (MPA CRC on, a drawn FPDU
 * size) and one to three concurrent {@link FaultSession}s, each through its own fault proxy with a drawn fault
 * profile (splits and delays only, or with corruption, drops, resets or all of them). The session checks every
 * completion, every byte and every close; this test asserts no session found a violation, that split- and
 * delay-only seeds ran every operation, and that the adapter byte counters reconcile.
 *
 * <p>Every third seed runs the polling engine ({@code poll=true}: non-blocking socket, consumer-driven receive), every
 * ninth with {@code notify=inline} as well; the others the default engine.
 *
 * <p>{@code -Djndk.fault.seed=N} runs one seed, {@code -Djndk.fault.seeds=N} runs seeds 1 to N (default 200).
 * Drops and resets are checked with CRC on only: without CRC a drop is undetectable by design.
 */
class FaultPropertyTest {
    private static final int DEFAULT_SEEDS = 200;
    private static final FaultTally ALL = new FaultTally();

    static LongStream seeds() {
        String one = System.getProperty("jndk.fault.seed");
        if (one != null && !one.isBlank()) {
            return LongStream.of(Long.parseLong(one.trim()));
        }
        return LongStream.rangeClosed(1, Integer.getInteger("jndk.fault.seeds", DEFAULT_SEEDS));
    }

    /** What a seed draws. */
    record Scenario(int sessions, int operations, int maxLength, String mss, String profile, Rates rates,
                    long faultSeed, String engine) {
        static Scenario of(long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            int sessions = 1 + r.nextInt(3);
            int operations = 2 + r.nextInt(5);
            int maxLength = new int[] {64, 1024, 4096, 16384}[r.nextInt(4)];
            String mss = new String[] {"256", "1448", null}[r.nextInt(3)];
            int p = r.nextInt(10);
            String profile = p < 4 ? "split+delay" : p < 6 ? "corrupt" : p < 8 ? "drop" : p < 9 ? "reset" : "mixed";
            Rates rates = switch (profile) {
                case "split+delay" -> Rates.benign(0.3, 0.1, 3);
                case "corrupt" -> new Rates(0.2, 0.05, 0.1, 0, 0, 3);
                case "drop" -> new Rates(0.2, 0.05, 0, 0.1, 0, 3);
                case "reset" -> new Rates(0.2, 0.05, 0, 0, 0.1, 3);
                default -> new Rates(0.2, 0.05, 0.04, 0.04, 0.04, 3);
            };
            long faultSeed = r.nextLong();
            // every third seed runs the polling engine (non-blocking socket, consumer-driven receive), one in nine
            // with inline notifications too; drawn last, so the other draws of a seed are what they always were
            String engine = seed % 3 != 0 ? "default" : seed % 9 == 0 ? "poll+inline" : "poll";
            return new Scenario(sessions, operations, maxLength, mss, profile, rates, faultSeed, engine);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void faultsNeverCorruptLoseOrInventCompletions(long seed) throws Exception {
        Scenario s = Scenario.of(seed);
        FaultTally tally = new FaultTally();
        Map<String, String> options = new HashMap<>(Map.of("crc", "true"));
        if (s.mss() != null) {
            options.put("mss", s.mss());
        }
        if (!s.engine().equals("default")) {
            options.put("poll", "true");
        }
        if (s.engine().equals("poll+inline")) {
            options.put("notify", "inline");
        }
        List<String> problems = new ArrayList<>();
        FaultPair pair = new FaultPair(options);
        List<FaultSession> sessions = new ArrayList<>();
        try {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < s.sessions(); i++) {
                FaultPlan plan = new SeededFaultPlan(s.faultSeed() + i, s.rates());
                FaultSession session = new FaultSession(pair, seed * 10 + i, plan,
                    new FaultSession.Settings(s.operations(), s.maxLength(), 300, 10_000), tally,
                    "session " + i);
                sessions.add(session);
                threads.add(Thread.ofVirtual().name("fault-session-" + i).start(session::run));
            }
            for (Thread t : threads) {
                if (!t.join(Duration.ofSeconds(45))) {
                    problems.add(t.getName() + " did not end within 45 s");
                }
            }
            problems.addAll(tally.reconcile(pair.active, pair.passive, tally.damagedSessions.sum() == 0));
        } catch (IOException | RuntimeException e) {
            problems.add("failed: " + e);
        } finally {
            try {
                pair.close();
            } catch (IllegalStateException e) {
                problems.add(e.getMessage());
            }
            sessions.forEach(session -> session.release(true));
        }
        problems.addAll(tally.violations());
        if (s.rates().corrupt() + s.rates().drop() + s.rates().reset() == 0) {
            assertThat(tally.damagedSessions.sum()).as("damaged sessions without destructive rates").isZero();
            if (problems.isEmpty() && tally.operations.sum() != (long) s.sessions() * s.operations()) {
                problems.add("split and delay only, yet " + tally.operations.sum() + " of "
                    + s.sessions() * s.operations() + " operations ran");
            }
        }
        add(tally);
        assertThat(problems).as("seed %d (%s); replay: mvn -B -o test -pl jndk-tools -am -Dtest=FaultPropertyTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Djndk.fault.seed=%d", seed, s, seed).isEmpty();
    }

    private static void add(FaultTally t) {
        ALL.operations.add(t.operations.sum());
        ALL.bytesVerified.add(t.bytesVerified.sum());
        ALL.sessions.add(t.sessions.sum());
        ALL.damagedSessions.add(t.damagedSessions.sum());
        for (FaultKind k : FaultKind.values()) {
            ALL.faults.addAndGet(k.ordinal(), t.faults.get(k.ordinal()));
        }
    }

    /** Over a full run the faults must really happen, or the seeds test nothing. */
    @AfterAll
    static void everyKindWasInjected() {
        if (ALL.sessions.sum() < 100) {
            return; // a replay or a short run
        }
        for (FaultKind k : FaultKind.values()) {
            if (k != FaultKind.PASS) {
                assertThat(ALL.faults.get(k.ordinal())).as("%s faults injected over the run", k).isPositive();
            }
        }
        assertThat(ALL.damagedSessions.sum()).as("sessions with a destructive fault").isPositive();
        System.out.printf("fault property: %d sessions (%d damaged), %d operations, %d bytes verified%n",
            ALL.sessions.sum(), ALL.damagedSessions.sum(), ALL.operations.sum(), ALL.bytesVerified.sum());
    }
}
