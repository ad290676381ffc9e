package io.jndk.roce.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** 24-bit PSN arithmetic across the wrap, and the BTH's 24-bit fields. */
class PsnTest {

    @Test
    void addWrapsAt24Bits() {
        assertThat(Psn.add(0xFFFFFF, 1)).isZero();
        assertThat(Psn.next(0xFFFFFF)).isZero();
        assertThat(Psn.add(0xFFFFF0, 0x20)).isEqualTo(0x10);
        assertThat(Psn.add(0, -1)).isEqualTo(0xFFFFFF);
        assertThat(Psn.add(5, 1 << 24)).isEqualTo(5);
    }

    @Test
    void distanceIsForwardModulo24Bits() {
        assertThat(Psn.distance(0xFFFFFE, 1)).isEqualTo(3);
        assertThat(Psn.distance(1, 0xFFFFFE)).isEqualTo(0xFFFFFD);
        assertThat(Psn.distance(7, 7)).isZero();
    }

    @Test
    void orderIsTheShortWayRound() {
        assertThat(Psn.before(0xFFFFFF, 0)).isTrue();
        assertThat(Psn.after(0, 0xFFFFFF)).isTrue();
        assertThat(Psn.compare(0x10, 0xFFFFF0)).isPositive();
        assertThat(Psn.compare(0xFFFFF0, 0x10)).isNegative();
        assertThat(Psn.compare(0x123456, 0x123456)).isZero();
        assertThat(Psn.diff(0x7FFFFF, 0)).isEqualTo(0x7FFFFF);
        assertThat(Psn.diff(0x800000, 0)).as("exactly half the space counts as behind").isEqualTo(-0x800000);
        assertThat(Psn.diff(0x800001, 0)).isEqualTo(-0x7FFFFF);
        assertThat(Psn.diff(3, 0xFFFFFD)).isEqualTo(6);
    }

    @Test
    void windowAcrossTheWrap() {
        assertThat(Psn.inWindow(1, 0xFFFFFE, 4)).isTrue();
        assertThat(Psn.inWindow(2, 0xFFFFFE, 4)).isFalse();
        assertThat(Psn.inWindow(0xFFFFFD, 0xFFFFFE, 4)).isFalse();
        assertThat(Psn.inWindow(0xFFFFFE, 0xFFFFFE, 0)).isFalse();
        assertThat(Psn.isValid(0xFFFFFF)).isTrue();
        assertThat(Psn.isValid(0x1000000)).isFalse();
        assertThat(Psn.isValid(-1)).isFalse();
    }

    @Test
    void bth24BitFieldsKeepTheirNeighbours() {
        ByteBuffer b = ByteBuffer.allocate(BthFlyweight.LENGTH);
        BthFlyweight bth = new BthFlyweight().wrap(b, 0);
        bth.ackRequest(true).resv7(0x55).resv8a(0xA5).psn(0x1FFFFFF).destQp(0x7ABCDEF);
        assertThat(bth.psn()).isEqualTo(0xFFFFFF);
        assertThat(bth.destQp()).isEqualTo(0xABCDEF);
        assertThat(bth.ackRequest()).isTrue();
        assertThat(bth.resv7()).isEqualTo(0x55);
        assertThat(bth.resv8a()).as("DestQP's upper octet is Resv8a, untouched").isEqualTo(0xA5);
        assertThat(Hex.of(b, 4, 8)).isEqualTo("a5abcdefd5ffffff");
    }
}
