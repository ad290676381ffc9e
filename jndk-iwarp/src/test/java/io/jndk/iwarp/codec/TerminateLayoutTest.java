package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** RFC-correct Terminate encoding, and decoding of the swapped layout Linux siw sends (IWARP.md 5.4 items 15, 19, 20). */
class TerminateLayoutTest {

    private static TerminateFlyweight body(int controlWord, int length) {
        ByteBuffer b = ByteBuffer.allocate(TerminateFlyweight.MAX_LENGTH);
        return new TerminateFlyweight().wrap(b, 0, length).controlWord(controlWord);
    }

    @Test
    void observedSiwDdpInvalidQnIsReadSwapped() {
        // wire 21 01 .. : RFC reading layer 2 / EType 1 is impossible; swapped reading DDP / untagged / invalid QN
        TerminateFlyweight t = body(TerminateFlyweight.encodeSiw(1, 2, 0x01, true, true, false), 24);
        assertThat(t.controlWord() >>> 16).isEqualTo(0x2101);
        assertThat(t.layout()).isEqualTo(TerminateLayout.SIW_SWAPPED);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertThat(t.flagM()).isTrue();
        assertThat(t.flagD()).isTrue();
        assertThat(t.flagR()).isFalse();
    }

    @Test
    void observedSiwUnexpectedOpcodeIsAmbiguousAndReadAsRfc() {
        // wire 20 06 00 00: RFC LLP/MPA 0x06 (insufficient IRD) and siw RDMAP/remote op/0x06 are both valid
        TerminateFlyweight t = body(TerminateFlyweight.encodeSiw(0, 2, 0x06, false, false, false), 4);
        assertThat(t.controlWord()).isEqualTo(0x20060000);
        assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        assertThat(t.layoutAmbiguous()).isTrue();
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.LLP_INSUFFICIENT_IRD);
    }

    @Test
    void siwTaggedDdpErrorWithSymmetricNibblesIsDetectedByFlagBits() {
        TerminateFlyweight t = body(TerminateFlyweight.encodeSiw(1, 1, 0x00, true, true, false), 20);
        assertThat(t.layout()).isEqualTo(TerminateLayout.SIW_SWAPPED);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG);
        assertThat(t.flagM()).isTrue();
        assertThat(t.flagD()).isTrue();
        assertThat(t.layoutAmbiguous()).isFalse();
    }

    @Test
    void siwProtectionErrorOnSendSetsRWithoutRdmaHeader() {
        // item 15: M, D and R set but only 2 + 18 octets attached
        TerminateFlyweight t = body(TerminateFlyweight.encodeSiw(0, 1, 0x00, true, true, true), 4 + 2 + 18);
        t.buffer().put(TerminateFlyweight.COPIED_DDP_HEADER_OFFSET, (byte) 0x41);
        assertThat(t.layout()).isEqualTo(TerminateLayout.SIW_SWAPPED);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.RDMAP_INVALID_STAG);
        assertThat(t.flagR()).isTrue();
        assertThat(t.copiedDdpHeaderLength()).isEqualTo(18);
        assertThat(t.copiedRdmaHeaderLength()).isZero();
    }

    @Test
    void codeValidityBreaksTiesWhenPairsAndFlagsDoNot() {
        // 20 ff: RFC LLP/MPA 0xff undefined, siw RDMAP/remote op/unspecified defined
        TerminateFlyweight t = body(0x20FF0000, 4);
        assertThat(t.layout()).isEqualTo(TerminateLayout.SIW_SWAPPED);
        assertThat(t.terminateCode()).isEqualTo(TerminateCode.RDMAP_OPERATION_UNSPECIFIED);
    }

    @ParameterizedTest
    @EnumSource(TerminateCode.class)
    void rfcEncodingOfEveryCodeDecodesAsRfcUnlessAmbiguousPairSwapped(TerminateCode code) {
        TerminateFlyweight t = body(TerminateFlyweight.encodeRfc(code.layer(), code.errorType(), code.errorCode(),
            code.copiesDdpHeader(), code.copiesDdpHeader(), false), 24);
        assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        assertThat(t.terminateCode()).isEqualTo(code);
        assertThat(TerminateCode.of(code.layer(), code.errorType(), code.errorCode())).isEqualTo(code);
    }

    @ParameterizedTest
    @EnumSource(TerminateCode.class)
    void siwEncodingOfEveryCodeIsRecoveredOrFlaggedAmbiguous(TerminateCode code) {
        boolean flags = code.copiesDdpHeader();
        TerminateFlyweight t = body(TerminateFlyweight.encodeSiw(code.layer(), code.errorType(), code.errorCode(),
            flags, flags, false), 24);
        if (t.layoutAmbiguous()) {
            assertThat(t.layout()).isEqualTo(TerminateLayout.RFC_5040);
        } else {
            assertThat(t.terminateCode()).as(code.name()).isEqualTo(code);
            assertThat(t.flagM()).isEqualTo(flags);
        }
    }

    @Test
    void siwTerminateInsideAStreamIsDecoded() {
        // a siw-style Terminate (swapped control word) for a Send on QN 5, with the 18-octet header attached
        byte[] offending = Vectors.TV2.clone();
        offending[11] = 5;
        ByteBuffer frame = ByteBuffer.allocate(64);
        int n = new FpduEncoder(true).terminate(frame, 0, 1, 0, 0, 0, false, false, false, 16,
            ByteBuffer.wrap(offending), 2, 18);
        new TerminateFlyweight().wrap(frame, 20, 24)
            .controlWord(TerminateFlyweight.encodeSiw(1, 2, 0x01, true, true, false));
        new FpduFlyweight().wrap(frame, 0).seal(true, new java.util.zip.CRC32C());
        byte[] bytes = java.util.Arrays.copyOf(frame.array(), n);
        assertThat(n).isEqualTo(48);
        FpduHeaderView h = SpecVectorsTest.onlyHeader(bytes);
        assertThat(h.terminate().layout()).isEqualTo(TerminateLayout.SIW_SWAPPED);
        assertThat(h.terminate().terminateCode()).isEqualTo(TerminateCode.DDP_UNTAGGED_INVALID_QN);
        assertThat(h.terminate().ddpSegmentLength()).isEqualTo(16);
        DdpUntaggedHeaderFlyweight copied = new DdpUntaggedHeaderFlyweight().wrap(h.buffer(), h.terminate().copiedDdpHeaderIndex());
        assertThat(copied.queueNumber()).isEqualTo(5);
    }
}
