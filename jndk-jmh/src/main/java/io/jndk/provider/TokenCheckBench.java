package io.jndk.provider;

import io.jndk.api.NdkMr;
import io.jndk.bench.Fabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The access check every inbound tagged access goes through ({@link TokenTable#checkRemote}: token, PD, rights,
 * bounds) and placing 64 bytes through the resulting {@link CheckedCursor.Range}, on a real adapter's table with
 * one registered 1 MiB region. Lives in the provider's package because both are package-private.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TokenCheckBench {
    private Fabric fabric;
    private Arena arena;
    private TokenTable tokens;
    private SoftPd pd;
    private int stag;
    private long base;
    private final CheckedCursor.Range range = new CheckedCursor.Range();
    private final ByteBuffer src = ByteBuffer.allocateDirect(64);

    /** Opens a loopback adapter and registers 1 MiB for remote write. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        fabric = Fabric.open("loopback", Map.of());
        MemorySegment seg = arena.allocate(1 << 20, 4096);
        NdkMr mr = fabric.register(fabric.pdB, seg);
        tokens = ((SoftAdapter) fabric.b).tokens();
        pd = (SoftPd) fabric.pdB;
        stag = mr.getRemoteToken();
        base = seg.address();
    }

    /** Closes the adapters, then the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        fabric.close();
        arena.close();
    }

    /** One remote-write check of 64 bytes in the middle of the region. */
    @Benchmark
    public int checkRemote() {
        return tokens.checkRemote(stag, base + 4096, 64, TokenTable.RIGHT_REMOTE_WRITE, pd, range.target);
    }

    /** The check, then placing 64 bytes through the checked cursor. */
    @Benchmark
    public boolean checkAndPlace() {
        if (tokens.checkRemote(stag, base + 4096, 64, TokenTable.RIGHT_REMOTE_WRITE, pd, range.target) != TokenTable.OK) {
            return false;
        }
        range.length = 64;
        return range.place(0, src, 0, 64);
    }
}
