package io.jndk.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** rping's wire forms: the ping pattern and the 16-octet buffer advertisement (moved from RpingTwoProcessTest). */
class RpingProtocolTest {
    @Test
    void theSourcePatternIsRpings() {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment buf = a.allocate(64);
            RpingProtocol.fill(buf, 9);
            // As siw's rping printed it (shared testdata, rping.client.log, ping 9 of 64 octets).
            assertThat(RpingProtocol.text(buf)).isEqualTo("rdma-ping-9: JKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzA");
            assertThat(RpingProtocol.strlen(buf)).isEqualTo(63);
            RpingProtocol.Info info = new RpingProtocol.Info(0x0000_7f12_3456_7000L, 0x0000_0201, 64);
            info.encode(buf);
            assertThat(buf.asSlice(0, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsExactly(0, 0, 0x7f, 0x12,
                    0x34, 0x56, 0x70, 0, 0, 0, 2, 1, 0, 0, 0, 64);
            assertThat(RpingProtocol.Info.decode(buf)).isEqualTo(info);
        }
    }
}
