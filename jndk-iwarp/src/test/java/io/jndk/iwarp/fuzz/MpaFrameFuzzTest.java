package io.jndk.iwarp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jndk.iwarp.codec.MpaFrameCheck;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.MpaIrdOrdFlyweight;
import java.nio.ByteBuffer;

/**
 * The MPA Request/Reply parser on arbitrary bytes: {@link MpaFrameFlyweight#validate} and every getter, for both
 * frame kinds, at offset 0 and at an odd offset inside a larger read-only buffer. The frame sits at the end of the
 * buffer, so any read past the octets present throws.
 *
 * <p>Input: the frame octets, exactly as a peer would send them (the seed corpus holds the IWARP.md 10.2 frames and
 * the MPA frames of the siw captures).
 */
class MpaFrameFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void mpaFrame(byte[] data) {
        check(ByteBuffer.wrap(data), 0, data.length);
        ByteBuffer shifted = ByteBuffer.allocate(data.length + 3);
        shifted.put(3, data);
        check(shifted.asReadOnlyBuffer(), 3, data.length);
    }

    static void check(ByteBuffer buffer, int offset, int available) {
        if (available < MpaFrameFlyweight.HEADER_LENGTH) {
            return; // validate's contract: the 20-octet header is present (the listener reads exactly that first)
        }
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(buffer, offset);
        int position = buffer.position();
        int limit = buffer.limit();
        for (MpaFrameKind kind : MpaFrameKind.values()) {
            MpaFrameCheck check = f.validate(kind);
            assertThat(check).isNotNull();
            assertThat(check.disposition(kind)).isNotNull();
            Feedback.state(1 + kind.ordinal(), check.ordinal() | (f.flags() & 0xF0));
            int pdLength = f.privateDataLength();
            assertThat(pdLength).isBetween(0, 0xFFFF);
            assertThat(f.frameLength()).isEqualTo(MpaFrameFlyweight.HEADER_LENGTH + pdLength);
            assertThat(f.ulpPrivateDataLength()).isBetween(0, pdLength);
            assertThat(f.ulpPrivateDataIndex()).isBetween(f.privateDataIndex(), f.privateDataIndex() + 4);
            boolean keyMatches = f.hasKey(kind);
            if (!keyMatches) {
                assertThat(check).isEqualTo(MpaFrameCheck.BAD_KEY);
                continue;
            }
            if (check.acceptable()) {
                assertThat(f.revision()).isBetween(MpaFrameFlyweight.REVISION_1, MpaFrameFlyweight.REVISION_2);
                assertThat(pdLength).isLessThanOrEqualTo(MpaFrameFlyweight.MAX_PRIVATE_DATA_RFC);
                assertThat(f.markers()).isFalse();
                if (check == MpaFrameCheck.VALID) {
                    assertThat(pdLength).isLessThanOrEqualTo(MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW);
                }
                if (f.enhanced()) {
                    assertThat(f.revision()).isEqualTo(MpaFrameFlyweight.REVISION_2);
                    assertThat(pdLength).isGreaterThanOrEqualTo(MpaIrdOrdFlyweight.LENGTH);
                    assertThat(f.ulpPrivateDataLength()).isEqualTo(pdLength - MpaIrdOrdFlyweight.LENGTH);
                }
            }
            if (check.disposition(kind) == MpaFrameCheck.Disposition.REJECT) {
                assertThat(kind).isEqualTo(MpaFrameKind.REQUEST);
            }
            // the remaining getters; the IRD/ORD word only when the frame holds it, like a receiver would read it
            f.flags();
            f.crc();
            f.reject();
            f.markers();
            f.offset();
            f.buffer();
            if (f.enhanced() && available >= MpaFrameFlyweight.HEADER_LENGTH + MpaIrdOrdFlyweight.LENGTH
                && pdLength >= MpaIrdOrdFlyweight.LENGTH) {
                MpaIrdOrdFlyweight w = new MpaIrdOrdFlyweight().wrap(buffer, f.privateDataIndex());
                assertThat(w.ird()).isBetween(0, MpaIrdOrdFlyweight.VALUE_MASK);
                assertThat(w.ord()).isBetween(0, MpaIrdOrdFlyweight.VALUE_MASK);
                assertThat(w.irdWord() & ~(MpaIrdOrdFlyweight.FLAG_PEER_TO_PEER | MpaIrdOrdFlyweight.FLAG_SEND_RTR))
                    .isEqualTo(w.ird());
                w.peerToPeer();
                w.sendRtr();
                w.writeRtr();
                w.readRtr();
                w.ordWord();
            }
            int ulpEnd = f.ulpPrivateDataIndex() + f.ulpPrivateDataLength();
            if (ulpEnd <= offset + available) {
                for (int i = f.ulpPrivateDataIndex(); i < ulpEnd; i++) {
                    buffer.get(i);
                }
            }
        }
        assertThat(buffer.position()).as("position untouched").isEqualTo(position);
        assertThat(buffer.limit()).as("limit untouched").isEqualTo(limit);
    }
}
