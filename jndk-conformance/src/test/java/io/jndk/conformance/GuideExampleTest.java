package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the guide's example over each transport and checks what it prints; the guide shows exactly this code. */
@Timeout(60)
class GuideExampleTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"loopback", "iwarp"})
    void guideExampleRunsAndMovesTheData(String transport) throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            GuideExample.main(new String[] {transport});
        } finally {
            System.setOut(old);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("connect: STATUS_SUCCESS").contains("B holds: hello from A")
                .contains("read back: hello from A").contains("received 13 bytes");
    }

    @Test
    void theGuidesExampleIsThisCode() throws IOException {
        Path guide = Path.of("..", "docs", "GUIDE.md");
        Matcher block = Pattern.compile("(?s)## A complete example.*?```java\n(.*?)```").matcher(Files.readString(guide));
        assertThat(block.find()).as("docs/GUIDE.md has the example's java block").isTrue();
        String example = Files.readString(Path.of("src", "test", "java", "io", "jndk", "conformance", "GuideExample.java"))
                .replaceFirst("package io\\.jndk\\.conformance;\n\n", "")
                .replaceFirst("(?s)/\\*\\*.*?\\*/\n", "")
                .replace("GuideExample", "Example");
        assertThat(block.group(1)).isEqualTo(example);
    }
}
