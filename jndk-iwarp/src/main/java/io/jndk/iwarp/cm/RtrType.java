package io.jndk.iwarp.cm;

/**
 * The three ready-to-receive (RTR) frames of RFC 6581 section 9.2, each with the flag that offers or
 * selects it in the IRD/ORD word of the MPA frames.
 */
public enum RtrType {
    /** Zero-length RDMA Write with STag 1, TO 0 (flag C, ORD half); what jndk and siw prefer. */
    WRITE,
    /** Zero-length RDMA Read Request, source STag 1 (flag D, ORD half); answered by a zero-length Read Response. */
    READ,
    /** Zero-length Send (flag B, IRD half); consumes a posted receive, siw never selects it. */
    SEND
}
