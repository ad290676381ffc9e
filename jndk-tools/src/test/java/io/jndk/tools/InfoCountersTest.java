package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCounter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code jndk info} prints every declared counter of its fresh adapter, by label and (JSON) by name. */
class InfoCountersTest {
    private static final Duration RUN = Duration.ofSeconds(60);

    private static String run(String... args) throws Exception {
        return JndkProcess.run(RUN, args);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyCounterIsPrintedWithItsLabelAndInJson() throws Exception {
        String text = run("info", "--transport", "iwarp");
        String json = run("info", "--transport", "iwarp", "--json");
        for (NdkCounter c : NdkCounter.values()) {
            assertThat(text).containsPattern("(?m)^  " + Pattern.quote(c.label) + " +0$");
            assertThat(json).contains("\"" + c.name().toLowerCase(Locale.ROOT) + "\":0");
        }
    }
}
