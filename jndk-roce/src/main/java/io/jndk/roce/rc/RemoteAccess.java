package io.jndk.roce.rc;

import java.nio.ByteBuffer;

/**
 * The responder's view of its target memory: the R_Key check of an inbound RDMA request (IBTA vol. 1 chapter
 * 10, memory protection) and the placement that follows it. The responder calls {@link #check} once per inbound RDMA WRITE or
 * READ message, over the whole range its RETH names, and afterwards reads or writes only inside a range that check
 * returned {@link Result#OK} for. Zero-length requests are not checked and touch no memory (rxe does the same).
 */
public interface RemoteAccess {

    /** The outcome of an access check; each non-OK value becomes the NAK of the same name. */
    enum Result {
        /** Granted. */
        OK,
        /** Invalid R_Key, range outside the region, or missing right: NAK remote access error. */
        REMOTE_ACCESS_ERROR,
        /** The request itself is malformed (for example longer than the responder supports): NAK invalid request. */
        INVALID_REQUEST
    }

    /** The right an inbound request needs. */
    enum Right {
        /** Remote read, for RDMA READ. */
        REMOTE_READ,
        /** Remote write, for RDMA WRITE. */
        REMOTE_WRITE
    }

    /**
     * @param rkey the R_Key from the RETH
     * @param virtualAddress the first octet's address
     * @param length the octet count, at least 1
     * @param right the right needed
     * @return whether the whole range may be accessed
     */
    Result check(int rkey, long virtualAddress, int length, Right right);

    /**
     * Places inbound RDMA WRITE payload inside a range granted by {@link #check}.
     *
     * @param rkey the R_Key
     * @param virtualAddress where the first octet goes
     * @param src the packet buffer
     * @param srcIndex absolute index of the payload in {@code src}
     * @param length the octet count
     */
    void write(int rkey, long virtualAddress, ByteBuffer src, int srcIndex, int length);

    /**
     * Reads RDMA READ response payload from inside a range granted by {@link #check}.
     *
     * @param rkey the R_Key
     * @param virtualAddress the first octet's address
     * @param dst the packet buffer
     * @param dstIndex absolute index in {@code dst}
     * @param length the octet count
     */
    void read(int rkey, long virtualAddress, ByteBuffer dst, int dstIndex, int length);

    /**
     * Invalidates the R_Key named by a SEND with Invalidate.
     *
     * @param rkey the R_Key
     * @return {@link Result#OK} when it was invalidated
     */
    Result invalidate(int rkey);
}
