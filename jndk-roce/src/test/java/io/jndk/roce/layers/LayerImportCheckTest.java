package io.jndk.roce.layers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The codecs know nothing of the layers above them or of sockets, checked on the source files: the transport codec
 * ({@code codec}) imports only the JDK's buffers and CRC; the MAD codec ({@code mad}) may also use {@code codec}; the RC
 * reliability core ({@code rc}) uses {@code codec} only: no sockets, no MADs, no provider.
 */
class LayerImportCheckTest {

    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+)\\s*;", Pattern.MULTILINE);

    @ParameterizedTest(name = "{0}")
    @CsvSource({"codec, java.nio java.lang java.util", "mad, java.nio java.lang java.util io.jndk.roce.codec",
        "rc, java.nio java.lang java.util io.jndk.roce.codec"})
    void importsOnlyWhatTheLayerMay(String pkg, String allowed) throws IOException {
        Path sources = Path.of("src", "main", "java", "io", "jndk", "roce", pkg);
        if (!Files.isDirectory(sources)) {
            sources = Path.of("jndk-roce").resolve(sources);
        }
        assertThat(sources).isDirectory();
        List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> walk = Files.list(sources)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                String text = Files.readString(file, StandardCharsets.UTF_8);
                Matcher m = IMPORT.matcher(text);
                while (m.find()) {
                    String imported = m.group(2);
                    boolean ok = false;
                    for (String prefix : allowed.split(" ")) {
                        ok |= imported.startsWith(prefix + ".");
                    }
                    if (!ok || imported.startsWith("java.nio.channels.")) {
                        violations.add(file.getFileName() + ": import " + imported);
                    }
                }
                String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                for (String bad : new String[] {"java.net.", "java.nio.channels.", "io.jndk.api.", "io.jndk.provider.", "io.jndk.iwarp."}) {
                    if (code.contains(bad)) {
                        violations.add(file.getFileName() + ": uses " + bad);
                    }
                }
                if (!pkg.equals("mad") && code.contains("io.jndk.roce.mad")) {
                    violations.add(file.getFileName() + ": the transport codec uses the MAD layer");
                }
            }
        }
        assertThat(files).isGreaterThan(5);
        assertThat(violations).isEmpty();
    }
}
