package io.jndk.iwarp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.DdpTaggedHeaderFlyweight;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.iwarp.codec.TerminateFlyweight;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The FPDU/DDP/RDMAP stream decoder on arbitrary bytes in arbitrary splits, CRC on and off.
 *
 * <p>Input layout: octet 0 holds the mode ({@code 0x01} CRC negotiated, {@code 0x02} rewrite the CRC field of
 * every complete length-delimited frame so that mutations get past the CRC check, {@code 0x04} the listener stops
 * the decoder at the first frame end, {@code 0x08} direct placement of some payload through
 * {@link FpduDecoder#payloadPlaced}); octet 1 seeds the split; the rest is the byte stream after the MPA exchange.
 *
 * <p>Checked: nothing throws; the listener sees every header field of a validated header consistent with the checks
 * the decoder claims to do; at most {@link FpduDecoder#MAX_HEADER_LENGTH} octets are ever held; payload pieces lie
 * in the fed chunk; the outcome (events, error, octets consumed) is the same for the whole stream fed at once and
 * for the split; an error latches: later feeds return it, consume nothing and call nothing.
 */
class FpduDecoderFuzzTest {

    static final int CRC = 0x01;
    static final int FIX_CRC = 0x02;
    static final int STOP = 0x04;
    static final int PLACE = 0x08;

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] data) {
        if (data.length < 2) {
            return;
        }
        int mode = data[0] & 0xFF;
        boolean crc = (mode & CRC) != 0;
        byte[] stream = java.util.Arrays.copyOfRange(data, 2, data.length);
        if ((mode & FIX_CRC) != 0) {
            fixCrcs(stream);
        }
        Run whole = new Run(crc, (mode & STOP) != 0);
        whole.feedChunk(ByteBuffer.wrap(stream));
        whole.finish();

        Run split = new Run(crc, (mode & STOP) != 0);
        long seed = ((mode << 8) | (data[1] & 0xFF)) * 0x9E3779B97F4A7C15L + 1;
        int at = 0;
        while (at < stream.length) {
            seed = next(seed);
            int n = (int) Math.min(stream.length - at, 1 + Long.remainderUnsigned(seed >>> 7, (seed & 1) == 0 ? 7 : 97));
            ByteBuffer chunk = ByteBuffer.allocate(n + 6);
            chunk.position(3).limit(3 + n);
            chunk.put(3, stream, at, n);
            seed = next(seed);
            if ((mode & PLACE) != 0 && (seed & 3) != 0 && split.decoder.payloadRemaining() > 0) {
                split.place(chunk, 1 + (int) Long.remainderUnsigned(seed >>> 9, split.decoder.payloadRemaining()));
            }
            split.feedChunk(chunk);
            at += n;
        }
        split.finish();

        Feedback.state(10, whole.decoder.error().ordinal() | (mode & 0x0F) << 4);
        Feedback.state(11, Feedback.bucket(whole.decoder.framesDecoded()) | whole.decoder.error().ordinal() << 4);
        assertThat(split.events).as("events, whole vs split").isEqualTo(whole.events);
        assertThat(split.decoder.error()).isEqualTo(whole.decoder.error());
        assertThat(split.decoder.bytesConsumed()).isEqualTo(whole.decoder.bytesConsumed());
        assertThat(split.decoder.framesDecoded()).isEqualTo(whole.decoder.framesDecoded());
    }

    static long next(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }

    /** Rewrites the CRC of every complete frame as the length fields delimit them. */
    static void fixCrcs(byte[] s) {
        int p = 0;
        CRC32C crc = new CRC32C();
        while (p + 2 <= s.length) {
            int ulpdu = ((s[p] & 0xFF) << 8) | (s[p + 1] & 0xFF);
            int length = FpduFlyweight.fpduLength(ulpdu);
            if (p + length > s.length) {
                return;
            }
            crc.reset();
            crc.update(s, p, length - 4);
            int v = (int) crc.getValue();
            int c = p + length - 4;
            s[c] = (byte) v;
            s[c + 1] = (byte) (v >>> 8);
            s[c + 2] = (byte) (v >>> 16);
            s[c + 3] = (byte) (v >>> 24);
            p += length;
        }
    }

    /** One decoder with a checking, recording listener. */
    static final class Run implements FpduListener {
        final FpduDecoder decoder;
        final boolean crc;
        final boolean stopAtFrameEnd;
        final List<Object> events = new ArrayList<>();
        final ByteArrayOutputStream payload = new ByteArrayOutputStream();
        ByteBuffer chunk;
        boolean inFrame;
        boolean callbacksForbidden;
        long fed;

        Run(boolean crc, boolean stopAtFrameEnd) {
            this.crc = crc;
            this.stopAtFrameEnd = stopAtFrameEnd;
            this.decoder = new FpduDecoder(this, crc);
            assertThat(decoder.crcEnabled()).isEqualTo(crc);
            assertThat(decoder.atFrameBoundary()).isTrue();
        }

        void place(ByteBuffer chunk, int want) {
            int n = Math.min(want, chunk.remaining());
            ByteBuffer slice = chunk.slice(chunk.position(), n);
            for (int i = 0; i < n; i++) {
                payload.write(slice.get(i));
            }
            decoder.payloadPlaced(new ByteBuffer[] {null, slice}, 1, 1, n);
            chunk.position(chunk.position() + n);
            fed += n;
        }

        void feedChunk(ByteBuffer src) {
            chunk = src;
            FpduError before = decoder.error();
            int start = src.position();
            if (before != FpduError.NONE) {
                callbacksForbidden = true;
            }
            FpduError result = decoder.feed(src);
            assertThat(result).isEqualTo(decoder.error());
            assertThat(decoder.collectedHeaderLength()).isBetween(0, FpduDecoder.MAX_HEADER_LENGTH);
            assertThat(src.position()).isBetween(start, src.limit());
            if (before != FpduError.NONE) {
                assertThat(result).as("latched").isEqualTo(before);
                assertThat(src.position()).as("nothing consumed after an error").isEqualTo(start);
            } else if (result == FpduError.NONE) {
                assertThat(src.hasRemaining()).as("all consumed").isFalse();
            }
            fed += src.position() - start;
            assertThat(decoder.bytesConsumed()).isEqualTo(fed);
            if (result != FpduError.NONE) {
                ByteBuffer copy = ByteBuffer.allocate(DdpUntaggedHeaderFlyweight.LENGTH + 2);
                int n = decoder.copyDdpHeader(copy, 2);
                assertThat(n).isIn(0, DdpTaggedHeaderFlyweight.LENGTH, DdpUntaggedHeaderFlyweight.LENGTH);
                assertThat(n).isLessThanOrEqualTo(Math.max(0, decoder.collectedHeaderLength() - 2));
                result.terminate();
            }
        }

        void finish() {
            FpduError e = decoder.error();
            if (e != FpduError.NONE) {
                // the error stays latched whatever follows
                feedChunk(ByteBuffer.wrap(new byte[] {0, 14, (byte) 0xc1, 0x40, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
                assertThat(decoder.error()).isEqualTo(e);
                events.add("error " + e);
            } else {
                events.add("open " + decoder.atFrameBoundary() + " " + decoder.collectedHeaderLength());
                byte[] partial = payload.toByteArray();
                events.add(java.util.HexFormat.of().formatHex(partial));
            }
        }

        @Override
        public void onHeader(FpduHeaderView h) {
            assertThat(callbacksForbidden).as("callback after an error").isFalse();
            assertThat(inFrame).as("onHeader inside a frame").isFalse();
            inFrame = true;
            RdmapOpcode op = h.opcode();
            assertThat(op).isNotNull();
            assertThat(h.headerLength()).isBetween(FpduFlyweight.LENGTH_FIELD_LENGTH + DdpTaggedHeaderFlyweight.LENGTH,
                FpduDecoder.MAX_HEADER_LENGTH);
            assertThat(h.payloadLength()).isGreaterThanOrEqualTo(0);
            assertThat(h.fpduLength()).isEqualTo(FpduFlyweight.fpduLength(h.ulpduLength()));
            assertThat(h.padLength()).isBetween(0, 3);
            assertThat(h.tagged()).isEqualTo(op.tagged());
            assertThat(h.taggedHeader().ddpVersion()).isEqualTo(1);
            assertThat(h.taggedHeader().rdmapVersion()).isEqualTo(1);
            assertThat(h.taggedHeader().opcode()).isEqualTo(op);
            assertThat(h.taggedHeader().opcodeCode()).isEqualTo(op.code());
            assertThat(h.ulpduLength()).isGreaterThanOrEqualTo(op.headerLength());
            StringBuilder sb = new StringBuilder("H ").append(op).append(' ').append(h.ulpduLength()).append(' ')
                .append(h.headerLength()).append(' ').append(h.last()).append(' ')
                .append(h.taggedHeader().control()).append(' ').append(h.taggedHeader().ddpReserved()).append(' ')
                .append(h.taggedHeader().rdmapControl());
            if (op.tagged()) {
                sb.append(" stag ").append(h.stag()).append(" to ").append(h.taggedOffset());
            } else {
                assertThat(h.queueNumber()).isEqualTo(op.queueNumber());
                sb.append(" qn ").append(h.queueNumber()).append(" msn ").append(h.msn()).append(" mo ")
                    .append(h.messageOffset()).append(" inv ").append(h.invalidateStag());
            }
            if (op == RdmapOpcode.RDMA_READ_REQUEST) {
                assertThat(h.payloadLength()).isZero();
                ReadRequestFlyweight r = h.readRequest();
                sb.append(" rr ").append(r.sinkStag()).append(' ').append(r.sinkTaggedOffset()).append(' ')
                    .append(r.readSize()).append(' ').append(r.sourceStag()).append(' ').append(r.sourceTaggedOffset());
            }
            if (op == RdmapOpcode.TERMINATE) {
                assertThat(h.payloadLength()).isZero();
                sb.append(' ').append(terminate(h.terminate()));
            }
            Feedback.state(12, op.code() | (h.last() ? 0x10 : 0) | (crc ? 0x20 : 0) | Math.min(h.padLength(), 3) << 6);
            Feedback.state(13 + op.code(), Feedback.bucket(h.payloadLength()) | (events.size() > 1 ? 0x80 : 0));
            events.add(sb.toString());
        }

        @Override
        public void onPayload(ByteBuffer buffer, int index, int length) {
            assertThat(callbacksForbidden).as("callback after an error").isFalse();
            assertThat(inFrame).isTrue();
            assertThat(buffer).isSameAs(chunk);
            assertThat(length).isPositive();
            assertThat(index).isGreaterThanOrEqualTo(0);
            assertThat(index + length).isLessThanOrEqualTo(buffer.limit());
            for (int i = index; i < index + length; i++) {
                payload.write(buffer.get(i));
            }
        }

        @Override
        public void onFrameEnd(FpduHeaderView h, CrcVerdict verdict) {
            assertThat(callbacksForbidden).as("callback after an error").isFalse();
            assertThat(inFrame).isTrue();
            inFrame = false;
            assertThat(verdict == CrcVerdict.NOT_CHECKED).isEqualTo(!crc);
            int pad = h.receivedPad();
            assertThat(h.padLength() == 0 ? pad == 0 : (pad >>> (8 * h.padLength())) == 0).isTrue();
            byte[] p = payload.toByteArray();
            payload.reset();
            assertThat(p.length).as("payload octets of the frame").isEqualTo(h.payloadLength());
            events.add("E " + verdict + " pad " + pad + " " + java.util.HexFormat.of().formatHex(p));
            if (stopAtFrameEnd) {
                decoder.stop();
            }
        }
    }

    /** Every getter of a received Terminate body, within the body's length. */
    static String terminate(TerminateFlyweight t) {
        assertThat(t.length()).isBetween(TerminateFlyweight.CONTROL_LENGTH, TerminateFlyweight.MAX_LENGTH);
        Feedback.state(30, t.layout().ordinal() | (t.layoutAmbiguous() ? 2 : 0) | (t.terminateCode() == null ? 4 : 0)
            | t.copiedDdpHeaderLength() << 3 | (t.copiedRdmaHeaderLength() > 0 ? 0x80 : 0));
        StringBuilder sb = new StringBuilder("T ").append(t.layout()).append(' ').append(t.layoutAmbiguous())
            .append(' ').append(t.layer()).append(' ').append(t.errorType()).append(' ').append(t.errorCode())
            .append(' ').append(t.terminateCode()).append(' ').append(t.flagM()).append(t.flagD()).append(t.flagR());
        assertThat(t.layer()).isBetween(0, 15);
        assertThat(t.errorType()).isBetween(0, 15);
        assertThat(t.errorCode()).isBetween(0, 255);
        if (t.hasDdpSegmentLength()) {
            sb.append(" seg ").append(t.ddpSegmentLength());
        }
        int ddp = t.copiedDdpHeaderLength();
        int rdma = t.copiedRdmaHeaderLength();
        assertThat(ddp).isIn(0, DdpTaggedHeaderFlyweight.LENGTH, DdpUntaggedHeaderFlyweight.LENGTH);
        assertThat(rdma).isIn(0, ReadRequestFlyweight.LENGTH);
        if (rdma > 0) {
            assertThat(ddp).isPositive();
        }
        int end = TerminateFlyweight.COPIED_DDP_HEADER_OFFSET + ddp + rdma;
        if (ddp > 0) {
            assertThat(end).isLessThanOrEqualTo(t.length());
            assertThat(t.copiedRdmaHeaderIndex()).isEqualTo(t.copiedDdpHeaderIndex() + ddp);
            for (int i = t.copiedDdpHeaderIndex(); i < t.offset() + end; i++) {
                sb.append(Integer.toHexString(t.buffer().get(i) & 0xFF));
            }
        }
        return sb.toString();
    }
}
