package io.jndk.iwarp.cm;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;

/**
 * A validated MPA Request as the listener received it.
 *
 * @param revision MPA revision (1 or 2)
 * @param enhanced whether the Request carried the IRD/ORD word (S = 1)
 * @param crc whether the initiator asked for CRC (C)
 * @param peerIrd the initiator's IRD, or {@link MpaNegotiated#UNKNOWN} if not enhanced
 * @param peerOrd the initiator's ORD, or {@link MpaNegotiated#UNKNOWN} if not enhanced
 * @param peerToPeer whether the initiator asked for the peer-to-peer model (A)
 * @param rtrOffered the RTR types the initiator can send (B, C, D)
 * @param privateData the initiator's ULP private data (without the IRD/ORD word)
 * @param localAddress the listener side's address of this connection
 * @param remoteAddress the initiator's address
 */
public record MpaRequest(int revision, boolean enhanced, boolean crc, int peerIrd, int peerOrd, boolean peerToPeer,
                         Set<RtrType> rtrOffered, byte[] privateData,
                         InetSocketAddress localAddress, InetSocketAddress remoteAddress) {

    /** Copies the mutable parts. */
    public MpaRequest {
        rtrOffered = rtrOffered == null || rtrOffered.isEmpty()
            ? Collections.unmodifiableSet(EnumSet.noneOf(RtrType.class))
            : Collections.unmodifiableSet(EnumSet.copyOf(rtrOffered));
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** @return a copy of the initiator's ULP private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaRequest r && revision == r.revision && enhanced == r.enhanced && crc == r.crc
            && peerIrd == r.peerIrd && peerOrd == r.peerOrd && peerToPeer == r.peerToPeer
            && rtrOffered.equals(r.rtrOffered) && Arrays.equals(privateData, r.privateData)
            && Objects.equals(localAddress, r.localAddress) && Objects.equals(remoteAddress, r.remoteAddress);
    }

    @Override
    public int hashCode() {
        return Objects.hash(revision, crc, peerIrd, peerOrd, rtrOffered, Arrays.hashCode(privateData), remoteAddress);
    }

    @Override
    public String toString() {
        return "MpaRequest[rev=" + revision + (enhanced ? " enhanced" : "") + " crc=" + crc + " ird=" + peerIrd
            + " ord=" + peerOrd + " p2p=" + peerToPeer + " rtr=" + rtrOffered
            + " privateData=" + HexFormat.of().formatHex(privateData) + " " + remoteAddress + " -> " + localAddress + "]";
    }
}
