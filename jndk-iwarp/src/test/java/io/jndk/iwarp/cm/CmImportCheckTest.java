package io.jndk.iwarp.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Connection setup and capture writing are plain networking: no NDK API, no provider. */
@Timeout(10)
class CmImportCheckTest {

    private static final List<String> FORBIDDEN = List.of("io.jndk.api", "io.jndk.provider");

    @Test
    void cmAndPcapDoNotDependOnTheNdkLayers() throws IOException {
        List<String> violations = new ArrayList<>();
        int files = 0;
        for (String pkg : List.of("cm", "pcap")) {
            Path dir = Paths.get("src", "main", "java", "io", "jndk", "iwarp", pkg);
            if (!Files.isDirectory(dir)) {
                dir = Paths.get("jndk-iwarp").resolve(dir);
            }
            assertThat(dir).isDirectory();
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                    files++;
                    String code = Files.readString(file, StandardCharsets.UTF_8)
                        .replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                    for (String bad : FORBIDDEN) {
                        if (Pattern.compile("\\b" + Pattern.quote(bad) + "\\b").matcher(code).find()) {
                            violations.add(file.getFileName() + " uses " + bad);
                        }
                    }
                }
            }
        }
        assertThat(files).isGreaterThan(10);
        assertThat(violations).isEmpty();
    }
}
