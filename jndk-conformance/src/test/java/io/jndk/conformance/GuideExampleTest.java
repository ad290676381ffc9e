package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the guide's example and checks what it prints. */
@Timeout(60)
class GuideExampleTest {
    @Test
    void guideExampleRunsAndMovesTheData() throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            GuideExample.main(new String[0]);
        } finally {
            System.setOut(old);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("connect: STATUS_SUCCESS").contains("B holds: hello from A")
                .contains("read back: hello from A").contains("received 13 bytes");
    }
}
