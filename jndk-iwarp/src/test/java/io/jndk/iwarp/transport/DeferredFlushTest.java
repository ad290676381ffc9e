package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.provider.spi.EngineThread;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shared engine: what a notification running on an engine thread posts goes out after it returns, in one
 * gathering write ({@link TxEngine#kick}). A consumer that answers a Send with a Write and a Send that solicits an
 * event (iWARP has no Write with immediate data) otherwise wrote two segments, and the peer could wake for each.
 */
@Timeout(60)
class DeferredFlushTest {
    private static final int CLIENT_STAG = 0x00111100;

    /**
     * A receive completes on the server's engine thread; the notification (deferred there, as the provider defers
     * an inline one) posts two small Writes, each alone in the SQ when posted. Both go out in one write call, and
     * both arrive.
     */
    @ParameterizedTest(name = "poll={0}")
    @ValueSource(booleans = {false, true})
    void requestsPostedByAnInlineNotificationShareOneWrite(boolean poll) throws Exception {
        try (Pair p = Pair.open(Map.of("engine", "shared", "poll", Boolean.toString(poll)), 4096)) {
            MemorySegment target = p.client.region(CLIENT_STAG, 16);
            MemorySegment one = p.server.region(0x00222200, 8).fill((byte) 1);
            MemorySegment two = p.server.region(0x00333300, 8).fill((byte) 2);
            p.server.reportsAlone = true;
            AtomicLong before = new AtomicLong(-1);
            AtomicLong onEngineThread = new AtomicLong();
            p.server.onReceive = () -> EngineThread.defer(unused -> {
                onEngineThread.set(EngineThread.isEngineThread() ? 1 : 0);
                before.set(p.serverConnection.txEngine().batch.writeCalls);
                p.server.post(FakeQp.write("w1", p.server.cursor(one), CLIENT_STAG, 0));
                p.server.post(FakeQp.write("w2", p.server.cursor(two), CLIENT_STAG, 8));
            }, 0);
            p.server.postReceive(p.server.region(0x00444400, 64));
            MemorySegment msg = p.client.region(0x00555500, 4).fill((byte) 9);
            p.client.post(FakeQp.send("s1", p.client.cursor(msg), true, null));
            assertThat(p.client.next()).isEqualTo("sent s1");
            assertThat(p.server.next()).isEqualTo("recv 4 se");
            assertThat(p.server.next()).isEqualTo("sent w1");
            assertThat(p.server.next()).isEqualTo("sent w2");
            assertThat(onEngineThread.get()).isEqualTo(1);
            assertThat(p.serverConnection.txEngine().batch.writeCalls - before.get()).isEqualTo(1);
            // the Writes are placed (a Send behind them proves it: stream order)
            p.client.postReceive(p.client.region(0x00666600, 64));
            p.server.onReceive = null;
            p.server.post(FakeQp.send("s2", p.server.cursor(one), false, null));
            assertThat(p.server.next()).isEqualTo("sent s2");
            assertThat(p.client.next()).isEqualTo("recv 8");
            assertThat(target.asSlice(0, 8).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(1);
            assertThat(target.asSlice(8, 8).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(2);
        }
    }
}
