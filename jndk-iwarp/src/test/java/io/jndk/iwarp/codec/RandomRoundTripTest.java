package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random encode/decode round trips of every header type. Each failure message names the
 * seed; rerun a single seed by editing {@link #seeds()}.
 */
class RandomRoundTripTest {

    static LongStream seeds() {
        return LongStream.range(0, 25).map(i -> 0x5EED_0000L + i * 7919);
    }

    private static ByteBuffer buffer(Random random, int size) {
        // random byte order and a random offset prove that the flyweights ignore the buffer's order
        ByteBuffer b = random.nextBoolean() ? ByteBuffer.allocate(size) : ByteBuffer.allocateDirect(size);
        return b.order(random.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void flyweightsSetThenGet(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 200; i++) {
            String as = "seed=" + seed + " case=" + i;
            int off = random.nextInt(16);
            ByteBuffer b = buffer(random, off + 64);

            int stag = random.nextInt();
            long to = random.nextLong();
            boolean last = random.nextBoolean();
            RdmapOpcode tOp = random.nextBoolean() ? RdmapOpcode.RDMA_WRITE : RdmapOpcode.RDMA_READ_RESPONSE;
            DdpTaggedHeaderFlyweight t = new DdpTaggedHeaderFlyweight().wrap(b, off);
            t.control(true, last).opcode(tOp);
            t.stag(stag).taggedOffset(to);
            assertThat(t.tagged()).as(as).isTrue();
            assertThat(t.last()).as(as).isEqualTo(last);
            assertThat(t.ddpVersion()).as(as).isEqualTo(1);
            assertThat(t.ddpReserved()).as(as).isZero();
            assertThat(t.rdmapVersion()).as(as).isEqualTo(1);
            assertThat(t.opcode()).as(as).isEqualTo(tOp);
            assertThat(t.stag()).as(as).isEqualTo(stag);
            assertThat(t.taggedOffset()).as(as).isEqualTo(to);
            assertThat(b.get(off + 2)).as(as).isEqualTo((byte) (stag >>> 24));
            assertThat(b.get(off + 13)).as(as).isEqualTo((byte) to);

            RdmapOpcode uOp = untaggedOpcode(random);
            int rsvd = random.nextInt();
            int qn = random.nextInt();
            int msn = random.nextInt();
            int mo = random.nextInt();
            DdpUntaggedHeaderFlyweight u = new DdpUntaggedHeaderFlyweight().wrap(b, off);
            u.control(false, last).opcode(uOp);
            u.rsvdUlp(rsvd).queueNumber(qn).msn(msn).messageOffset(mo);
            assertThat(u.tagged()).as(as).isFalse();
            assertThat(u.opcode()).as(as).isEqualTo(uOp);
            assertThat(new int[] {u.rsvdUlp(), u.queueNumber(), u.msn(), u.messageOffset()}).as(as)
                .containsExactly(rsvd, qn, msn, mo);
            assertThat(b.get(off + 17)).as(as).isEqualTo((byte) mo);

            ReadRequestFlyweight rr = new ReadRequestFlyweight().wrap(b, off);
            int a = random.nextInt();
            long bto = random.nextLong();
            int size = random.nextInt();
            int c = random.nextInt();
            long dto = random.nextLong();
            rr.sinkStag(a).sinkTaggedOffset(bto).readSize(size).sourceStag(c).sourceTaggedOffset(dto);
            assertThat(rr.sinkStag()).as(as).isEqualTo(a);
            assertThat(rr.sinkTaggedOffset()).as(as).isEqualTo(bto);
            assertThat(rr.readSize()).as(as).isEqualTo(size);
            assertThat(rr.sourceStag()).as(as).isEqualTo(c);
            assertThat(rr.sourceTaggedOffset()).as(as).isEqualTo(dto);

            MpaIrdOrdFlyweight w = new MpaIrdOrdFlyweight().wrap(b, off);
            boolean[] f = {random.nextBoolean(), random.nextBoolean(), random.nextBoolean(), random.nextBoolean()};
            int ird = random.nextInt(0x4000);
            int ord = random.nextInt(0x4000);
            w.set(f[0], f[1], ird, f[2], f[3], ord);
            assertThat(new boolean[] {w.peerToPeer(), w.sendRtr(), w.writeRtr(), w.readRtr()}).as(as).containsExactly(f);
            assertThat(w.ird()).as(as).isEqualTo(ird);
            assertThat(w.ord()).as(as).isEqualTo(ord);

            TerminateCode code = TerminateCode.values()[random.nextInt(TerminateCode.values().length)];
            boolean m = random.nextBoolean();
            boolean d = random.nextBoolean();
            boolean r = random.nextBoolean();
            TerminateFlyweight term = new TerminateFlyweight().wrap(b, off, 4).control(code, m, d, r);
            assertThat(term.layout()).as(as).isEqualTo(TerminateLayout.RFC_5040);
            assertThat(term.terminateCode()).as(as).isEqualTo(code);
            assertThat(new boolean[] {term.flagM(), term.flagD(), term.flagR()}).as(as).containsExactly(m, d, r);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void fpduStreamsEncodeThenDecodeInRandomChunks(long seed) {
        Random random = new Random(seed);
        boolean crc = random.nextBoolean();
        FpduEncoder encoder = new FpduEncoder(crc);
        ByteBuffer stream = ByteBuffer.allocate(1 << 20);
        List<String> expected = new ArrayList<>();
        int at = 0;
        int frames = 20 + random.nextInt(40);
        for (int i = 0; i < frames; i++) {
            int kind = random.nextInt(4);
            byte[] payload = new byte[kind >= 2 ? 0 : random.nextInt(1500)];
            random.nextBytes(payload);
            ByteBuffer p = ByteBuffer.wrap(payload);
            boolean last = random.nextBoolean();
            int n;
            switch (kind) {
                case 0 -> {
                    RdmapOpcode op = random.nextBoolean() ? RdmapOpcode.RDMA_WRITE : RdmapOpcode.RDMA_READ_RESPONSE;
                    int stag = random.nextInt();
                    long to = random.nextLong();
                    n = encoder.tagged(stream, at, op, last, stag, to, p, 0, payload.length);
                    expected.add(op + " L=" + last + " stag=" + stag + " to=" + to + " " + Hex.of(payload));
                }
                case 1 -> {
                    RdmapOpcode op = sendOpcode(random);
                    int inv = op.invalidates() ? random.nextInt() : 0;
                    int msn = random.nextInt();
                    int mo = random.nextInt();
                    n = encoder.untagged(stream, at, op, last, inv, 0, msn, mo, p, 0, payload.length);
                    expected.add(op + " L=" + last + " inv=" + inv + " msn=" + msn + " mo=" + mo + " " + Hex.of(payload));
                }
                case 2 -> {
                    int msn = random.nextInt();
                    int a = random.nextInt();
                    long b = random.nextLong();
                    int size = random.nextInt();
                    int c = random.nextInt();
                    long d = random.nextLong();
                    n = encoder.readRequest(stream, at, msn, a, b, size, c, d);
                    expected.add("RR msn=" + msn + " " + a + " " + b + " " + size + " " + c + " " + d);
                }
                default -> {
                    TerminateCode code = TerminateCode.values()[random.nextInt(TerminateCode.values().length)];
                    int attach = new int[] {0, 14, 18, 18 + 28}[random.nextInt(4)];
                    byte[] copied = new byte[attach];
                    random.nextBytes(copied);
                    if (attach > 0) {
                        copied[0] = (byte) (attach == 14 ? 0xC1 : 0x41);
                    }
                    int segLen = random.nextInt(0x10000);
                    boolean r = attach == 46;
                    n = encoder.terminate(stream, at, 1, code, r, segLen, ByteBuffer.wrap(copied), 0, attach);
                    expected.add("T " + code + " r=" + r + " len=" + (attach > 0 ? segLen : -1) + " " + Hex.of(copied));
                }
            }
            at += n;
        }
        byte[] bytes = Arrays.copyOf(stream.array(), at);

        // random chunking
        List<Integer> cuts = new ArrayList<>();
        for (int c = 0; c < at; c += 1 + random.nextInt(random.nextBoolean() ? 8 : 3000)) {
            if (c > 0) {
                cuts.add(c);
            }
        }
        List<String> actual = new ArrayList<>();
        RecordingListener listener = new RecordingListener(true, crc).onFrame((h, payload) -> actual.add(describe(h, payload)));
        FpduDecoder decoder = new FpduDecoder(listener, crc);
        int from = 0;
        for (int i = 0; i <= cuts.size(); i++) {
            int to = i < cuts.size() ? cuts.get(i) : at;
            assertThat(decoder.feed(ByteBuffer.wrap(bytes, from, to - from))).as("seed=%d", seed).isEqualTo(FpduError.NONE);
            from = to;
        }
        assertThat(actual).as("seed=%d crc=%s", seed, crc).isEqualTo(expected);
        assertThat(listener.frames).extracting(DecodedFrame::verdict).as("seed=%d", seed)
            .containsOnly(crc ? CrcVerdict.VALID : CrcVerdict.NOT_CHECKED);
        assertThat(Hex.of(Decoding.concat(listener.reencoded.toArray(byte[][]::new)))).as("seed=%d", seed).isEqualTo(Hex.of(bytes));
        assertThat(decoder.atFrameBoundary()).isTrue();
    }

    private static String describe(FpduHeaderView h, byte[] payload) {
        return switch (h.opcode()) {
            case RDMA_WRITE, RDMA_READ_RESPONSE ->
                h.opcode() + " L=" + h.last() + " stag=" + h.stag() + " to=" + h.taggedOffset() + " " + Hex.of(payload);
            case RDMA_READ_REQUEST -> {
                ReadRequestFlyweight rr = h.readRequest();
                yield "RR msn=" + h.msn() + " " + rr.sinkStag() + " " + rr.sinkTaggedOffset() + " " + rr.readSize() + " "
                    + rr.sourceStag() + " " + rr.sourceTaggedOffset();
            }
            case TERMINATE -> {
                TerminateFlyweight t = h.terminate();
                int attach = t.copiedDdpHeaderLength() + t.copiedRdmaHeaderLength();
                byte[] copied = new byte[attach];
                h.buffer().get(t.copiedDdpHeaderIndex(), copied);
                yield "T " + t.terminateCode() + " r=" + t.flagR() + " len=" + (t.hasDdpSegmentLength() ? t.ddpSegmentLength() : -1)
                    + " " + Hex.of(copied);
            }
            default -> h.opcode() + " L=" + h.last() + " inv=" + h.invalidateStag() + " msn=" + h.msn()
                + " mo=" + h.messageOffset() + " " + Hex.of(payload);
        };
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void mpaFramesEncodeThenValidateAndDecode(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 300; i++) {
            String as = "seed=" + seed + " case=" + i;
            MpaFrameKind kind = random.nextBoolean() ? MpaFrameKind.REQUEST : MpaFrameKind.REPLY;
            boolean enhanced = random.nextBoolean();
            int revision = enhanced ? 2 : 1 + random.nextInt(2);
            int ulp = random.nextInt(MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW - (enhanced ? 4 : 0) + 1);
            int pd = ulp + (enhanced ? 4 : 0);
            boolean crc = random.nextBoolean();
            boolean reject = kind == MpaFrameKind.REPLY && random.nextBoolean();
            int off = random.nextInt(8);
            ByteBuffer b = buffer(random, off + 20 + pd);
            MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(b, off).key(kind).flags(0)
                .crc(crc).reject(reject).enhanced(enhanced).revision(revision).privateDataLength(pd);
            int ird = random.nextInt(0x4000);
            int ord = random.nextInt(0x4000);
            if (enhanced) {
                new MpaIrdOrdFlyweight().wrap(b, f.privateDataIndex()).set(false, false, ird, false, false, ord);
            }
            byte[] data = new byte[ulp];
            random.nextBytes(data);
            b.put(f.ulpPrivateDataIndex(), data);

            MpaFrameFlyweight g = new MpaFrameFlyweight().wrap(b, off);
            assertThat(g.validate(kind)).as(as).isEqualTo(MpaFrameCheck.VALID);
            assertThat(g.crc()).as(as).isEqualTo(crc);
            assertThat(g.reject()).as(as).isEqualTo(reject);
            assertThat(g.markers()).as(as).isFalse();
            assertThat(g.revision()).as(as).isEqualTo(revision);
            assertThat(g.frameLength()).as(as).isEqualTo(20 + pd);
            assertThat(g.ulpPrivateDataLength()).as(as).isEqualTo(ulp);
            byte[] back = new byte[ulp];
            b.get(g.ulpPrivateDataIndex(), back);
            assertThat(back).as(as).isEqualTo(data);
            if (enhanced) {
                MpaIrdOrdFlyweight w = new MpaIrdOrdFlyweight().wrap(b, g.privateDataIndex());
                assertThat(w.ird()).as(as).isEqualTo(ird);
                assertThat(w.ord()).as(as).isEqualTo(ord);
            }
        }
    }

    private static RdmapOpcode untaggedOpcode(Random random) {
        RdmapOpcode[] untagged = Arrays.stream(RdmapOpcode.values()).filter(o -> !o.tagged()).toArray(RdmapOpcode[]::new);
        return untagged[random.nextInt(untagged.length)];
    }

    private static RdmapOpcode sendOpcode(Random random) {
        RdmapOpcode[] sends = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE,
            RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE};
        return sends[random.nextInt(sends.length)];
    }
}
