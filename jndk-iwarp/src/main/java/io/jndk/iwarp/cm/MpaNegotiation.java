package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.MpaIrdOrdFlyweight;
import io.jndk.iwarp.codec.TerminateCode;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * RFC 6581 section 9 IRD/ORD and RTR negotiation, relaxed the way siw does it
 * ({@code relaxed_ird_negotiation}, IWARP.md 1.4). Pure functions.
 */
final class MpaNegotiation {

    private static final int NO_NEGOTIATION = MpaIrdOrdFlyweight.NO_NEGOTIATION;
    private static final List<RtrType> PREFERENCE = List.of(RtrType.WRITE, RtrType.READ, RtrType.SEND);

    /** What the responder answers and ends up with. */
    record Responder(MpaFrames.Word replyWord, int ird, int ord, Optional<RtrType> rtr) {
    }

    /** What the initiator ends up with; {@code failure} is the Terminate to send when setup cannot go on. */
    record Initiator(int ird, int ord, Optional<RtrType> rtr, TerminateCode failure, String detail) {
        boolean ok() {
            return failure == null;
        }
    }

    private MpaNegotiation() {
    }

    /**
     * Responder side: ORD lowered to the initiator's IRD, IRD lowered to the initiator's ORD;
     * {@code 0x3fff} from the initiator leaves the value alone and is echoed. A is echoed; one RTR type is selected.
     */
    static Responder respond(MpaFrames.Word request, MpaParams local) {
        int ord = request.ird() == NO_NEGOTIATION ? local.ord() : Math.min(local.ord(), request.ird());
        // IRD is a resource the consumer granted: lowered to the initiator's ORD, never raised above the grant
        // (NDK: effective IRD = min(local IRD, peer ORD)); the initiator then lowers its ORD to it.
        int ird = request.ord() == NO_NEGOTIATION ? local.ird() : Math.min(local.ird(), request.ord());
        Optional<RtrType> rtr = Optional.empty();
        if (request.peerToPeer()) {
            RtrType selected = selectForReply(request.rtr(), local.rtrTypes());
            rtr = Optional.of(selected);
            if (selected == RtrType.READ && ird == 0) {
                ird = 1; // RFC 6581 section 9.1: the responder may raise IRD so that a Read RTR fits
            }
        }
        int replyIrd = request.ord() == NO_NEGOTIATION ? NO_NEGOTIATION : ird;
        int replyOrd = request.ird() == NO_NEGOTIATION ? NO_NEGOTIATION : ord;
        MpaFrames.Word word = new MpaFrames.Word(request.peerToPeer(),
            rtr.map(EnumSet::of).orElseGet(() -> EnumSet.noneOf(RtrType.class)), replyIrd, replyOrd);
        return new Responder(word, ird, ord, rtr);
    }

    /**
     * Responder RTR choice: an offered type this side prefers; else Write or Read if offered (siw's
     * order, never Send unasked); else Write, the RFC 6581 fallback of a supported type.
     */
    static RtrType selectForReply(Set<RtrType> offered, Set<RtrType> preferred) {
        for (RtrType t : PREFERENCE) {
            if (offered.contains(t) && preferred.contains(t)) {
                return t;
            }
        }
        for (RtrType t : List.of(RtrType.WRITE, RtrType.READ)) {
            if (offered.contains(t)) {
                return t;
            }
        }
        return RtrType.WRITE;
    }

    /**
     * Initiator side, after the Reply: IRD := the responder's ORD, ORD := min(own ORD, responder's
     * IRD) ({@code 0x3fff} leaves the own value unchanged). Fails with Terminate 2/0/6 if the
     * responder's ORD exceeds {@link MpaParams#MAX_READ_DEPTH}, with 2/0/7 if peer-to-peer was asked
     * and the Reply selects no offered RTR type.
     */
    static Initiator initiate(MpaFrames.Word reply, MpaParams local) {
        int ird;
        if (reply.ord() == NO_NEGOTIATION) {
            ird = local.ird();
        } else if (reply.ord() > MpaParams.MAX_READ_DEPTH) {
            return new Initiator(0, 0, Optional.empty(), TerminateCode.LLP_INSUFFICIENT_IRD,
                "responder ORD " + reply.ord() + " exceeds the largest IRD " + MpaParams.MAX_READ_DEPTH);
        } else {
            ird = reply.ord();
        }
        int ord = reply.ird() == NO_NEGOTIATION ? local.ord() : Math.min(local.ord(), reply.ird());
        Optional<RtrType> rtr = Optional.empty();
        if (local.peerToPeer()) {
            if (reply.peerToPeer()) {
                for (RtrType t : PREFERENCE) {
                    if (reply.rtr().contains(t) && local.rtrTypes().contains(t)) {
                        rtr = Optional.of(t);
                        break;
                    }
                }
            }
            if (rtr.isEmpty()) {
                return new Initiator(ird, ord, rtr, TerminateCode.LLP_NO_MATCHING_RTR, reply.peerToPeer()
                    ? "no matching RTR option: this side can send " + local.rtrTypes() + ", the MPA Reply selects "
                        + reply.rtr()
                    : "the MPA Reply declines peer-to-peer mode (A=0); this side requires it (an RTR of "
                        + local.rtrTypes() + ")");
            }
        }
        return new Initiator(ird, ord, rtr, null, "");
    }
}
