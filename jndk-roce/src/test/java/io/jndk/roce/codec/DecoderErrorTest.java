package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Hand-built packets with one fault each get the precise error, and the decoder stays within its input. */
class DecoderErrorTest {

    private final RocePacketDecoder decoder = new RocePacketDecoder();
    private final RocePacketEncoder encoder = new RocePacketEncoder();

    /** A well-formed packet of this opcode: payload 8 octets on First/Middle, 5 (pad 3) on Last/Only. */
    private byte[] packet(RoceOpcode op) {
        ByteBuffer b = ByteBuffer.allocate(2048);
        encoder.begin(b, 0, op);
        encoder.bth().destQp(0x11).psn(0xFFFFFF);
        if (op.hasPayload()) {
            int n = op.position() == RoceOpcode.Position.FIRST || op.position() == RoceOpcode.Position.MIDDLE ? 8 : 5;
            encoder.payload(ByteBuffer.wrap("payload!".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 0, n);
        }
        int length = encoder.finish(0x12345678);
        byte[] out = new byte[length];
        b.get(0, out);
        return out;
    }

    private RocePacketError decode(byte[] p) {
        return decoder.decode(ByteBuffer.wrap(p), 0, p.length);
    }

    @ParameterizedTest
    @EnumSource(RoceOpcode.class)
    void aWellFormedPacketDecodes(RoceOpcode op) {
        byte[] p = packet(op);
        assertThat(decode(p)).isEqualTo(RocePacketError.NONE);
        assertThat(decoder.opcode()).isEqualTo(op);
        assertThat(decoder.truncatedIn()).isNull();
        assertThat(decoder.payloadOffset()).isEqualTo(op.headersLength());
        assertThat(decoder.payloadLength()).isEqualTo(op.hasPayload() ? p.length - op.headersLength() - 4 - decoder.padCount() : 0);
        assertThat(decoder.icrc()).isEqualTo(0x12345678);
        assertThat(decoder.icrcOffset()).isEqualTo(p.length - 4);
        assertThat(decoder.bth().psn()).isEqualTo(0xFFFFFF);
        for (ExtensionHeader h : ExtensionHeader.values()) {
            HeaderFlyweight f = switch (h) {
                case DETH -> decoder.deth();
                case RETH -> decoder.reth();
                case ATOMIC_ETH -> decoder.atomicEth();
                case AETH -> decoder.aeth();
                case ATOMIC_ACK_ETH -> decoder.atomicAckEth();
                case IMMDT -> decoder.immDt();
                case IETH -> decoder.ieth();
            };
            if (op.has(h)) {
                assertThat(f).as("%s of %s", h, op).isNotNull();
                assertThat(f.offset()).isEqualTo(op.headerOffset(h));
                assertThat(f.length()).isEqualTo(h.length());
            } else {
                assertThat(f).as("%s of %s", h, op).isNull();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(RoceOpcode.class)
    void truncatedInsideEachHeaderNamesThatHeader(RoceOpcode op) {
        byte[] p = packet(op);
        for (int length = 0; length < op.headersLength() + 4; length++) {
            RocePacketDecoder.Section expected;
            if (length < BthFlyweight.LENGTH) {
                expected = RocePacketDecoder.Section.BTH;
            } else {
                expected = RocePacketDecoder.Section.ICRC;
                for (int i = op.headerCount() - 1; i >= 0; i--) {
                    ExtensionHeader h = op.header(i);
                    if (length < op.headerOffset(h) + h.length()) {
                        expected = RocePacketDecoder.Section.of(h);
                    }
                }
            }
            assertThat(decoder.decode(ByteBuffer.wrap(p), 0, length)).as("%s cut to %d", op, length).isEqualTo(RocePacketError.TRUNCATED);
            assertThat(decoder.truncatedIn()).as("%s cut to %d", op, length).isEqualTo(expected);
        }
    }

    @Test
    void truncationsAtNamedBoundaries() {
        assertThat(decoder.decode(ByteBuffer.allocate(0), 0, 0)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.BTH);
        byte[] write = packet(RoceOpcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE);
        assertThat(decoder.decode(ByteBuffer.wrap(write), 0, 12 + 15)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.RETH);
        assertThat(decoder.decode(ByteBuffer.wrap(write), 0, 12 + 16 + 3)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.IMMDT);
        byte[] atomicAck = packet(RoceOpcode.ATOMIC_ACKNOWLEDGE);
        assertThat(decoder.decode(ByteBuffer.wrap(atomicAck), 0, 12 + 4 + 7)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.ATOMIC_ACK_ETH);
        byte[] ack = packet(RoceOpcode.ACKNOWLEDGE);
        assertThat(decoder.decode(ByteBuffer.wrap(ack), 0, 16)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.ICRC);
        byte[] ud = packet(RoceOpcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        assertThat(decoder.decode(ByteBuffer.wrap(ud), 0, 12 + 7)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.DETH);
    }

    @Test
    void everyOpcodeOutsideTheTableIsUnknown() {
        int known = 0;
        for (int code = 0; code < 256; code++) {
            byte[] p = packet(RoceOpcode.ACKNOWLEDGE);
            p[0] = (byte) code;
            RoceOpcode op = RoceOpcode.of(code);
            RocePacketError e = decode(p);
            if (op == null) {
                assertThat(e).as("opcode 0x%02x", code).isEqualTo(RocePacketError.UNKNOWN_OPCODE);
                assertThat(decoder.opcode()).isNull();
            } else {
                known++;
                assertThat(e).as("opcode 0x%02x", code).isNotEqualTo(RocePacketError.UNKNOWN_OPCODE);
            }
        }
        assertThat(known).isEqualTo(RoceOpcode.values().length).isEqualTo(25);
        // reserved RC 0x15, 0x18; UC SEND First 0x20; RD 0x40; UD 0x66; CNP 0x81
        for (int code : new int[] {0x15, 0x18, 0x1F, 0x20, 0x40, 0x66, 0x81, 0xFF}) {
            assertThat(RoceOpcode.of(code)).as("0x%02x", code).isNull();
        }
    }

    @Test
    void unknownOpcodeWinsOverEveryLaterCheck() {
        byte[] p = new byte[13]; // not aligned, TVer 5
        p[0] = 0x15;
        p[1] = 0x05;
        assertThat(decode(p)).isEqualTo(RocePacketError.UNKNOWN_OPCODE);
    }

    @Test
    void transportVersionOtherThanZero() {
        for (int tver = 1; tver < 16; tver++) {
            byte[] p = packet(RoceOpcode.SEND_ONLY);
            p[1] = (byte) ((p[1] & 0xF0) | tver);
            assertThat(decode(p)).as("TVer %d", tver).isEqualTo(RocePacketError.BAD_TVER);
            assertThat(decoder.opcode()).isEqualTo(RoceOpcode.SEND_ONLY);
        }
    }

    @Test
    void lengthNotAMultipleOfFour() {
        byte[] p = packet(RoceOpcode.SEND_ONLY); // 12 + 5 + 3 pad + 4
        assertThat(decoder.decode(ByteBuffer.wrap(p), 0, p.length - 1)).isEqualTo(RocePacketError.MISALIGNED_LENGTH);
        byte[] odd = new byte[12 + 5 + 4];
        odd[0] = (byte) RoceOpcode.SEND_ONLY.code();
        assertThat(decode(odd)).isEqualTo(RocePacketError.MISALIGNED_LENGTH);
    }

    @Test
    void payloadWhereTheOpcodeHasNone() {
        for (RoceOpcode op : new RoceOpcode[] {RoceOpcode.ACKNOWLEDGE, RoceOpcode.RDMA_READ_REQUEST, RoceOpcode.COMPARE_SWAP,
            RoceOpcode.FETCH_ADD, RoceOpcode.ATOMIC_ACKNOWLEDGE}) {
            byte[] p = java.util.Arrays.copyOf(packet(op), op.headersLength() + 8);
            assertThat(decode(p)).as("%s", op).isEqualTo(RocePacketError.UNEXPECTED_PAYLOAD);
        }
    }

    @Test
    void padCountThatDoesNotFit() {
        byte[] ack = packet(RoceOpcode.ACKNOWLEDGE);
        ack[1] |= 0x10;
        assertThat(decode(ack)).as("pad on an ACK").isEqualTo(RocePacketError.BAD_PAD);
        for (RoceOpcode op : new RoceOpcode[] {RoceOpcode.SEND_FIRST, RoceOpcode.SEND_MIDDLE, RoceOpcode.RDMA_WRITE_FIRST,
            RoceOpcode.RDMA_WRITE_MIDDLE, RoceOpcode.RDMA_READ_RESPONSE_FIRST, RoceOpcode.RDMA_READ_RESPONSE_MIDDLE}) {
            byte[] p = packet(op);
            p[1] |= 0x20;
            assertThat(decode(p)).as("pad on %s", op).isEqualTo(RocePacketError.BAD_PAD);
        }
        byte[] empty = new byte[12 + 4];
        empty[0] = (byte) RoceOpcode.SEND_ONLY.code();
        assertThat(decode(empty)).as("empty SEND Only").isEqualTo(RocePacketError.NONE);
        assertThat(decoder.payloadLength()).isZero();
        for (int pad = 1; pad < 4; pad++) {
            empty[1] = (byte) (pad << 4);
            assertThat(decode(empty)).as("pad %d with nothing to pad", pad).isEqualTo(RocePacketError.BAD_PAD);
        }
        byte[] one = new byte[12 + 4 + 4];
        one[0] = (byte) RoceOpcode.SEND_LAST.code();
        one[1] = 0x30;
        assertThat(decode(one)).isEqualTo(RocePacketError.NONE);
        assertThat(decoder.payloadLength()).isEqualTo(1);
        assertThat(decoder.padCount()).isEqualTo(3);
    }

    @Test
    void readsNothingOutsideTheRangeOrTheLimit() {
        byte[] p = packet(RoceOpcode.RDMA_WRITE_ONLY);
        ByteBuffer b = ByteBuffer.allocate(p.length + 20);
        b.put(7, p);
        for (int i = 7 + p.length; i < b.capacity(); i++) {
            b.put(i, (byte) 0xEE);
        }
        assertThat(decoder.decode(b, 7, p.length)).isEqualTo(RocePacketError.NONE);
        assertThat(decoder.icrc()).isEqualTo(0x12345678);
        b.limit(7 + p.length - 1);
        assertThat(decoder.decode(b, 7, p.length)).as("the limit cuts the ICRC").isEqualTo(RocePacketError.MISALIGNED_LENGTH);
        assertThat(decoder.packetLength()).isEqualTo(p.length - 1);
        b.limit(7 + 20);
        assertThat(decoder.decode(b, 7, p.length)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.truncatedIn()).isEqualTo(RocePacketDecoder.Section.RETH);
        assertThat(decoder.decode(b, -1, 100)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.decode(b, 1000, 100)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.decode(b, 7, -5)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.decode(null, 0, 100)).isEqualTo(RocePacketError.TRUNCATED);
        assertThat(decoder.decode(b, Integer.MAX_VALUE, Integer.MAX_VALUE)).isEqualTo(RocePacketError.TRUNCATED);
    }

    @Test
    void aReusedDecoderForgetsThePreviousPacket() {
        assertThat(decode(packet(RoceOpcode.UD_SEND_ONLY))).isEqualTo(RocePacketError.NONE);
        assertThat(decoder.deth()).isNotNull();
        assertThat(decode(packet(RoceOpcode.ACKNOWLEDGE))).isEqualTo(RocePacketError.NONE);
        assertThat(decoder.deth()).isNull();
        assertThat(decoder.aeth()).isNotNull();
        byte[] bad = packet(RoceOpcode.ACKNOWLEDGE);
        bad[1] = 0x01;
        assertThat(decode(bad)).isEqualTo(RocePacketError.BAD_TVER);
        assertThat(decoder.aeth()).isNull();
        assertThat(decoder.error()).isEqualTo(RocePacketError.BAD_TVER);
    }

    @Test
    void sectionsFollowTheExtensionHeaders() {
        for (ExtensionHeader h : ExtensionHeader.values()) {
            assertThat(RocePacketDecoder.Section.of(h).name()).isEqualTo(h.name());
        }
    }
}
