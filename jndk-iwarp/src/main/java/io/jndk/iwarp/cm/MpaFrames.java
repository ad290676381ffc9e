package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.MpaIrdOrdFlyweight;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

/** Builds and reads MPA Request/Reply frames with the codec flyweights. */
final class MpaFrames {

    /** An IRD/ORD word: A, the RTR flags B/C/D, IRD and ORD. */
    record Word(boolean peerToPeer, Set<RtrType> rtr, int ird, int ord) {
        Word {
            rtr = rtr.isEmpty() ? EnumSet.noneOf(RtrType.class) : EnumSet.copyOf(rtr);
        }
    }

    /** A parsed frame; {@code word} is null when S = 0. */
    record Frame(int flags, int revision, Word word, byte[] ulpData) {
        boolean crc() {
            return (flags & MpaFrameFlyweight.FLAG_CRC) != 0;
        }

        boolean reject() {
            return (flags & MpaFrameFlyweight.FLAG_REJECT) != 0;
        }

        boolean markers() {
            return (flags & MpaFrameFlyweight.FLAG_MARKERS) != 0;
        }

        boolean enhanced() {
            return word != null;
        }
    }

    private MpaFrames() {
    }

    /**
     * @param kind Request or Reply
     * @param revision revision octet
     * @param crc C
     * @param reject R
     * @param word IRD/ORD word, or null for S = 0
     * @param ulpData ULP private data
     * @return the frame, position 0, limit = frame length
     */
    static ByteBuffer encode(MpaFrameKind kind, int revision, boolean crc, boolean reject, Word word, byte[] ulpData) {
        int wordLength = word == null ? 0 : MpaIrdOrdFlyweight.LENGTH;
        int pdLength = wordLength + ulpData.length;
        ByteBuffer frame = ByteBuffer.allocate(MpaFrameFlyweight.HEADER_LENGTH + pdLength);
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(frame, 0);
        f.key(kind).flags(0).crc(crc).reject(reject).enhanced(word != null).revision(revision).privateDataLength(pdLength);
        if (word != null) {
            new MpaIrdOrdFlyweight().wrap(frame, f.privateDataIndex()).set(word.peerToPeer(),
                word.rtr().contains(RtrType.SEND), word.ird(),
                word.rtr().contains(RtrType.WRITE), word.rtr().contains(RtrType.READ), word.ord());
        }
        frame.put(f.privateDataIndex() + wordLength, ulpData);
        frame.clear();
        return frame;
    }

    /**
     * Parses a frame whose header and private data are complete in {@code buffer} from index 0.
     *
     * @param buffer the octets
     * @return the frame
     */
    static Frame parse(ByteBuffer buffer) {
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(buffer, 0);
        Word word = null;
        if (f.enhanced() && f.privateDataLength() >= MpaIrdOrdFlyweight.LENGTH) {
            MpaIrdOrdFlyweight w = new MpaIrdOrdFlyweight().wrap(buffer, f.privateDataIndex());
            EnumSet<RtrType> rtr = EnumSet.noneOf(RtrType.class);
            if (w.writeRtr()) {
                rtr.add(RtrType.WRITE);
            }
            if (w.readRtr()) {
                rtr.add(RtrType.READ);
            }
            if (w.sendRtr()) {
                rtr.add(RtrType.SEND);
            }
            word = new Word(w.peerToPeer(), rtr, w.ird(), w.ord());
        }
        int ulpIndex = f.privateDataIndex() + (word == null ? 0 : MpaIrdOrdFlyweight.LENGTH);
        int ulpLength = f.privateDataIndex() + f.privateDataLength() - ulpIndex;
        byte[] ulp = new byte[ulpLength];
        buffer.get(ulpIndex, ulp);
        return new Frame(f.flags(), f.revision(), word, ulp);
    }
}
