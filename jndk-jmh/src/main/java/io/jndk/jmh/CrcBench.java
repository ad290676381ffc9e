package io.jndk.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The JDK's CRC32c (the intrinsic MPA's CRC rides on) over FPDU-sized direct buffers: the floor under the
 * {@code crc=true} rows of {@link CodecBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CrcBench {
    @Param({"64", "1024", "65536"})
    int size;

    private final ByteBuffer data = ByteBuffer.allocateDirect(65_536);
    private final CRC32C crc = new CRC32C();

    /** CRC32c over {@code size} bytes. */
    @Benchmark
    public long crc32c() {
        crc.reset();
        data.clear().limit(size);
        crc.update(data);
        return crc.getValue();
    }
}
