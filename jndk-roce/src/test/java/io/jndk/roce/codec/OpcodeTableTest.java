package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The opcode table against IBTA vol. 1 table 38 and section 9.3, written out independently here: code, headers
 * after the BTH, payload, position, request/response. Also the AETH syndrome catalogue (tables 42 and 43).
 */
class OpcodeTableTest {

    /** code, name, headers after the BTH, payload (P) or not (-), position, request (Q) or response (R). */
    private static final String[] TABLE = {
        "00 SEND_FIRST - P FIRST Q", "01 SEND_MIDDLE - P MIDDLE Q", "02 SEND_LAST - P LAST Q",
        "03 SEND_LAST_WITH_IMMEDIATE IMMDT P LAST Q", "04 SEND_ONLY - P ONLY Q", "05 SEND_ONLY_WITH_IMMEDIATE IMMDT P ONLY Q",
        "06 RDMA_WRITE_FIRST RETH P FIRST Q", "07 RDMA_WRITE_MIDDLE - P MIDDLE Q", "08 RDMA_WRITE_LAST - P LAST Q",
        "09 RDMA_WRITE_LAST_WITH_IMMEDIATE IMMDT P LAST Q", "0a RDMA_WRITE_ONLY RETH P ONLY Q",
        "0b RDMA_WRITE_ONLY_WITH_IMMEDIATE RETH,IMMDT P ONLY Q", "0c RDMA_READ_REQUEST RETH - ONLY Q",
        "0d RDMA_READ_RESPONSE_FIRST AETH P FIRST R", "0e RDMA_READ_RESPONSE_MIDDLE - P MIDDLE R",
        "0f RDMA_READ_RESPONSE_LAST AETH P LAST R", "10 RDMA_READ_RESPONSE_ONLY AETH P ONLY R", "11 ACKNOWLEDGE AETH - ONLY R",
        "12 ATOMIC_ACKNOWLEDGE AETH,ATOMIC_ACK_ETH - ONLY R", "13 COMPARE_SWAP ATOMIC_ETH - ONLY Q",
        "14 FETCH_ADD ATOMIC_ETH - ONLY Q", "16 SEND_LAST_WITH_INVALIDATE IETH P LAST Q",
        "17 SEND_ONLY_WITH_INVALIDATE IETH P ONLY Q", "64 UD_SEND_ONLY DETH P ONLY Q",
        "65 UD_SEND_ONLY_WITH_IMMEDIATE DETH,IMMDT P ONLY Q"};

    @Test
    void everyOpcodeAsTheSpecificationGivesIt() {
        List<String> actual = new ArrayList<>();
        for (RoceOpcode op : RoceOpcode.values()) {
            String headers = op.headers().isEmpty() ? "-"
                : String.join(",", op.headers().stream().map(Enum::name).toList());
            actual.add(String.format("%02x %s %s %s %s %s", op.code(), op.name(), headers, op.hasPayload() ? "P" : "-", op.position(),
                op.isRequest() ? "Q" : "R"));
            assertThat(RoceOpcode.of(op.code())).isSameAs(op);
            assertThat(op.transport()).isEqualTo(op.code() >= 0x60 ? RoceOpcode.Transport.UD : RoceOpcode.Transport.RC);
            int at = BthFlyweight.LENGTH;
            for (ExtensionHeader h : op.headers()) {
                assertThat(op.headerOffset(h)).isEqualTo(at);
                at += h.length();
            }
            assertThat(op.headersLength()).isEqualTo(at);
        }
        assertThat(actual).containsExactly(TABLE);
    }

    @Test
    void headerLengths() {
        assertThat(ExtensionHeader.DETH.length()).isEqualTo(8);
        assertThat(ExtensionHeader.RETH.length()).isEqualTo(16);
        assertThat(ExtensionHeader.ATOMIC_ETH.length()).isEqualTo(28);
        assertThat(ExtensionHeader.AETH.length()).isEqualTo(4);
        assertThat(ExtensionHeader.ATOMIC_ACK_ETH.length()).isEqualTo(8);
        assertThat(ExtensionHeader.IMMDT.length()).isEqualTo(4);
        assertThat(ExtensionHeader.IETH.length()).isEqualTo(4);
        // frame sizes seen in the captures: Ethernet 14 + IPv4 20 + UDP 8 + headers + payload + ICRC 4
        assertThat(46 + RoceOpcode.ACKNOWLEDGE.headersLength()).isEqualTo(62);
        assertThat(46 + RoceOpcode.COMPARE_SWAP.headersLength()).isEqualTo(86);
        assertThat(46 + RoceOpcode.ATOMIC_ACKNOWLEDGE.headersLength()).isEqualTo(70);
        assertThat(46 + RoceOpcode.RDMA_READ_REQUEST.headersLength()).isEqualTo(74);
        assertThat(46 + RoceOpcode.RDMA_WRITE_FIRST.headersLength() + 1024).isEqualTo(1098);
        assertThat(46 + RoceOpcode.RDMA_READ_RESPONSE_FIRST.headersLength() + 1024).isEqualTo(1086);
    }

    @Test
    void aethSyndromes() {
        AethFlyweight aeth = new AethFlyweight().wrap(ByteBuffer.allocate(4), 0);
        aeth.syndrome(0x1F).msn(0x123456);
        assertThat(aeth.ackType()).isEqualTo(AethFlyweight.AckType.ACK);
        assertThat(aeth.syndromeValue()).isEqualTo(AethFlyweight.INVALID_CREDIT_COUNT);
        assertThat(aeth.nakCode()).isNull();
        assertThat(aeth.msn()).isEqualTo(0x123456);
        assertThat(aeth.syndrome()).isEqualTo(0x1F);
        assertThat(AethFlyweight.ackSyndrome(31)).isEqualTo(0x1F);
        aeth.syndrome(AethFlyweight.rnrNakSyndrome(14));
        assertThat(aeth.syndrome()).isEqualTo(0x2E);
        assertThat(aeth.ackType()).isEqualTo(AethFlyweight.AckType.RNR_NAK);
        assertThat(aeth.syndromeValue()).isEqualTo(14);
        aeth.syndrome(0x40);
        assertThat(aeth.ackType()).isEqualTo(AethFlyweight.AckType.RESERVED);
        int[] codes = {0x60, 0x61, 0x62, 0x63, 0x64};
        AethFlyweight.NakCode[] naks = AethFlyweight.NakCode.values();
        for (int i = 0; i < codes.length; i++) {
            assertThat(AethFlyweight.nakSyndrome(naks[i])).isEqualTo(codes[i]);
            aeth.syndrome(codes[i]);
            assertThat(aeth.ackType()).isEqualTo(AethFlyweight.AckType.NAK);
            assertThat(aeth.nakCode()).isEqualTo(naks[i]);
        }
        assertThat(naks).extracting(Enum::name).containsExactly("PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR",
            "REMOTE_OPERATIONAL_ERROR", "INVALID_RD_REQUEST");
        aeth.syndrome(0x65);
        assertThat(aeth.nakCode()).as("reserved NAK code").isNull();
        assertThat(AethFlyweight.ackType(0x9F)).as("bit 7 reserved, ignored").isEqualTo(AethFlyweight.AckType.ACK);
    }
}
