package io.jndk.roce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The connection manager stays a deterministic state machine: no socket, no thread, no wall clock, no randomness of
 * its own, and it sits on the codecs only (not on the RC engine, the provider or iWARP). Checked on the sources.
 */
class CmPurityTest {

    private static final String[] FORBIDDEN = {"java.net.", "java.nio.channels.", "java.util.concurrent", "Thread",
        "System.nanoTime", "System.currentTimeMillis", "Instant.now", "new Random", "Math.random", "io.jndk.roce.rc",
        "io.jndk.api.", "io.jndk.provider.", "io.jndk.iwarp."};

    @Test
    void sourcesUseNoSocketThreadClockOrUpperLayer() throws IOException {
        Path sources = Path.of("src", "main", "java", "io", "jndk", "roce", "cm");
        if (!Files.isDirectory(sources)) {
            sources = Path.of("jndk-roce").resolve(sources);
        }
        List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> walk = Files.list(sources)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                String code = Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?s)/\\*.*?\\*/", "")
                    .replaceAll("//[^\\n]*", "");
                for (String bad : FORBIDDEN) {
                    if (code.contains(bad)) {
                        violations.add(file.getFileName() + ": " + bad);
                    }
                }
            }
        }
        assertThat(files).isGreaterThan(10);
        assertThat(violations).isEmpty();
    }
}
