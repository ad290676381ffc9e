package io.jndk.roce.cm;

/**
 * What the active side asks for in its REQ, as rdma_cm fills it for RDMA_PS_TCP: the service ID is
 * {@code 0x0000000001060000 | destinationPort}, responder resources is the IRD, initiator depth the ORD, and the
 * private data starts with the rdma_cm header (source port, both IP addresses, taken from the GIDs) followed by
 * the consumer's at most 56 octets.
 *
 * @param remoteGid the peer's GID
 * @param sourcePort this side's port (rdma_cm's source port; also in the RoCEv2 flow label)
 * @param destinationPort the listener's port
 * @param localQpn this side's 24-bit QPN
 * @param startingPsn the 24-bit PSN this side expects first: the peer's first request carries it (Linux's ib_cm
 *     sets the sender's sq_psn from the other side's Starting PSN; docs/INTEROP-ROCE.md)
 * @param ird incoming RDMA READs and atomics this side accepts in flight, 0-255
 * @param ord RDMA READs and atomics this side issues in flight, 0-255
 * @param privateData the consumer's private data, at most {@link CmAgent#REQ_PRIVATE_DATA} octets (copied)
 */
public record ConnectParams(Gid remoteGid, int sourcePort, int destinationPort, int localQpn, int startingPsn, int ird,
    int ord, byte[] privateData) {

    /** Copies the private data. */
    public ConnectParams {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** @return a copy of the private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
