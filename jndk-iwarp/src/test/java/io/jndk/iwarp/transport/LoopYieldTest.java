package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code engine.yield.us}: a shared engine loop whose turn ran longer than the option yields its CPU before its next
 * selection ({@link EngineLoop#yields}), and never with the option at 0. A 4 MiB Write takes many turns of the
 * sender's loop (a turn sends at most {@value TxLoopTurns#TURN_OCTETS} octets of a connection) and of the receiver's,
 * each far longer than a microsecond.
 */
@Timeout(60)
class LoopYieldTest {
    private static final int SIZE = 4 << 20;
    private static final int CLIENT_STAG = 0x00111100;

    @Test
    void loopsYieldAfterLongTurnsWhenAsked() throws Exception {
        assertThat(writeAndCountYields("1")).isPositive();
    }

    @Test
    void loopsNeverYieldWithTheOptionOff() throws Exception {
        assertThat(writeAndCountYields("0")).isZero();
    }

    /** A 4 MiB Write from the server to the client, verified; returns both loops' yields during it. */
    private static long writeAndCountYields(String yieldMicros) throws Exception {
        try (Pair p = Pair.open(Map.of("engine", "shared", "engine.yield.us", yieldMicros), 64 * 1024)) {
            EngineLoop server = p.serverConnection.engineLoop();
            EngineLoop client = p.clientConnection.engineLoop();
            assertThat(server).isNotNull();
            assertThat(client).isNotNull();
            long before = server.yields() + client.yields();
            MemorySegment target = p.client.region(CLIENT_STAG, SIZE);
            MemorySegment source = p.server.region(0x00222200, SIZE);
            for (int i = 0; i < SIZE; i += 4) {
                source.set(ValueLayout.JAVA_INT_UNALIGNED, i, i * 31 + 7);
            }
            p.server.post(FakeQp.write("w", p.server.cursor(source), CLIENT_STAG, 0));
            assertThat(p.server.next()).isEqualTo("sent w");
            // a Send behind the Write proves it placed (stream order)
            p.client.postReceive(p.client.region(0x00333300, 64));
            p.server.post(FakeQp.send("s", p.server.cursor(p.server.region(0x00444400, 8)), false, null));
            assertThat(p.server.next()).isEqualTo("sent s");
            assertThat(p.client.next()).isEqualTo("recv 8");
            assertThat(target.mismatch(source)).isEqualTo(-1);
            return server.yields() + client.yields() - before;
        }
    }
}
