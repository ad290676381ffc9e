package io.jndk.jmh;

import io.jndk.iwarp.codec.DdpTaggedHeaderFlyweight;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.iwarp.codec.TerminateFlyweight;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Headers on their own: encoding an RDMA Read Request and a Terminate FPDU, and reading each header through its
 * flyweight (MPA Request frame with validation, DDP tagged, DDP untagged with the Read Request behind it,
 * Terminate control word).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeaderBench {
    private static final int TERMINATE_AT = FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH;
    private static final int READ_REQUEST_AT = TERMINATE_AT;

    private final ByteBuffer frame = ByteBuffer.allocateDirect(256);
    private final ByteBuffer tagged = ByteBuffer.allocateDirect(256);
    private final ByteBuffer readRequest = ByteBuffer.allocateDirect(256);
    private final ByteBuffer terminate = ByteBuffer.allocateDirect(256);
    private final ByteBuffer mpa = ByteBuffer.allocate(MpaFrameFlyweight.HEADER_LENGTH);
    private final FpduEncoder encoder = new FpduEncoder(false);
    private final MpaFrameFlyweight mpaView = new MpaFrameFlyweight();
    private final DdpTaggedHeaderFlyweight taggedView = new DdpTaggedHeaderFlyweight();
    private final DdpUntaggedHeaderFlyweight untaggedView = new DdpUntaggedHeaderFlyweight();
    private final ReadRequestFlyweight readView = new ReadRequestFlyweight();
    private final TerminateFlyweight terminateView = new TerminateFlyweight();
    private int terminateLength;

    /** Encodes one frame of each kind for the read benchmarks. */
    @Setup
    public void setUp() {
        encoder.tagged(tagged, 0, RdmapOpcode.RDMA_WRITE, true, 0x1234_5601, 4096, null, 0, 0);
        encoder.readRequest(readRequest, 0, 3, 0x1111_1101, 0, 65536, 0x2222_2201, 8192);
        terminateLength = encoder.terminate(terminate, 0, 1, TerminateCode.values()[0], false, 0, null, 0, 0)
                - TERMINATE_AT - 4;
        mpaView.wrap(mpa, 0).key(MpaFrameKind.REQUEST).revision(MpaFrameFlyweight.REVISION_1);
    }

    /** Encodes an RDMA Read Request FPDU. */
    @Benchmark
    public int encodeReadRequest() {
        return encoder.readRequest(frame, 0, 3, 0x1111_1101, 0, 65536, 0x2222_2201, 8192);
    }

    /** Encodes a Terminate FPDU without attachment. */
    @Benchmark
    public int encodeTerminate() {
        return encoder.terminate(frame, 0, 1, TerminateCode.values()[0], false, 0, null, 0, 0);
    }

    /** Reads and validates an MPA Request frame header. */
    @Benchmark
    public Object readMpaFrame() {
        return mpaView.wrap(mpa, 0).validate(MpaFrameKind.REQUEST);
    }

    /** Reads a DDP tagged header. */
    @Benchmark
    public long readDdpTagged() {
        DdpTaggedHeaderFlyweight h = taggedView.wrap(tagged, FpduFlyweight.ULPDU_OFFSET);
        return h.stag() + h.taggedOffset() + h.opcodeCode() + (h.last() ? 1 : 0);
    }

    /** Reads a DDP untagged header and the RDMA Read Request behind it. */
    @Benchmark
    public long readUntaggedAndReadRequest() {
        DdpUntaggedHeaderFlyweight h = untaggedView.wrap(readRequest, FpduFlyweight.ULPDU_OFFSET);
        ReadRequestFlyweight r = readView.wrap(readRequest, READ_REQUEST_AT);
        return h.queueNumber() + h.msn() + h.messageOffset() + r.sinkStag() + r.readSize() + r.sourceTaggedOffset();
    }

    /** Reads a Terminate's control word. */
    @Benchmark
    public int readTerminate() {
        TerminateFlyweight t = terminateView.wrap(terminate, TERMINATE_AT, terminateLength);
        return t.layer() + t.errorType() + t.errorCode();
    }
}
