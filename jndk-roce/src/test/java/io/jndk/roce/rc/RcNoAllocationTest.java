package io.jndk.roce.rc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.ThreadAllocations;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The requester and responder allocate nothing per packet once warm: a requester wired straight to a responder
 * (each sink hands the packet to the other side) moves thousands of SENDs, WRITEs and READs while the thread's
 * allocated bytes stay far below one byte per packet (measured with {@link ThreadAllocations}, skipped
 * where the JVM does not count); the JIT's own few hundred bytes are tolerated.
 */
class RcNoAllocationTest {

    private long completed;
    private long received;

    @Test
    void steadyStateAllocatesNothingPerPacket() {
        ThreadAllocations allocated = ThreadAllocations.open();
        RcConfig config = RcConfig.rxeDefaults();
        long[] now = {0};
        RemoteAccess memory = new FlatMemory(ByteBuffer.allocateDirect(8192), 0x1000, 1);
        Requester requester = new Requester(config, 0xFFFF00, () -> now[0], (id, op, st, len) -> {
            if (st != RcStatus.SUCCESS) {
                throw new AssertionError(op + " " + st);
            }
            completed++;
        });
        Responder responder = new Responder(config, 0xFFFF00, memory, (id, st, len, inv, key) -> received++);
        PacketSink toResponder = responder::onPacket;
        PacketSink toRequester = requester::onPacket;
        LocalBuffer message = LocalBuffer.wrap(ByteBuffer.allocateDirect(3000));
        LocalBuffer target = LocalBuffer.wrap(ByteBuffer.allocateDirect(3000));
        LocalBuffer receive = LocalBuffer.wrap(ByteBuffer.allocateDirect(4096));
        for (int round = 0; round < 2000; round++) {
            round(requester, responder, toResponder, toRequester, message, target, receive);
        }
        long noise = allocated.noise();
        long sentBefore = requester.counters().get(RcCounter.PACKETS_SENT);
        long before = allocated.bytes();
        for (int round = 0; round < 2000; round++) {
            round(requester, responder, toResponder, toRequester, message, target, receive);
        }
        long after = allocated.bytes();
        long packets = (requester.counter(RcCounter.PACKETS_SENT) - sentBefore) * 2;
        System.out.printf("RC no-allocation: about %d packets both ways, %d bytes allocated (a counter read alone: %d)%n",
            packets, after - before - noise, noise);
        assertThat(completed).isEqualTo(4000 * 3);
        assertThat(received).isEqualTo(4000);
        assertThat(after - before - noise).as("bytes allocated over %d packets", packets).isLessThan(4096);
    }

    /** One region, bounds-checked without recording anything (the recording {@link TestMemory} allocates). */
    private record FlatMemory(ByteBuffer bytes, long base, int key) implements RemoteAccess {
        @Override
        public Result check(int rkey, long va, int length, Right right) {
            return rkey == key && va >= base && va - base + length <= bytes.capacity() ? Result.OK : Result.REMOTE_ACCESS_ERROR;
        }

        @Override
        public void write(int rkey, long va, ByteBuffer src, int srcIndex, int length) {
            bytes.put((int) (va - base), src, srcIndex, length);
        }

        @Override
        public void read(int rkey, long va, ByteBuffer dst, int dstIndex, int length) {
            dst.put(dstIndex, bytes, (int) (va - base), length);
        }

        @Override
        public Result invalidate(int rkey) {
            return Result.REMOTE_ACCESS_ERROR;
        }
    }

    private static void round(Requester requester, Responder responder, PacketSink toResponder, PacketSink toRequester,
        LocalBuffer message, LocalBuffer target, LocalBuffer receive) {
        responder.postReceive(1, receive);
        requester.postSend(1, message);
        requester.postWrite(2, message, 0x1000, 1);
        requester.postRead(3, target, 0x1000, 1);
        while (requester.outstanding() > 0) {
            requester.poll(toResponder, 64);
            responder.poll(toRequester, 64);
        }
    }
}
