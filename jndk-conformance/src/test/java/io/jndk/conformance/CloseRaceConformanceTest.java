package io.jndk.conformance;

import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * NdkCloseConnector racing the disconnect event it causes at the peer: closing both connectors of a connection
 * back to back, from one thread or two, must always complete (a lock-order deadlock between a connector's close
 * and its disconnect indication once hung here).
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(120)
class CloseRaceConformanceTest {
    @Parameter
    Mode mode;

    @Test
    void closingBothConnectorsBackToBackAlwaysCompletes() {
        for (int i = 0; i < 20; i++) {
            try (World w = new World(mode)) {
                World.Pair p = w.connect();
                w.untrack(p.a.connector);
                w.untrack(p.b.connector);
                CompletableFuture<Void> active = Kit.startClose(p.a.connector);
                CompletableFuture<Void> passive = Kit.startClose(p.b.connector);
                Kit.await(active);
                Kit.await(passive);
            }
        }
    }

    @Test
    void closingBothConnectorsFromTwoThreadsAlwaysCompletes() {
        for (int i = 0; i < 20; i++) {
            try (World w = new World(mode)) {
                World.Pair p = w.connect();
                w.untrack(p.a.connector);
                w.untrack(p.b.connector);
                CompletableFuture<CompletableFuture<Void>> other =
                        CompletableFuture.supplyAsync(() -> Kit.startClose(p.b.connector));
                Kit.await(Kit.startClose(p.a.connector));
                Kit.await(Kit.await(other));
            }
        }
    }
}
