package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the RFC 6581 enhanced connection setup word, the first four private data octets
 * of an MPA frame with S = 1.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |A|B|            IRD            |C|D|            ORD            |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>A = peer-to-peer model, B = zero-length Send RTR, C = zero-length RDMA Write RTR,
 * D = zero-length RDMA Read RTR; IRD and ORD are 14-bit unsigned values ({@code 0x3fff} means
 * "no automatic negotiation"). Both halves are big-endian.
 */
public final class MpaIrdOrdFlyweight {

    /** Offset of the 16-bit IRD half (A, B, IRD). */
    public static final int IRD_OFFSET = 0;
    /** Offset of the 16-bit ORD half (C, D, ORD). */
    public static final int ORD_OFFSET = 2;
    /** Length of the word. */
    public static final int LENGTH = 4;
    /** A: peer-to-peer model (IRD half). */
    public static final int FLAG_PEER_TO_PEER = 0x8000;
    /** B: zero-length Send RTR (IRD half). */
    public static final int FLAG_SEND_RTR = 0x4000;
    /** C: zero-length RDMA Write RTR (ORD half). */
    public static final int FLAG_WRITE_RTR = 0x8000;
    /** D: zero-length RDMA Read RTR (ORD half). */
    public static final int FLAG_READ_RTR = 0x4000;
    /** Mask of the 14-bit IRD and ORD values. */
    public static final int VALUE_MASK = 0x3FFF;
    /** IRD/ORD value meaning "no automatic negotiation" (RFC 6581 section 9.1). */
    public static final int NO_NEGOTIATION = 0x3FFF;

    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer the buffer
     * @param offset index of the first octet of the word (frame offset + 20)
     * @return this
     */
    public MpaIrdOrdFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the raw IRD half */
    public int irdWord() {
        return NetworkOrder.u16(buffer, offset + IRD_OFFSET);
    }

    /** @return the raw ORD half */
    public int ordWord() {
        return NetworkOrder.u16(buffer, offset + ORD_OFFSET);
    }

    /** @return A */
    public boolean peerToPeer() {
        return (irdWord() & FLAG_PEER_TO_PEER) != 0;
    }

    /** @return B */
    public boolean sendRtr() {
        return (irdWord() & FLAG_SEND_RTR) != 0;
    }

    /** @return C */
    public boolean writeRtr() {
        return (ordWord() & FLAG_WRITE_RTR) != 0;
    }

    /** @return D */
    public boolean readRtr() {
        return (ordWord() & FLAG_READ_RTR) != 0;
    }

    /** @return the 14-bit IRD */
    public int ird() {
        return irdWord() & VALUE_MASK;
    }

    /** @return the 14-bit ORD */
    public int ord() {
        return ordWord() & VALUE_MASK;
    }

    /**
     * Writes the whole word; IRD and ORD are masked to 14 bits.
     *
     * @param peerToPeer A
     * @param sendRtr B
     * @param ird inbound RDMA Read queue depth
     * @param writeRtr C
     * @param readRtr D
     * @param ord outbound RDMA Read queue depth
     * @return this
     */
    public MpaIrdOrdFlyweight set(boolean peerToPeer, boolean sendRtr, int ird, boolean writeRtr, boolean readRtr, int ord) {
        int irdWord = (peerToPeer ? FLAG_PEER_TO_PEER : 0) | (sendRtr ? FLAG_SEND_RTR : 0) | (ird & VALUE_MASK);
        int ordWord = (writeRtr ? FLAG_WRITE_RTR : 0) | (readRtr ? FLAG_READ_RTR : 0) | (ord & VALUE_MASK);
        NetworkOrder.putU16(buffer, offset + IRD_OFFSET, irdWord);
        NetworkOrder.putU16(buffer, offset + ORD_OFFSET, ordWord);
        return this;
    }
}
