package io.jndk.tools.fault;

import io.jndk.iwarp.fault.FaultKind;
import io.jndk.iwarp.fault.FaultPlan;
import io.jndk.iwarp.fault.SeededFaultPlan;
import io.jndk.iwarp.fault.SeededFaultPlan.Rates;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jndk soak}: mixed traffic over many iwarp connections for a bounded time, part of them through fault
 * proxies, each connection reconnecting after every session. Two adapter pairs (MPA CRC on): one carries the
 * connections with splits and delays only, whose byte counters must match the successful payloads exactly; the
 * other carries the connections with corruption, drops and resets as well, whose counters must cover what
 * succeeded. Every check of {@link FaultSession} applies to every session.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Soak test: many connections of mixed verified traffic, part of them under injected faults"
                + " (split, delay, corrupt, drop, reset), reconnecting after each session, for a bounded time."},
        footer = {"", "Exit status: 0 when no check failed; 1 otherwise (the failures are listed); 2 for bad arguments.",
                "", "Examples:", "  ./jndk soak --duration 60s", "  scripts/soak.sh 10m"})
public final class SoakCommand implements Callable<Integer> {
    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10m",
            description = "How long to run: a number with s, m or h (default ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "32",
            description = "Concurrent connections (default ${DEFAULT-VALUE}), 2 to 256.")
    int connections;

    @Option(names = "--faulty", paramLabel = "N", defaultValue = "16",
            description = "How many of them also get corruption, drops and resets (default ${DEFAULT-VALUE}).")
    int faulty;

    @Option(names = "--max-length", paramLabel = "BYTES", defaultValue = "16384",
            description = "Longest payload of an operation (default ${DEFAULT-VALUE}).")
    int maxLength;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the whole run (default: random, printed).")
    Long seed;

    private final PrintStream out = System.out;

    /** Bound of the wait for the sessions running at the deadline. */
    private static final Duration DRAIN = Duration.ofMinutes(2);

    @Override
    public Integer call() throws IOException, InterruptedException {
        long millis = parseDuration(duration);
        if (connections < 2 || connections > 256 || faulty < 0 || faulty > connections || maxLength < 1
            || maxLength > 1 << 20) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                "need 2 to 256 connections, 0 to all of them faulty, and a max length of 1 to 1048576");
        }
        long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        out.printf(Locale.ROOT, "jndk soak: %s, %d connections (%d with destructive faults), payloads up to %d bytes,"
            + " MPA CRC on, seed %d%n", duration, connections, faulty, maxLength, runSeed);
        FaultTally clean = new FaultTally();
        FaultTally damaged = new FaultTally();
        ConcurrentLinkedQueue<FaultSession> unreleased = new ConcurrentLinkedQueue<>();
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        long deadline = start + millis * 1_000_000;
        try (FaultPair benignPair = new FaultPair(Map.of("crc", "true"));
             FaultPair faultyPair = new FaultPair(Map.of("crc", "true"))) {
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                boolean destructive = i < faulty;
                FaultPair pair = destructive ? faultyPair : benignPair;
                FaultTally tally = destructive ? damaged : clean;
                long workerSeed = runSeed * 1_000 + i;
                String name = (destructive ? "faulty" : "split/delay") + " connection " + i;
                workers.add(Thread.ofVirtual().name("soak-" + i).start(() -> connection(pair, tally, destructive,
                    workerSeed, name, deadline, unreleased)));
            }
            long drainEnd = deadline + DRAIN.toNanos();
            for (Thread t : workers) {
                if (!t.join(Duration.ofNanos(Math.max(1, drainEnd - System.nanoTime())))) {
                    failures.add(t.getName() + " did not end within " + DRAIN + " after the deadline");
                }
            }
            failures.addAll(clean.reconcile(benignPair.active, benignPair.passive, true));
            failures.addAll(damaged.reconcile(faultyPair.active, faultyPair.passive, false));
        } catch (IllegalStateException e) {
            failures.add(e.getMessage());
        }
        for (FaultSession s : unreleased) {
            s.release(true);
        }
        failures.addAll(clean.violations());
        failures.addAll(damaged.violations());
        report(clean, damaged, failures, (System.nanoTime() - start) / 1e9);
        return failures.isEmpty() ? 0 : 1;
    }

    /** One connection slot: sessions one after another (each a new connection) until the deadline. */
    private void connection(FaultPair pair, FaultTally tally, boolean destructive, long seed, String name,
                            long deadline, ConcurrentLinkedQueue<FaultSession> unreleased) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int k = 0; System.nanoTime() < deadline; k++) {
            Rates rates = destructive ? new Rates(0.1, 0.02, 0.02, 0.02, 0.01, 5) : Rates.benign(0.2, 0.02, 5);
            FaultPlan plan = new SeededFaultPlan(r.nextLong(), rates);
            FaultSession.Settings settings = new FaultSession.Settings(10 + r.nextInt(21), maxLengthOf(r), 1_000,
                30_000);
            try {
                FaultSession s = new FaultSession(pair, r.nextLong(), plan, settings, tally,
                    name + " session " + k);
                s.run();
                unreleased.add(s);
            } catch (IOException e) {
                tally.violation("fault proxy failed to start: " + e);
                return;
            }
            unreleased.removeIf(s -> s.release(false));
        }
    }

    private int maxLengthOf(SplittableRandom r) {
        return Math.min(maxLength, new int[] {64, 1024, 4096, 16384, 65536}[r.nextInt(5)]);
    }

    private void report(FaultTally clean, FaultTally damaged, List<String> failures, double seconds) {
        long operations = clean.operations.sum() + damaged.operations.sum();
        long sessions = clean.sessions.sum() + damaged.sessions.sum();
        out.printf(Locale.ROOT, "duration          %.0f s%n", seconds);
        out.printf(Locale.ROOT, "operations        %d (%d requests)%n", operations,
            clean.requests.sum() + damaged.requests.sum());
        out.printf(Locale.ROOT, "bytes verified    %d%n", clean.bytesVerified.sum() + damaged.bytesVerified.sum());
        out.printf(Locale.ROOT, "sessions          %d (reconnects %d; %d hit by a destructive fault)%n", sessions,
            Math.max(0, sessions - connections), damaged.damagedSessions.sum() + clean.damagedSessions.sum());
        StringBuilder faults = new StringBuilder();
        for (FaultKind k : FaultKind.values()) {
            if (k != FaultKind.PASS) {
                faults.append(faults.isEmpty() ? "" : ", ").append(k.name().toLowerCase(Locale.ROOT)).append(' ')
                    .append(clean.faults.get(k.ordinal()) + damaged.faults.get(k.ordinal()));
            }
        }
        out.printf(Locale.ROOT, "faults injected   %s%n", faults);
        out.printf(Locale.ROOT, "counters          %s%n", failures.stream().anyMatch(f -> f.contains("BYTES_"))
            ? "MISMATCH" : "reconciled (split/delay pair exact, faulty pair covers every success)");
        out.printf(Locale.ROOT, "failures          %d%n", failures.size());
        failures.stream().limit(20).forEach(f -> out.println("  " + f));
    }

    /** {@code 90}, {@code 90s}, {@code 10m}, {@code 1h} → milliseconds. */
    static long parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1_000;
        if (t.endsWith("s")) {
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            unit = 60_000;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            unit = 3_600_000;
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t);
            if (v <= 0 || v > 7 * 24 * 3_600_000L / unit) {
                throw new NumberFormatException();
            }
            return v * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad duration '" + text + "': a positive number with s, m or h");
        }
    }
}
