package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps docs/NDKPI-MAPPING.md true: every row names a Java method and only test classes that exist (in any module). */
class MappingDocTest {
    private static final Path DOC = Path.of("..", "docs", "NDKPI-MAPPING.md");
    /** The repository's modules: a row may name a test of any of them (the hostile-peer tests are jndk-iwarp's). */
    private static final Path MODULES = Path.of("..");

    @Test
    void everyNdkFunctionHasAJavaMethodAndExistingCoveringTests() throws IOException {
        List<String> rows = Files.readAllLines(DOC).stream().filter(l -> l.startsWith("| ") && l.contains("`Ndk")
                || l.startsWith("| adapter (NDIS)")).toList();
        assertThat(rows).as("rows of the mapping table").hasSizeGreaterThanOrEqualTo(72);
        Pattern cls = Pattern.compile("\\b([A-Z][A-Za-z]+Test)\\b");
        for (String row : rows) {
            String[] cells = row.split("\\|");
            assertThat(cells[4]).as("Java method in %s", row).contains("`");
            Matcher m = cls.matcher(cells[5]);
            int found = 0;
            while (m.find()) {
                found++;
                String file = m.group(1) + ".java";
                try (var all = Files.walk(MODULES)) {
                    assertThat(all.anyMatch(f -> f.getFileName().toString().equals(file)
                            && f.toString().contains("src" + java.io.File.separator + "test")))
                            .as("test class %s named in %s", file, row).isTrue();
                }
            }
            assertThat(found).as("covering tests in %s", row).isPositive();
        }
    }
}
