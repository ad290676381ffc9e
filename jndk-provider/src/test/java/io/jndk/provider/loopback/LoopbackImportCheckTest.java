package io.jndk.provider.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The loopback transport is built on the transport SPI alone: its sources use nothing of the provider core, only
 * the API, the SPI and the JDK. That is what proves the SPI sufficient for a transport (and keeps "the same behaviour
 * on every transport" a matter of structure).
 */
class LoopbackImportCheckTest {
    private static final List<String> ALLOWED = List.of("io.jndk.api.", "io.jndk.provider.spi.", "io.jndk.provider.loopback.",
            "java.");
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+(\\.\\*)?)\\s*;", Pattern.MULTILINE);
    private static final Pattern QUALIFIED = Pattern.compile("\\bio\\.jndk\\.[\\w.]+");

    @Test
    void loopbackSourcesUseOnlyTheApiAndTheSpi() throws IOException {
        Path sources = Paths.get("src", "main", "java", "io", "jndk", "provider", "loopback");
        if (!Files.isDirectory(sources)) {
            sources = Paths.get("jndk-provider").resolve(sources);
        }
        assertThat(sources).isDirectory();
        List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> walk = Files.walk(sources)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                String text = Files.readString(file, StandardCharsets.UTF_8);
                Matcher m = IMPORT.matcher(text);
                while (m.find()) {
                    if (!allowed(m.group(2))) {
                        violations.add(file.getFileName() + ": import " + m.group(2));
                    }
                }
                String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                Matcher q = QUALIFIED.matcher(code);
                while (q.find()) {
                    String name = q.group();
                    if (!name.equals("io.jndk.provider.loopback") && !allowed(name)) {
                        violations.add(file.getFileName() + ": uses " + name);
                    }
                }
            }
        }
        assertThat(files).isGreaterThanOrEqualTo(4);
        assertThat(violations).isEmpty();
    }

    private static boolean allowed(String name) {
        return ALLOWED.stream().anyMatch(name::startsWith);
    }
}
