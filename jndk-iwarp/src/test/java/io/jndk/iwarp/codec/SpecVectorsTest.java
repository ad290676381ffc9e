package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every byte-exact vector of IWARP.md section 10. */
class SpecVectorsTest {

    // ---- 10.1 CRC-32C check values ----------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "ascii-123456789, 313233343536373839, E3069283, 83 92 06 e3",
        "32x00, 0000000000000000000000000000000000000000000000000000000000000000, 8A9136AA, aa 36 91 8a",
        "32xff, ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff, 62A8AB43, 43 ab a8 62",
        "ascending, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f, 46DD794E, 4e 79 dd 46",
        "descending, 1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100, 113FDB5C, 5c db 3f 11",
    })
    void crcCheckValues(String name, String input, String value, String wire) {
        byte[] data = Hex.bytes(input);
        CRC32C crc = new CRC32C();
        crc.update(data);
        assertThat((int) crc.getValue()).as(name).isEqualTo(Integer.parseUnsignedInt(value, 16));

        ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.BIG_ENDIAN);
        NetworkOrder.putLeI32(trailer, 0, (int) crc.getValue());
        assertThat(Hex.of(trailer.array())).isEqualTo(wire);
    }

    @Test
    void rfc5044Figure5CrcCoversMarkerAndIsLittleEndian() {
        byte[] f = Vectors.RFC5044_FIGURE5;
        CRC32C crc = new CRC32C();
        crc.update(f, 0, f.length - 4);
        assertThat((int) crc.getValue()).isEqualTo(0x83992352);
        assertThat(NetworkOrder.leI32(ByteBuffer.wrap(f), f.length - 4)).isEqualTo(0x83992352);
        // the FPDU after the marker is a Send of 24 zero octets on QN 0, MSN 1
        DdpUntaggedHeaderFlyweight h = new DdpUntaggedHeaderFlyweight().wrap(ByteBuffer.wrap(f), 6);
        assertThat(new FpduFlyweight().wrap(ByteBuffer.wrap(f), 4).ulpduLength()).isEqualTo(42);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.SEND);
        assertThat(h.msn()).isEqualTo(1);
    }

    // ---- 10.2 MPA frames ------------------------------------------------------------------------------

    @Test
    void mpaRequestOfSiwRping() {
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REQUEST_RPING), 0);
        assertThat(f.validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(f.hasKey(MpaFrameKind.REPLY)).isFalse();
        assertThat(f.markers()).isFalse();
        assertThat(f.crc()).isFalse();
        assertThat(f.reject()).isFalse();
        assertThat(f.enhanced()).isTrue();
        assertThat(f.revision()).isEqualTo(2);
        assertThat(f.privateDataLength()).isEqualTo(4);
        assertThat(f.frameLength()).isEqualTo(24);
        assertThat(f.ulpPrivateDataLength()).isZero();
        MpaIrdOrdFlyweight w = new MpaIrdOrdFlyweight().wrap(f.buffer(), f.privateDataIndex());
        assertThat(w.ird()).isEqualTo(1);
        assertThat(w.ord()).isEqualTo(1);
        assertThat(w.peerToPeer() || w.sendRtr() || w.writeRtr() || w.readRtr()).isFalse();
        assertThat(encodeMpa(MpaFrameKind.REQUEST, false, false, false, 1, false, false, 1)).isEqualTo(Vectors.MPA_REQUEST_RPING);
    }

    @Test
    void mpaRequestAndReplyWithCrc() {
        MpaFrameFlyweight req = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REQUEST_CRC), 0);
        MpaFrameFlyweight rep = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REPLY_CRC), 0);
        assertThat(req.validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(rep.validate(MpaFrameKind.REPLY)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(rep.validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.BAD_KEY);
        assertThat(req.crc()).isTrue();
        assertThat(rep.crc()).isTrue();
        assertThat(encodeMpa(MpaFrameKind.REQUEST, true, false, false, 1, false, false, 1)).isEqualTo(Vectors.MPA_REQUEST_CRC);
        assertThat(encodeMpa(MpaFrameKind.REPLY, true, false, false, 1, false, false, 1)).isEqualTo(Vectors.MPA_REPLY_CRC);
    }

    @Test
    void mpaPeerToPeerOfferAndWriteRtrSelection() {
        MpaIrdOrdFlyweight req = new MpaIrdOrdFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REQUEST_P2P), 20);
        assertThat(req.peerToPeer()).isTrue();
        assertThat(req.sendRtr()).isFalse();
        assertThat(req.writeRtr()).isTrue();
        assertThat(req.readRtr()).isTrue();
        assertThat(req.ird()).isEqualTo(1);
        assertThat(req.ord()).isEqualTo(1);
        MpaIrdOrdFlyweight rep = new MpaIrdOrdFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REPLY_P2P), 20);
        assertThat(rep.peerToPeer()).isTrue();
        assertThat(rep.writeRtr()).isTrue();
        assertThat(rep.readRtr()).isFalse();
        assertThat(encodeMpa(MpaFrameKind.REQUEST, false, false, true, 1, true, true, 1)).isEqualTo(Vectors.MPA_REQUEST_P2P);
        assertThat(encodeMpa(MpaFrameKind.REPLY, false, false, true, 1, true, false, 1)).isEqualTo(Vectors.MPA_REPLY_P2P);
    }

    @Test
    void mpaReject() {
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(Vectors.MPA_REJECT), 0);
        assertThat(f.validate(MpaFrameKind.REPLY)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(f.reject()).isTrue();
        assertThat(f.enhanced()).isTrue();
        assertThat(encodeMpa(MpaFrameKind.REPLY, false, true, false, 0, false, false, 0)).isEqualTo(Vectors.MPA_REJECT);
    }

    private static byte[] encodeMpa(MpaFrameKind kind, boolean crc, boolean reject, boolean p2p, int ird,
                                    boolean writeRtr, boolean readRtr, int ord) {
        ByteBuffer b = ByteBuffer.allocate(24);
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(b, 0)
            .key(kind).flags(0).crc(crc).reject(reject).enhanced(true).revision(2).privateDataLength(4);
        new MpaIrdOrdFlyweight().wrap(b, f.privateDataIndex()).set(p2p, false, ird, writeRtr, readRtr, ord);
        return b.array();
    }

    // ---- 10.3 / 10.4 worked FPDUs ------------------------------------------------------------------------

    static Object[][] fpdus() {
        return Vectors.fpdus();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fpdus")
    void decodesWithGoodCrcAndReencodesIdentically(String name, byte[] fpdu) {
        Decoding.Result r = Decoding.whole(fpdu, true);
        assertThat(r.error()).as(name).isEqualTo(FpduError.NONE);
        assertThat(r.frames()).as(name).hasSize(1);
        assertThat(r.frames().get(0).verdict()).as(name).isEqualTo(CrcVerdict.VALID);
        assertThat(r.decoder().atFrameBoundary()).isTrue();
        assertThat(r.decoder().bytesConsumed()).isEqualTo(fpdu.length);

        RecordingListener l = new RecordingListener(true, true);
        assertThat(new FpduDecoder(l, true).feed(ByteBuffer.wrap(fpdu))).isEqualTo(FpduError.NONE);
        assertThat(Hex.of(l.reencoded.get(0))).as(name).isEqualTo(Hex.of(fpdu));

        FpduFlyweight f = new FpduFlyweight().wrap(ByteBuffer.wrap(fpdu), 0);
        assertThat(f.frameLength()).isEqualTo(fpdu.length);
        assertThat(f.crcMatches(new CRC32C())).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fpdus")
    void crcOffVariantDecodesUncheckedAndReencodesWithZeroTrailer(String name, byte[] fpdu) {
        byte[] off = Vectors.crcOff(fpdu);
        Decoding.Result r = Decoding.whole(off, false);
        assertThat(r.error()).isEqualTo(FpduError.NONE);
        assertThat(r.frames()).singleElement().extracting(DecodedFrame::verdict).isEqualTo(CrcVerdict.NOT_CHECKED);
        assertThat(r.frames().get(0).header()).isEqualTo(Decoding.whole(fpdu, true).frames().get(0).header());

        RecordingListener l = new RecordingListener(true, false);
        new FpduDecoder(l, false).feed(ByteBuffer.wrap(off));
        assertThat(Hex.of(l.reencoded.get(0))).isEqualTo(Hex.of(off));

        // the CRC field is ignored when CRC is off, whatever it holds
        assertThat(Decoding.whole(fpdu, false).frames()).singleElement()
            .extracting(DecodedFrame::verdict).isEqualTo(CrcVerdict.NOT_CHECKED);
        // and a zero trailer is a mismatch when CRC is on
        Decoding.Result bad = Decoding.whole(off, true);
        assertThat(bad.error()).isEqualTo(FpduError.CRC_MISMATCH);
        assertThat(bad.error().terminate()).isEqualTo(TerminateCode.LLP_CRC_ERROR);
        assertThat(bad.frames()).singleElement().extracting(DecodedFrame::verdict).isEqualTo(CrcVerdict.MISMATCH);
    }

    @Test
    void tv1RdmaWriteFields() {
        FpduHeaderView h = onlyHeader(Vectors.TV1);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(h.tagged()).isTrue();
        assertThat(h.last()).isTrue();
        assertThat(h.ulpduLength()).isEqualTo(27);
        assertThat(h.stag()).isEqualTo(0x00123400);
        assertThat(h.taggedOffset()).isEqualTo(0x00007F0012345000L);
        assertThat(h.payloadLength()).isEqualTo(13);
        assertThat(FpduFlyweight.padLength(27)).isEqualTo(3);
        assertThat(Decoding.whole(Vectors.TV1, true).frames().get(0).payload())
            .isEqualTo(Hex.of("Hello, iWARP!".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void tv2SendFields() {
        FpduHeaderView h = onlyHeader(Vectors.TV2);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.SEND);
        assertThat(h.tagged()).isFalse();
        assertThat(h.last()).isTrue();
        assertThat(h.invalidateStag()).isZero();
        assertThat(h.queueNumber()).isZero();
        assertThat(h.msn()).isEqualTo(1);
        assertThat(h.messageOffset()).isZero();
        assertThat(h.payloadLength()).isEqualTo(16);
    }

    @Test
    void tv3ZeroLengthWriteRtr() {
        FpduHeaderView h = onlyHeader(Vectors.TV3);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(h.stag()).isEqualTo(1);
        assertThat(h.taggedOffset()).isZero();
        assertThat(h.payloadLength()).isZero();
        assertThat(Decoding.whole(Vectors.TV3, true).frames().get(0).payloadPieces()).isZero();
    }

    @Test
    void tv4ReadRequestFields() {
        FpduHeaderView h = onlyHeader(Vectors.TV4);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_REQUEST);
        assertThat(h.queueNumber()).isEqualTo(1);
        assertThat(h.msn()).isEqualTo(1);
        assertThat(h.payloadLength()).isZero();
        ReadRequestFlyweight rr = h.readRequest();
        assertThat(rr.sinkStag()).isEqualTo(0x00654300);
        assertThat(rr.sinkTaggedOffset()).isEqualTo(0x00007F00AABB0000L);
        assertThat(rr.readSize()).isEqualTo(16);
        assertThat(rr.sourceStag()).isEqualTo(0x00ABCD00);
        assertThat(rr.sourceTaggedOffset()).isEqualTo(0x0000556677880000L);
    }

    @Test
    void tv5ReadResponseFields() {
        FpduHeaderView h = onlyHeader(Vectors.TV5);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.RDMA_READ_RESPONSE);
        assertThat(h.stag()).isEqualTo(0x00654300);
        assertThat(h.taggedOffset()).isEqualTo(0x00007F00AABB0000L);
        assertThat(h.payloadLength()).isEqualTo(16);
    }

    @Test
    void tv6TerminateWithoutCopiedHeader() {
        FpduHeaderView h = onlyHeader(Vectors.TV6);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.TERMINATE);
        assertThat(h.queueNumber()).isEqualTo(2);
        assertThat(h.msn()).isEqualTo(1);
        TerminateFlyweight t = h.terminate();
        assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        assertThat(t.layoutAmbiguous()).isFalse();
        assertThat(t.layer()).isEqualTo(TerminateCode.LAYER_RDMAP);
        assertThat(t.errorType()).isZero();
        assertThat(t.errorCode()).isEqualTo(0xFF);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.RDMAP_LOCAL_CATASTROPHIC);
        assertThat(t.flagM() || t.flagD() || t.flagR()).isFalse();
        assertThat(t.hasDdpSegmentLength()).isFalse();
        assertThat(t.copiedDdpHeaderLength()).isZero();

        ByteBuffer b = ByteBuffer.allocate(Vectors.TV6.length);
        int n = new FpduEncoder(true).terminate(b, 0, 1, TerminateCode.RDMAP_LOCAL_CATASTROPHIC, false, 0, null, 0, 0);
        assertThat(n).isEqualTo(28);
        assertThat(b.array()).isEqualTo(Vectors.TV6);
    }

    @Test
    void tv7SendWithInvalidate() {
        FpduHeaderView h = onlyHeader(Vectors.TV7);
        assertThat(h.opcode()).isEqualTo(RdmapOpcode.SEND_WITH_INVALIDATE);
        assertThat(h.opcode().invalidates()).isTrue();
        assertThat(h.invalidateStag()).isEqualTo(0x00123400);
        assertThat(h.msn()).isEqualTo(2);
        assertThat(h.payloadLength()).isEqualTo(5);
    }

    @Test
    void tv8TerminateWithCopiedTaggedHeader() {
        FpduHeaderView h = onlyHeader(Vectors.TV8);
        TerminateFlyweight t = h.terminate();
        assertThat(t.controlWord()).isEqualTo(0x1100C000);
        assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG);
        assertThat(t.flagM()).isTrue();
        assertThat(t.flagD()).isTrue();
        assertThat(t.flagR()).isFalse();
        assertThat(t.ddpSegmentLength()).isEqualTo(13);
        assertThat(t.copiedDdpHeaderLength()).isEqualTo(14);
        assertThat(t.copiedRdmaHeaderLength()).isZero();
        DdpTaggedHeaderFlyweight copied = new DdpTaggedHeaderFlyweight().wrap(h.buffer(), t.copiedDdpHeaderIndex());
        assertThat(copied.stag()).isEqualTo(0x00123400);
        assertThat(copied.taggedOffset()).isEqualTo(0x00007F0012345000L);

        // build it the way a receiver of TV1 would: copy TV1's DDP header out of a stopped decoder
        FpduDecoder[] holder = new FpduDecoder[1];
        ByteBuffer copiedHeader = ByteBuffer.allocate(18);
        int[] copiedLength = new int[1];
        FpduListener stopAtHeader = new FpduListener() {
            @Override
            public void onHeader(FpduHeaderView header) {
                copiedLength[0] = holder[0].copyDdpHeader(copiedHeader, 0);
                holder[0].stop();
            }

            @Override
            public void onPayload(ByteBuffer buffer, int index, int length) {
                throw new AssertionError("stopped");
            }

            @Override
            public void onFrameEnd(FpduHeaderView header, CrcVerdict verdict) {
                throw new AssertionError("stopped");
            }
        };
        holder[0] = new FpduDecoder(stopAtHeader, true);
        assertThat(holder[0].feed(ByteBuffer.wrap(Vectors.TV1))).isEqualTo(FpduError.STOPPED);
        assertThat(copiedLength[0]).isEqualTo(14);
        ByteBuffer b = ByteBuffer.allocate(Vectors.TV8.length);
        new FpduEncoder(true).terminate(b, 0, 1, TerminateCode.DDP_TAGGED_INVALID_STAG, false, 13, copiedHeader, 0, 14);
        assertThat(Hex.of(b.array())).isEqualTo(Hex.of(Vectors.TV8));
    }

    @Test
    void tv9TwoSegmentsOfOneWrite() {
        Decoding.Result r = Decoding.whole(Decoding.concat(Vectors.TV9A, Vectors.TV9B), true);
        assertThat(r.error()).isEqualTo(FpduError.NONE);
        assertThat(r.frames()).hasSize(2);
        FpduHeaderView a = onlyHeader(Vectors.TV9A);
        assertThat(a.last()).isFalse();
        assertThat(a.taggedOffset()).isEqualTo(0x00007F0012345000L);
        FpduHeaderView b = onlyHeader(Vectors.TV9B);
        assertThat(b.last()).isTrue();
        assertThat(b.taggedOffset()).isEqualTo(0x00007F0012345004L);
        assertThat(r.frames().get(0).payload() + " " + r.frames().get(1).payload()).isEqualTo("41 42 43 44 45 46 47 48");
    }

    // ---- 10.5 stream-level test ------------------------------------------------------------------------

    @Test
    void streamLevelTestBothDirectionsCrcOnAndOff() {
        for (boolean crc : new boolean[] {true, false}) {
            byte[] request = crc ? Vectors.MPA_REQUEST_CRC : Vectors.MPA_REQUEST_RPING;
            byte[] reply = crc ? Vectors.MPA_REPLY_CRC : Vectors.MPA_REPLY_CRC.clone();
            if (!crc) {
                reply[16] = 0x10;
            }
            List<byte[]> initiatorSegments = List.of(request, v(Vectors.TV2, crc), v(Vectors.TV5, crc), v(Vectors.TV7, crc),
                Decoding.concat(v(Vectors.TV9A, crc), slice(v(Vectors.TV9B, crc), 0, 10)),
                slice(v(Vectors.TV9B, crc), 10, 24));
            List<byte[]> responderSegments = List.of(reply, v(Vectors.TV4, crc),
                Decoding.concat(v(Vectors.TV1, crc), v(Vectors.TV3, crc)), v(Vectors.TV8, crc), v(Vectors.TV6, crc));

            List<DecodedFrame> ini = decodeDirection(initiatorSegments, MpaFrameKind.REQUEST, request, reply);
            List<DecodedFrame> res = decodeDirection(responderSegments, MpaFrameKind.REPLY, request, reply);
            assertThat(ini).extracting(DecodedFrame::opcode).containsExactly(RdmapOpcode.SEND,
                RdmapOpcode.RDMA_READ_RESPONSE, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_WRITE);
            assertThat(res).extracting(DecodedFrame::opcode).containsExactly(RdmapOpcode.RDMA_READ_REQUEST,
                RdmapOpcode.RDMA_WRITE, RdmapOpcode.RDMA_WRITE, RdmapOpcode.TERMINATE, RdmapOpcode.TERMINATE);
            CrcVerdict expected = crc ? CrcVerdict.VALID : CrcVerdict.NOT_CHECKED;
            assertThat(ini).extracting(DecodedFrame::verdict).containsOnly(expected);
            assertThat(res).extracting(DecodedFrame::verdict).containsOnly(expected);
            // the CRC values tshark displays (wire octets read big-endian), in stream order
            if (crc) {
                List<String> shown = new ArrayList<>();
                for (byte[] tv : new byte[][] {Vectors.TV2, Vectors.TV4, Vectors.TV5, Vectors.TV1, Vectors.TV3,
                    Vectors.TV7, Vectors.TV9A, Vectors.TV9B, Vectors.TV8, Vectors.TV6}) {
                    shown.add(String.format("0x%08x", ByteBuffer.wrap(tv).getInt(tv.length - 4)));
                }
                assertThat(String.join(", ", shown)).isEqualTo("0x3255d766, 0xd1440d4b, 0xd8ee0fa2, 0x4d3111b4, "
                    + "0xebd34c5f, 0x781640ac, 0x333a3591, 0xb5ae3143, 0x07b7c7d5, 0x51896a8c");
            }
        }
    }

    private static List<DecodedFrame> decodeDirection(List<byte[]> segments, MpaFrameKind kind, byte[] request, byte[] reply) {
        byte[] stream = Decoding.concat(segments.toArray(byte[][]::new));
        MpaFrameFlyweight mpa = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(stream), 0);
        assertThat(mpa.validate(kind)).isEqualTo(MpaFrameCheck.VALID);
        boolean crc = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(request), 0).crc()
            || new MpaFrameFlyweight().wrap(ByteBuffer.wrap(reply), 0).crc();
        int[] cuts = new int[segments.size() - 2];
        int at = 0;
        for (int i = 1; i < segments.size() - 1; i++) {
            at += segments.get(i).length;
            cuts[i - 1] = at;
        }
        byte[] fpdus = slice(stream, mpa.frameLength(), stream.length);
        Decoding.Result r = Decoding.split(fpdus, crc, cuts);
        assertThat(r.error()).isEqualTo(FpduError.NONE);
        assertThat(r.decoder().atFrameBoundary()).isTrue();
        return r.frames();
    }

    private static byte[] v(byte[] fpdu, boolean crc) {
        return crc ? fpdu : Vectors.crcOff(fpdu);
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    static FpduHeaderView onlyHeader(byte[] fpdu) {
        FpduHeaderView[] seen = new FpduHeaderView[1];
        RecordingListener l = new RecordingListener().onFrame((h, p) -> seen[0] = h);
        FpduDecoder d = new FpduDecoder(l, true);
        assertThat(d.feed(ByteBuffer.wrap(fpdu))).isEqualTo(FpduError.NONE);
        assertThat(l.frames).hasSize(1);
        return seen[0];
    }
}
