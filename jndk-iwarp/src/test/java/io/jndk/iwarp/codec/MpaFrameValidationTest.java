package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Validation verdicts and dispositions of MPA Request/Reply frames (IWARP.md 1.2-1.5). */
class MpaFrameValidationTest {

    private static MpaFrameFlyweight frame(MpaFrameKind kind, int flags, int revision, int pdLength) {
        ByteBuffer b = ByteBuffer.allocate(20 + Math.min(pdLength, 600));
        return new MpaFrameFlyweight().wrap(b, 0).key(kind).flags(flags).revision(revision).privateDataLength(pdLength);
    }

    @Test
    void badKey() {
        MpaFrameFlyweight f = frame(MpaFrameKind.REQUEST, 0x10, 2, 4);
        f.buffer().put(15, (byte) 'E');
        assertThat(f.validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.BAD_KEY);
        assertThat(MpaFrameCheck.BAD_KEY.disposition(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.Disposition.CLOSE);
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, 4).validate(MpaFrameKind.REPLY)).isEqualTo(MpaFrameCheck.BAD_KEY);
    }

    @Test
    void badRevision() {
        for (int rev : new int[] {0, 3, 255}) {
            assertThat(frame(MpaFrameKind.REQUEST, 0, rev, 0).validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.BAD_REVISION);
        }
        assertThat(frame(MpaFrameKind.REQUEST, 0, 1, 0).validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
    }

    @Test
    void markersAreRejectedInARequestAndAbortAReply() {
        assertThat(frame(MpaFrameKind.REQUEST, 0x90, 2, 4).validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.MARKERS_NOT_SUPPORTED);
        assertThat(MpaFrameCheck.MARKERS_NOT_SUPPORTED.disposition(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.Disposition.REJECT);
        assertThat(MpaFrameCheck.MARKERS_NOT_SUPPORTED.disposition(MpaFrameKind.REPLY)).isEqualTo(MpaFrameCheck.Disposition.CLOSE);
        assertThat(MpaFrameCheck.MARKERS_NOT_SUPPORTED.acceptable()).isFalse();
    }

    @Test
    void privateDataLimits() {
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, 256).validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, 257).validate(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.PRIVATE_DATA_OVER_SIW_LIMIT);
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, 512).validate(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.PRIVATE_DATA_OVER_SIW_LIMIT);
        assertThat(MpaFrameCheck.PRIVATE_DATA_OVER_SIW_LIMIT.acceptable()).isTrue();
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, 513).validate(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.PRIVATE_DATA_TOO_LONG);
        assertThat(MpaFrameCheck.PRIVATE_DATA_TOO_LONG.disposition(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.Disposition.CLOSE);
    }

    @Test
    void enhancedNeedsRoomForTheIrdOrdWordAndRevision2() {
        for (int pd = 0; pd < 4; pd++) {
            assertThat(frame(MpaFrameKind.REQUEST, 0x10, 2, pd).validate(MpaFrameKind.REQUEST))
                .isEqualTo(MpaFrameCheck.ENHANCED_PRIVATE_DATA_TOO_SHORT);
        }
        assertThat(MpaFrameCheck.ENHANCED_PRIVATE_DATA_TOO_SHORT.disposition(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.Disposition.REJECT);
        assertThat(frame(MpaFrameKind.REQUEST, 0x10, 1, 4).validate(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.ENHANCED_NEEDS_REVISION_2);
        MpaFrameFlyweight short3 = frame(MpaFrameKind.REQUEST, 0x10, 2, 3);
        assertThat(short3.ulpPrivateDataLength()).isZero();
    }

    @Test
    void reservedFlagBitsAndTheRequestRejectBitAreIgnored() {
        assertThat(frame(MpaFrameKind.REQUEST, 0x10 | 0x08 | 0x20, 2, 4).validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
    }

    @Test
    void flagSettersTouchOnlyTheirBit() {
        MpaFrameFlyweight f = frame(MpaFrameKind.REPLY, 0x0F, 2, 0);
        f.markers(true).crc(true).reject(true).enhanced(true);
        assertThat(f.flags()).isEqualTo(0xFF);
        f.markers(false).reject(false);
        assertThat(f.flags()).isEqualTo(0x5F);
        assertThat(f.markers()).isFalse();
        assertThat(f.crc()).isTrue();
    }
}
