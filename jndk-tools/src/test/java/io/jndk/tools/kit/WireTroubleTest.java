package io.jndk.tools.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a benchmark row reports the growth of the wire's trouble counters. */
class WireTroubleTest {
    private static Map<String, Long> of(Object... kv) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
        }
        return m;
    }

    @Test
    void growthIsPerCounterInTheOrderOfTheLaterSample() {
        Map<String, Long> g = WireTrouble.growth(of("rc_timeouts", 2, "icrc_bad", 1), of("rc_timeouts", 5, "icrc_bad", 1,
            "send_drops", 3));
        assertThat(g).containsExactly(Map.entry("rc_timeouts", 3L), Map.entry("icrc_bad", 0L), Map.entry("send_drops", 3L));
    }

    @Test
    void theTableNamesOnlyWhatGrewAndJsonCarriesEverything() {
        Map<String, Long> g = of("rc_retransmitted_packets", 12, "rc_timeouts", 0, "rc_rnr_naks_received", 3);
        assertThat(WireTrouble.text(g)).isEqualTo("12 rc_retransmitted_packets, 3 rc_rnr_naks_received");
        assertThat(WireTrouble.text(of("rc_timeouts", 0))).isEmpty();
        assertThat(WireTrouble.jsonField(g)).isEqualTo(
            ",\"wire\":{\"rc_retransmitted_packets\":12,\"rc_timeouts\":0,\"rc_rnr_naks_received\":3}");
        assertThat(WireTrouble.jsonField(Map.of())).as("a transport without device counters").isEmpty();
    }

    @Test
    void aSampleOfTransportsWithoutDeviceCountersIsEmpty() {
        assertThat(WireTrouble.sample(java.util.List.of())).isEmpty();
    }
}
