package io.jndk.iwarp.cm;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of MPA negotiation as seen by one side.
 *
 * <p>{@code ird}/{@code ord} are this side's values after relaxed negotiation (IWARP.md 1.4): the
 * inbound RDMA Read queue to provide and the outbound Reads it may issue. {@code peerIrd}/{@code
 * peerOrd} are the values the peer's frame carried ({@link #UNKNOWN} when it had no IRD/ORD word).
 * {@code rtr} is the RTR type agreed for the peer-to-peer model: the initiator must send it as its
 * first FPDU ({@link #mustSendRtr()}), the responder must see it before sending any FPDU
 * ({@link #expectsRtr()}).
 *
 * @param role which side this is
 * @param revision MPA revision of the Reply
 * @param enhanced whether both frames carried the RFC 6581 IRD/ORD word
 * @param crc whether FPDUs carry and check CRC-32C (C in the Request or the Reply)
 * @param ird this side's negotiated inbound RDMA Read depth
 * @param ord this side's negotiated outbound RDMA Read depth
 * @param peerIrd IRD in the peer's frame, or {@link #UNKNOWN}
 * @param peerOrd ORD in the peer's frame, or {@link #UNKNOWN}
 * @param peerToPeer whether the peer-to-peer model was agreed
 * @param rtr the agreed RTR type, empty in the client-server model
 * @param peerPrivateData the peer's ULP private data (without the IRD/ORD word)
 * @param rejected whether the Reply had R = 1
 * @param localAddress this side's TCP address
 * @param remoteAddress the peer's TCP address
 */
public record MpaNegotiated(MpaRole role, int revision, boolean enhanced, boolean crc, int ird, int ord,
                            int peerIrd, int peerOrd, boolean peerToPeer, Optional<RtrType> rtr,
                            byte[] peerPrivateData, boolean rejected,
                            InetSocketAddress localAddress, InetSocketAddress remoteAddress) {

    /** Value of {@code peerIrd}/{@code peerOrd} when the peer sent no IRD/ORD word. */
    public static final int UNKNOWN = -1;

    /** Copies the private data. */
    public MpaNegotiated {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(rtr, "rtr");
        peerPrivateData = peerPrivateData == null ? new byte[0] : peerPrivateData.clone();
    }

    /** @return a copy of the peer's ULP private data */
    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** @return whether this side (the initiator) must send the RTR frame before anything else */
    public boolean mustSendRtr() {
        return role == MpaRole.INITIATOR && rtr.isPresent() && !rejected;
    }

    /** @return whether this side (the responder) must receive the RTR frame before sending any FPDU */
    public boolean expectsRtr() {
        return role == MpaRole.RESPONDER && rtr.isPresent() && !rejected;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaNegotiated n && role == n.role && revision == n.revision && enhanced == n.enhanced
            && crc == n.crc && ird == n.ird && ord == n.ord && peerIrd == n.peerIrd && peerOrd == n.peerOrd
            && peerToPeer == n.peerToPeer && rtr.equals(n.rtr) && Arrays.equals(peerPrivateData, n.peerPrivateData)
            && rejected == n.rejected && Objects.equals(localAddress, n.localAddress)
            && Objects.equals(remoteAddress, n.remoteAddress);
    }

    @Override
    public int hashCode() {
        return Objects.hash(role, revision, crc, ird, ord, peerIrd, peerOrd, rtr, Arrays.hashCode(peerPrivateData),
            rejected, localAddress, remoteAddress);
    }

    @Override
    public String toString() {
        return "MpaNegotiated[" + role + " rev=" + revision + (enhanced ? " enhanced" : "") + " crc=" + crc
            + " ird=" + ird + " ord=" + ord + " peerIrd=" + peerIrd + " peerOrd=" + peerOrd
            + " p2p=" + peerToPeer + " rtr=" + rtr.map(Enum::name).orElse("none")
            + " peerPrivateData=" + HexFormat.of().formatHex(peerPrivateData) + (rejected ? " REJECTED" : "")
            + " " + localAddress + " <-> " + remoteAddress + "]";
    }
}
