package io.jndk.iwarp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.iwarp.codec.TerminateFlyweight;
import io.jndk.iwarp.codec.TerminateLayout;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The Terminate decoder, both layouts.
 *
 * <p>Input layout: octet 0 is the mode. Bit 0 clear: the rest is a raw Terminate body (control word, DDP segment
 * length, copied headers; at most {@link TerminateFlyweight#MAX_LENGTH} octets used), read through every getter at
 * the end of an exactly sized buffer, and also wrapped in an FPDU fed to {@link FpduDecoder}, which must give the
 * same reading. Bit 0 set: octet 1 picks a catalogued {@link TerminateCode}, octet 2 the M/D/R flags (bits 0-2) and
 * the layout (bit 3: siw's), the rest is copied header octets; the control word is encoded in that layout and
 * layout detection must read back the same error and flags, unless it reports the word as ambiguous.
 */
class TerminateFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void terminate(byte[] data) {
        if (data.length < 1) {
            return;
        }
        if ((data[0] & 1) == 0) {
            byte[] body = Arrays.copyOfRange(data, 1, Math.min(data.length, 1 + TerminateFlyweight.MAX_LENGTH));
            if (body.length >= TerminateFlyweight.CONTROL_LENGTH) {
                raw(body);
            }
            return;
        }
        if (data.length < 3) {
            return;
        }
        TerminateCode[] codes = TerminateCode.values();
        TerminateCode code = codes[(data[1] & 0xFF) % codes.length];
        int bits = data[2] & 0xFF;
        boolean m = (bits & 1) != 0;
        boolean d = (bits & 2) != 0;
        boolean r = (bits & 4) != 0;
        boolean siw = (bits & 8) != 0;
        int word = siw
            ? TerminateFlyweight.encodeSiw(code.layer(), code.errorType(), code.errorCode(), m, d, r)
            : TerminateFlyweight.encodeRfc(code.layer(), code.errorType(), code.errorCode(), m, d, r);
        int rest = Math.min(data.length - 3, TerminateFlyweight.MAX_LENGTH - TerminateFlyweight.CONTROL_LENGTH);
        byte[] body = new byte[TerminateFlyweight.CONTROL_LENGTH + rest];
        System.arraycopy(data, 3, body, TerminateFlyweight.CONTROL_LENGTH, rest);
        ByteBuffer b = ByteBuffer.wrap(body);
        TerminateFlyweight t = new TerminateFlyweight().wrap(b, 0, body.length);
        t.controlWord(word);
        assertThat(t.controlWord()).isEqualTo(word);
        String reading = FpduDecoderFuzzTest.terminate(t);
        if (!t.layoutAmbiguous()) {
            assertThat(t.terminateCode()).as("%s in %s layout, flags %s%s%s: %s", code, siw ? "siw" : "RFC", m, d, r, reading)
                .isEqualTo(code);
            assertThat(t.layer()).isEqualTo(code.layer());
            assertThat(t.errorType()).isEqualTo(code.errorType());
            assertThat(t.errorCode()).isEqualTo(code.errorCode());
            assertThat(new boolean[] {t.flagM(), t.flagD(), t.flagR()}).as("flags of %s", reading)
                .containsExactly(m, d, r);
            if (code.layer() != code.errorType() && (m || d || r)) {
                assertThat(t.layout()).isEqualTo(siw ? TerminateLayout.SIW_SWAPPED : TerminateLayout.RFC_5040);
            }
        } else {
            assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        }
        raw(body);
    }

    /** Every getter on a raw body, then the same body inside an FPDU through the stream decoder. */
    static void raw(byte[] body) {
        ByteBuffer alone = ByteBuffer.wrap(body.clone()).asReadOnlyBuffer();
        String direct = FpduDecoderFuzzTest.terminate(new TerminateFlyweight().wrap(alone, 0, body.length));

        for (boolean crc : new boolean[] {false, true}) {
            int ulpdu = DdpUntaggedHeaderFlyweight.LENGTH + body.length;
            ByteBuffer fpdu = ByteBuffer.allocate(FpduFlyweight.fpduLength(ulpdu));
            int n = new FpduEncoder(crc).untagged(fpdu, 0, RdmapOpcode.TERMINATE, true, 0,
                RdmapOpcode.TERMINATE.queueNumber(), 1, 0, ByteBuffer.wrap(body), 0, body.length);
            assertThat(n).isEqualTo(fpdu.capacity());
            String[] seen = new String[1];
            FpduDecoder decoder = new FpduDecoder(new FpduListener() {
                @Override
                public void onHeader(FpduHeaderView header) {
                    assertThat(header.opcode()).isEqualTo(RdmapOpcode.TERMINATE);
                    seen[0] = FpduDecoderFuzzTest.terminate(header.terminate());
                }

                @Override
                public void onPayload(ByteBuffer buffer, int index, int length) {
                    throw new AssertionError("a Terminate has no payload");
                }

                @Override
                public void onFrameEnd(FpduHeaderView header, CrcVerdict verdict) {
                    assertThat(verdict).isEqualTo(crc ? CrcVerdict.VALID : CrcVerdict.NOT_CHECKED);
                }
            }, crc);
            assertThat(decoder.feed(fpdu)).isEqualTo(FpduError.NONE);
            assertThat(decoder.framesDecoded()).isEqualTo(1);
            assertThat(seen[0]).isEqualTo(direct);
        }
    }
}
