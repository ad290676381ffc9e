package io.jndk.iwarp.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.iwarp.codec.TerminateCode;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** IRD/ORD and RTR negotiation without sockets (RFC 6581 section 9, relaxed like siw, IWARP.md 1.4). */
@Timeout(10)
class MpaNegotiationTest {

    private static MpaFrames.Word word(int ird, int ord) {
        return new MpaFrames.Word(false, Set.of(), ird, ord);
    }

    @ParameterizedTest(name = "request IRD {0} ORD {1}, responder IRD {2} ORD {3} -> reply IRD {4} ORD {5}")
    @CsvSource({
        // initiator ird, ord | responder ird, ord | reply ird, ord
        "1, 1,   1, 1,   1, 1",      // rping: equal values pass through
        "0, 0,   0, 0,   0, 0",      // perftest write/send
        "128, 128, 128, 128, 128, 128", // ib_read_bw
        "4, 2,   1, 8,   1, 4",      // responder ORD lowered to 4; IRD stays at the granted 1
        "2, 16,  4, 4,   4, 2",      // IRD never raised above the grant: the initiator lowers its ORD
        "0, 0,   8, 8,   0, 0",      // IRD lowered to the initiator's ORD 0, ORD drops to 0
        "16383, 16383, 3, 5, 16383, 16383", // 0x3fff both ways: no automatic negotiation, echoed
        "7, 200, 1, 1,   1, 1",      // initiator ORD above the limit: IRD stays at the grant
    })
    void responderRelaxedNegotiation(int reqIrd, int reqOrd, int ird, int ord, int replyIrd, int replyOrd) {
        MpaParams local = MpaParams.of(ird, ord, null);
        MpaNegotiation.Responder r = MpaNegotiation.respond(word(reqIrd, reqOrd), local);
        assertThat(r.replyWord().ird()).isEqualTo(replyIrd);
        assertThat(r.replyWord().ord()).isEqualTo(replyOrd);
        assertThat(r.replyWord().peerToPeer()).isFalse();
        assertThat(r.replyWord().rtr()).isEmpty();
        assertThat(r.rtr()).isEmpty();
        if (reqIrd != 16383) {
            assertThat(r.ord()).isEqualTo(replyOrd).isLessThanOrEqualTo(reqIrd);
        } else {
            assertThat(r.ord()).isEqualTo(ord);
        }
    }

    @ParameterizedTest(name = "own IRD {0} ORD {1}, reply IRD {2} ORD {3} -> IRD {4} ORD {5}")
    @CsvSource({
        "1, 1,   1, 1,   1, 1",
        "4, 2,   2, 4,   4, 2",
        "4, 8,   2, 1,   1, 2",      // siw: IRD := reply ORD, ORD := min(own ORD, reply IRD)
        "1, 0,   1, 3,   3, 0",      // raised IRD
        "5, 6,   16383, 16383, 5, 6", // 0x3fff: keep own values
    })
    void initiatorAdoptsReply(int ird, int ord, int replyIrd, int replyOrd, int wantIrd, int wantOrd) {
        MpaParams local = MpaParams.of(ird, ord, null).withRtr(Set.of());
        MpaNegotiation.Initiator r = MpaNegotiation.initiate(word(replyIrd, replyOrd), local);
        assertThat(r.ok()).isTrue();
        assertThat(r.ird()).isEqualTo(wantIrd);
        assertThat(r.ord()).isEqualTo(wantOrd);
        assertThat(r.rtr()).isEmpty();
    }

    @Test
    void initiatorFailsWithInsufficientIrdWhenReplyOrdExceedsTheLimit() {
        MpaNegotiation.Initiator r = MpaNegotiation.initiate(word(1, 129), MpaParams.of(1, 1, null).withRtr(Set.of()));
        assertThat(r.ok()).isFalse();
        assertThat(r.failure()).isEqualTo(TerminateCode.LLP_INSUFFICIENT_IRD);
    }

    @Test
    void responderEchoesAAndPicksWriteLikeSiw() {
        MpaFrames.Word offer = new MpaFrames.Word(true, EnumSet.of(RtrType.WRITE, RtrType.READ), 1, 1);
        MpaNegotiation.Responder r = MpaNegotiation.respond(offer, MpaParams.of(1, 1, null));
        assertThat(r.replyWord().peerToPeer()).isTrue();
        assertThat(r.replyWord().rtr()).containsExactly(RtrType.WRITE);
        assertThat(r.rtr()).contains(RtrType.WRITE);
    }

