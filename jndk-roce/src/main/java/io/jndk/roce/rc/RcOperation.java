package io.jndk.roce.rc;

/** The requester's work request operations (IBTA vol. 1 section 9.4). */
public enum RcOperation {
    /** SEND: the payload goes into the responder's next posted receive. */
    SEND,
    /** SEND with Invalidate: a SEND whose last packet also names an R_Key for the responder to invalidate. */
    SEND_WITH_INVALIDATE,
    /** RDMA WRITE: the payload is placed at a remote virtual address under an R_Key. */
    RDMA_WRITE,
    /** RDMA READ: remote memory is read back into the local buffer. */
    RDMA_READ
}
