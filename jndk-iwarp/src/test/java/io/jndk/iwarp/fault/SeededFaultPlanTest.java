package io.jndk.iwarp.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.iwarp.fault.SeededFaultPlan.Rates;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Seeded decisions: reproducible per stream, within the rates, and valid actions. */
class SeededFaultPlanTest {
    private static List<FaultAction> draw(FaultPlan plan, int connection, FaultDirection direction, int n) {
        List<FaultAction> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(plan.decide(connection, direction, i * 100L, 1 + i % 300));
        }
        return out;
    }

    @Test
    void aSeedFixesTheDecisionsOfEachStream() {
        Rates rates = new Rates(0.2, 0.2, 0.1, 0.1, 0.1, 5);
        FaultPlan one = new SeededFaultPlan(42, rates);
        FaultPlan two = new SeededFaultPlan(42, rates);
        // interleaving streams must not change what each stream draws
        List<FaultAction> up = draw(one, 0, FaultDirection.TO_TARGET, 500);
        List<FaultAction> down = draw(one, 0, FaultDirection.TO_CLIENT, 500);
        assertThat(draw(two, 0, FaultDirection.TO_CLIENT, 500)).isEqualTo(down);
        assertThat(draw(two, 0, FaultDirection.TO_TARGET, 500)).isEqualTo(up);
        assertThat(up).isNotEqualTo(down);
        assertThat(draw(new SeededFaultPlan(43, rates), 0, FaultDirection.TO_TARGET, 500)).isNotEqualTo(up);
        assertThat(draw(one, 1, FaultDirection.TO_TARGET, 500)).isNotEqualTo(up);
    }

    @Test
    void benignRatesNeverDamageAndEveryKindShowsUpOtherwise() {
        Map<FaultKind, Integer> seen = new EnumMap<>(FaultKind.class);
        for (FaultAction a : draw(new SeededFaultPlan(1, Rates.benign(0.3, 0.3, 7)), 0, FaultDirection.TO_TARGET,
                5000)) {
            assertThat(a.kind().destructive).as("%s", a).isFalse();
            assertThat(a.at()).isLessThan(300);
            if (a.kind() == FaultKind.DELAY) {
                assertThat(a.amount()).isBetween(0, 7);
            }
        }
        for (FaultAction a : draw(new SeededFaultPlan(1, new Rates(0.1, 0.1, 0.1, 0.1, 0.1, 1)), 0,
                FaultDirection.TO_TARGET, 5000)) {
            seen.merge(a.kind(), 1, Integer::sum);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrder(FaultKind.values());
        assertThat(seen.get(FaultKind.PASS)).isBetween(2200, 2800);
    }

    @Test
    void invalidRatesAndActionsAreRefused() {
        assertThatThrownBy(() -> new Rates(0.5, 0.5, 0.1, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Rates(-0.1, 0, 0, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultAction(FaultKind.CORRUPT, 0, 0x100))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultAction(FaultKind.SPLIT, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultAction(FaultKind.DROP, -1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
