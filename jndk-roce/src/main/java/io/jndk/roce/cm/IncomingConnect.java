package io.jndk.roce.cm;

/**
 * A connection request as the passive side reports it: the REQ's fields and its rdma_cm header.
 *
 * @param peer the GID the REQ came from
 * @param ipVersion 4 or 6, from the rdma_cm header
 * @param sourceAddress the active side's IP address (4 or 16 octets)
 * @param destinationAddress the address the active side connected to (4 or 16 octets)
 * @param sourcePort the active side's port
 * @param destinationPort the listener's port (from the service ID)
 * @param remoteQpn the active side's QPN
 * @param startingPsn the active side's starting PSN: the PSN it expects first, which this side's first request carries
 * @param responderResources the active side's IRD
 * @param initiatorDepth the active side's ORD
 * @param remoteCaGuid the active side's CA GUID
 * @param pathMtu the REQ's path MTU code (3 = 1024)
 * @param privateData the consumer's private data after the rdma_cm header: always the whole 56 octets, since IB
 *     CM carries no length
 */
public record IncomingConnect(Gid peer, int ipVersion, byte[] sourceAddress, byte[] destinationAddress, int sourcePort,
    int destinationPort, int remoteQpn, int startingPsn, int responderResources, int initiatorDepth, long remoteCaGuid,
    int pathMtu, byte[] privateData) {

    /** Copies the arrays. */
    public IncomingConnect {
        sourceAddress = sourceAddress.clone();
        destinationAddress = destinationAddress.clone();
        privateData = privateData.clone();
    }

    /** @return a copy of the source address */
    @Override
    public byte[] sourceAddress() {
        return sourceAddress.clone();
    }

    /** @return a copy of the destination address */
    @Override
    public byte[] destinationAddress() {
        return destinationAddress.clone();
    }

    /** @return a copy of the private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
