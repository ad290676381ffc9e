package io.jndk.roce.cm;

/**
 * What the passive side answers in its REP. Responder resources and initiator depth are the IRD and ORD, each
 * lowered to what the REQ offered (initiator depth and responder resources of the REQ), as NDK's effective read
 * limits require.
 *
 * @param localQpn this side's 24-bit QPN
 * @param startingPsn the 24-bit PSN this side expects first: the peer's first request carries it (Linux's ib_cm
 *     sets the sender's sq_psn from the other side's Starting PSN; docs/INTEROP-ROCE.md)
 * @param ird incoming RDMA READs and atomics this side accepts in flight, 0-255
 * @param ord RDMA READs and atomics this side issues in flight, 0-255
 * @param privateData at most {@link CmAgent#REP_PRIVATE_DATA} octets (copied)
 */
public record AcceptParams(int localQpn, int startingPsn, int ird, int ord, byte[] privateData) {

    /** Copies the private data. */
    public AcceptParams {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** @return a copy of the private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
