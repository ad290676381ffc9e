package io.jndk.iwarp.codec;

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

/** Codecs know nothing of the layers above them or of sockets: checked on the source files. */
class CodecImportCheckTest {

    private static final List<String> FORBIDDEN = List.of("io.jndk.provider", "io.jndk.api", "java.net", "java.nio.channels");
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+(\\.\\*)?)\\s*;", Pattern.MULTILINE);

    @Test
    void codecSourcesImportNothingFromAboveOrFromNetworking() throws IOException {
        Path sources = Paths.get("src", "main", "java", "io", "jndk", "iwarp", "codec");
        if (!Files.isDirectory(sources)) {
            sources = Paths.get("jndk-iwarp").resolve(sources);
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
                    String imported = m.group(2);
                    for (String bad : FORBIDDEN) {
                        if (imported.equals(bad) || imported.startsWith(bad + ".")) {
                            violations.add(file.getFileName() + ": import " + imported);
                        }
                    }
                }
                // fully qualified uses without an import
                for (String bad : FORBIDDEN) {
                    if (Pattern.compile("\\b" + Pattern.quote(bad) + "\\.[A-Za-z]").matcher(stripComments(text)).find()) {
                        violations.add(file.getFileName() + ": uses " + bad);
                    }
                }
            }
        }
        assertThat(files).isGreaterThan(10);
        assertThat(violations).isEmpty();
    }

    private static String stripComments(String text) {
        return text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    }
}