    @Test
    void responderPrefersItsOwnChoiceAmongTheOffered() {
        MpaFrames.Word offer = new MpaFrames.Word(true, EnumSet.of(RtrType.WRITE, RtrType.READ), 1, 1);
        MpaParams readPreferred = MpaParams.of(0, 1, null).withRtr(Set.of(RtrType.READ));
        MpaNegotiation.Responder r = MpaNegotiation.respond(offer, readPreferred);
        assertThat(r.rtr()).contains(RtrType.READ);
        assertThat(r.ird()).as("raised so that the Read RTR fits").isEqualTo(1);
    }

    @Test
    void responderNeverPicksSendUnaskedAndFallsBackToWrite() {
        MpaFrames.Word sendOnly = new MpaFrames.Word(true, EnumSet.of(RtrType.SEND), 1, 1);
        assertThat(MpaNegotiation.respond(sendOnly, MpaParams.of(1, 1, null)).rtr()).contains(RtrType.WRITE);
        assertThat(MpaNegotiation.respond(sendOnly, MpaParams.of(1, 1, null).withRtr(Set.of(RtrType.SEND))).rtr())
            .contains(RtrType.SEND);
        MpaFrames.Word readOnly = new MpaFrames.Word(true, EnumSet.of(RtrType.READ), 1, 1);
        assertThat(MpaNegotiation.respond(readOnly, MpaParams.of(1, 1, null)).rtr()).contains(RtrType.READ);
    }

    @Test
    void responderAnswersClientServerWithClientServer() {
        MpaFrames.Word clientServer = new MpaFrames.Word(false, Set.of(), 1, 1);
        MpaNegotiation.Responder r = MpaNegotiation.respond(clientServer, MpaParams.of(1, 1, null));
        assertThat(r.replyWord().peerToPeer()).isFalse();
        assertThat(r.replyWord().rtr()).isEmpty();
        assertThat(r.rtr()).isEmpty();
    }

    @Test
    void initiatorSendsTheSelectedRtrNotTheOfferedOnes() {
        MpaParams offersBoth = MpaParams.of(1, 1, null).withRtr(EnumSet.of(RtrType.WRITE, RtrType.READ));
        MpaFrames.Word replyRead = new MpaFrames.Word(true, EnumSet.of(RtrType.READ), 1, 1);
        assertThat(MpaNegotiation.initiate(replyRead, offersBoth).rtr()).isEqualTo(Optional.of(RtrType.READ));
    }

    @Test
    void initiatorFailsWithNoMatchingRtr() {
        MpaParams writeOnly = MpaParams.of(1, 1, null);
        MpaFrames.Word replyRead = new MpaFrames.Word(true, EnumSet.of(RtrType.READ), 1, 1);
        assertThat(MpaNegotiation.initiate(replyRead, writeOnly).failure()).isEqualTo(TerminateCode.LLP_NO_MATCHING_RTR);
        MpaFrames.Word replyWithoutA = new MpaFrames.Word(false, Set.of(), 1, 1);
        assertThat(MpaNegotiation.initiate(replyWithoutA, writeOnly).failure()).isEqualTo(TerminateCode.LLP_NO_MATCHING_RTR);
    }

    @Test
    void paramsRejectOversizedPrivateDataAndDepths() {
        assertThatThrownBy(() -> MpaParams.of(1, 1, new byte[253])).isInstanceOf(IllegalArgumentException.class);
        assertThat(MpaParams.of(1, 1, new byte[252]).privateData()).hasSize(252);
        assertThatThrownBy(() -> MpaParams.of(129, 1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MpaParams.of(1, -1, null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(MpaParams.of(1, 1, null).withRtr(Set.of()).peerToPeer()).isFalse();
        byte[] data = {1, 2, 3};
        MpaParams p = MpaParams.of(1, 1, data);
        data[0] = 9;
        assertThat(p.privateData()).containsExactly(1, 2, 3);
        assertThat(p).isEqualTo(MpaParams.of(1, 1, new byte[] {1, 2, 3}));
    }
}
