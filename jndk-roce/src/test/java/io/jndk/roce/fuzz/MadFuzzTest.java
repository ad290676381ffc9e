package io.jndk.roce.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.mad.CmaHeader;
import io.jndk.roce.mad.GsiPacket;
import io.jndk.roce.mad.MadCopy;
import io.jndk.roce.mad.MadDecoder;
import io.jndk.roce.mad.MadError;
import io.jndk.roce.mad.MadHeaderFlyweight;
import java.nio.ByteBuffer;

/**
 * The MAD decoder and the CM flyweights on arbitrary octets.
 *
 * <p>Input: a MAD (the seed corpus holds every CM MAD of the rxe captures of the test resources); fewer or more than
 * 256 octets are fine.
 *
 * <p>Checked: nothing throws; the MAD is decoded at the very end of an exactly sized read-only buffer; the same MAD
 * carried in a GSI packet (built with the encoder) gets the same verdict through {@link MadDecoder#decodeGsi}; an
 * accepted MAD read through every getter and written through every setter (a field-by-field copy) decodes to the
 * same message, and copying the copy changes nothing (stable: only reserved bits may be lost, once).
 */
class MadFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void mad(byte[] data) {
        MadDecoder d = new MadDecoder();
        MadError direct = d.decode(ByteBuffer.wrap(data).asReadOnlyBuffer(), 0, data.length);
        Feedback.reached(10, direct.ordinal());
        if (data.length >= MadHeaderFlyweight.LENGTH) { // the header octets the checks look at
            for (int i : new int[] {0, 1, 2, 3, 16, 17}) {
                Feedback.reached(13 + i, data[i]);
            }
        }
        if (data.length >= MadHeaderFlyweight.MAD_LENGTH) {
            ByteBuffer p = ByteBuffer.allocate(GsiPacket.LENGTH);
            RocePacketEncoder e = new RocePacketEncoder();
            int at = GsiPacket.begin(e, p, 0, data.length & 0xFFFFFF);
            p.put(at, data, 0, MadHeaderFlyweight.MAD_LENGTH);
            int length = e.finish();
            RocePacketDecoder packet = new RocePacketDecoder();
            assertThat(packet.decode(p.asReadOnlyBuffer(), 0, length)).isEqualTo(RocePacketError.NONE);
            assertThat(d.decodeGsi(packet)).isEqualTo(direct);
        }
        if (direct != MadError.NONE) {
            return;
        }
        Feedback.reached(11, d.attribute().ordinal());
        if (d.req() != null) {
            CmaHeader cma = new CmaHeader().wrap(d.req().buffer(), d.req().privateDataIndex());
            Feedback.reached(12, cma.ipVersion());
            cma.port();
            cma.sourceIpv4();
            cma.destinationIpv4();
        }
        MadCopy copy = new MadCopy();
        ByteBuffer once = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
        copy.copy(d, once, 0);
        MadDecoder again = new MadDecoder();
        assertThat(again.decode(once, 0, MadHeaderFlyweight.MAD_LENGTH)).isEqualTo(MadError.NONE);
        assertThat(again.attribute()).isEqualTo(d.attribute());
        assertThat(again.header().transactionId()).isEqualTo(d.header().transactionId());
        assertThat(again.message().localCommId()).isEqualTo(d.message().localCommId());
        ByteBuffer twice = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
        copy.copy(again, twice, 0);
        assertThat(twice.array()).isEqualTo(once.array());
    }
}
