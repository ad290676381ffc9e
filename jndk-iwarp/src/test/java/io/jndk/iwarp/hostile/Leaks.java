package io.jndk.iwarp.hostile;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Resources a jndk adapter holds, counted from outside: open sockets of this process ({@code /proc/self/fd}) and
 * live threads named like jndk's ({@code iwarp-*}, {@code mpa-*}, {@code jndk-*}). Most of jndk's threads are virtual,
 * which {@link Thread#getAllStackTraces()} does not list, so the threads are counted from a JSON thread dump
 * ({@link HotSpotDiagnosticMXBean#dumpThreads}), which does.
 */
final class Leaks {
    private static final Pattern NAME = Pattern.compile("\"name\": \"([^\"]*)\"");
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(20);

    private Leaks() {
    }

    /** Socket descriptors and jndk thread names at one moment. */
    record Snapshot(int sockets, List<String> threads) {
    }

    static Snapshot snapshot() {
        return new Snapshot(sockets(), jndkThreads());
    }

    /** TCP sockets of this process (descriptors listed in /proc/net/tcp or tcp6). */
    static int sockets() {
        return tcpSockets().size();
    }

    /**
     * This process's TCP sockets as {@code local remote state} (hex, as /proc/net/tcp shows them). Other socket
     * descriptors are left out on purpose: NIO's deferred close parks descriptors on a socket pair of its own.
     */
    static List<String> tcpSockets() {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(link.substring(8, link.length() - 1));
                    }
                } catch (IOException e) {
                    // closed meanwhile (the listing's own descriptor, say)
                }
            }
            List<String> out = new ArrayList<>();
            for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && inodes.contains(f[9])) {
                        out.add(f[1] + " " + f[2] + " " + f[3]);
                    }
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Names of the live threads (platform and virtual) that belong to jndk. */
    static List<String> jndkThreads() {
        try {
            Path dir = Files.createTempDirectory("jndk-threads");
            Path file = dir.resolve("dump.json");
            try {
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
                Matcher m = NAME.matcher(Files.readString(file));
                List<String> names = new ArrayList<>();
                while (m.find()) {
                    String n = m.group(1);
                    if (n.startsWith("iwarp-") || n.startsWith("mpa-") || n.startsWith("jndk-")) {
                        names.add(n);
                    }
                }
                return names;
            } finally {
                Files.deleteIfExists(file);
                Files.delete(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits (bounded) until sockets and jndk threads are no more than in {@code baseline}; fails otherwise. */
    static void assertBackTo(Snapshot baseline) {
        long deadline = System.nanoTime() + SETTLE_NANOS;
        Snapshot now = snapshot();
        while (now.sockets() > baseline.sockets() || now.threads().size() > baseline.threads().size()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("resources not returned: baseline " + baseline + ", now " + now + "; TCP "
                    + tcpSockets());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // polling with a deadline
            now = snapshot();
        }
    }
}
