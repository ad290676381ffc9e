package io.jndk.roce.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jndk.roce.codec.ExtensionHeader;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.Reencoder;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The RoCEv2 packet decoder on arbitrary UDP payloads.
 *
 * <p>Input: the UDP payload, BTH onwards (the seed corpus holds one packet of each opcode of each rxe capture of the
 * test resources, and the datagrams to port 4791 there that are not RoCEv2).
 *
 * <p>Checked: nothing throws; the input is decoded at the very end of an exactly sized read-only buffer (any read
 * past it would throw) and at an odd offset of a larger buffer whose limit ends the input, with the same verdict;
 * an accepted packet's parts tile it exactly (headers, payload, pad, ICRC) and the flyweights present are the
 * opcode's; decode, re-encode, decode gives the same octets (pad as zeros) and the same verdict; the ICRC computed
 * over it and stored makes it verify; a decoder that failed reports the same error and section again on the same
 * input.
 */
class RocePacketFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] data) {
        RocePacketDecoder d = new RocePacketDecoder();
        RocePacketError exact = d.decode(ByteBuffer.wrap(data).asReadOnlyBuffer(), 0, data.length);
        RocePacketDecoder.Section section = d.truncatedIn();
        Feedback.reached(0, exact.ordinal());
        Feedback.reached(1, d.opcode() == null ? 255 : d.opcode().code());

        ByteBuffer wide = ByteBuffer.allocate(data.length + 11);
        wide.put(3, data);
        for (int i = 3 + data.length; i < wide.capacity(); i++) {
            wide.put(i, (byte) 0xA5);
        }
        wide.limit(3 + data.length);
        RocePacketError shifted = d.decode(wide, 3, data.length + 8); // the limit, not the length, ends the input
        assertThat(shifted).isEqualTo(exact);
        assertThat(d.truncatedIn()).isEqualTo(section);
        assertThat(d.decode(wide, 3, data.length)).isEqualTo(exact);
        if (exact != RocePacketError.NONE) {
            assertThat(d.decode(wide, 3, data.length)).isEqualTo(exact);
            return;
        }
        RoceOpcode op = d.opcode();
        Feedback.reached(2, d.padCount() * 64 + Math.min(63, d.payloadLength()));
        assertThat(op).isNotNull();
        assertThat(d.packetOffset()).isEqualTo(3);
        assertThat(d.payloadOffset()).isEqualTo(3 + op.headersLength());
        assertThat(d.payloadOffset() + d.payloadLength() + d.padCount() + Icrc.LENGTH).isEqualTo(3 + data.length);
        assertThat(d.icrcOffset()).isEqualTo(3 + data.length - Icrc.LENGTH);
        assertThat(d.deth() != null).isEqualTo(op.has(ExtensionHeader.DETH));
        assertThat(d.reth() != null).isEqualTo(op.has(ExtensionHeader.RETH));
        assertThat(d.atomicEth() != null).isEqualTo(op.has(ExtensionHeader.ATOMIC_ETH));
        assertThat(d.aeth() != null).isEqualTo(op.has(ExtensionHeader.AETH));
        assertThat(d.atomicAckEth() != null).isEqualTo(op.has(ExtensionHeader.ATOMIC_ACK_ETH));
        assertThat(d.immDt() != null).isEqualTo(op.has(ExtensionHeader.IMMDT));
        assertThat(d.ieth() != null).isEqualTo(op.has(ExtensionHeader.IETH));
        if (d.aeth() != null) {
            Feedback.reached(3, d.aeth().syndrome());
            assertThat(d.aeth().ackType()).isNotNull();
            d.aeth().nakCode();
        }

        // decode -> encode -> decode
        ByteBuffer out = ByteBuffer.allocate(data.length);
        int length = Reencoder.reencode(d, new RocePacketEncoder(), out, 0);
        assertThat(length).isEqualTo(data.length);
        byte[] expected = Arrays.copyOf(data, data.length);
        Arrays.fill(expected, data.length - Icrc.LENGTH - d.padCount(), data.length - Icrc.LENGTH, (byte) 0);
        assertThat(out.array()).isEqualTo(expected);
        RocePacketDecoder again = new RocePacketDecoder();
        assertThat(again.decode(out, 0, length)).isEqualTo(RocePacketError.NONE);
        assertThat(again.opcode()).isEqualTo(op);
        assertThat(again.payloadLength()).isEqualTo(d.payloadLength());

        // the ICRC over it, stored, verifies
        Icrc icrc = new Icrc();
        int value = icrc.ipv4(0xC000020B, 0xC000020A, data.length, Icrc.IPV4_DONT_FRAGMENT, 0xC000 | data.length, Icrc.ROCE_V2_PORT,
            out, 0, length);
        Icrc.write(out, 0, length, value);
        assertThat(again.decode(out, 0, length)).isEqualTo(RocePacketError.NONE);
        assertThat(again.icrc()).isEqualTo(value);
        assertThat(icrc.ipv4(0xC000020B, 0xC000020A, data.length, Icrc.IPV4_DONT_FRAGMENT, 0xC000 | data.length,
            Icrc.ROCE_V2_PORT, out, 0, length)).isEqualTo(value);
    }
}
