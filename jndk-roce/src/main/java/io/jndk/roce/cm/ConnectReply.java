package io.jndk.roce.cm;

/**
 * The passive side's REP as the active side reports it, for the consumer to complete (RTU) or reject.
 *
 * @param remoteQpn the passive side's QPN
 * @param startingPsn the passive side's starting PSN: the PSN it expects first, which this side's first request carries
 * @param responderResources the passive side's IRD
 * @param initiatorDepth the passive side's ORD
 * @param remoteCaGuid the passive side's CA GUID
 * @param privateData the REP's whole 196 octets of private data
 */
public record ConnectReply(int remoteQpn, int startingPsn, int responderResources, int initiatorDepth, long remoteCaGuid,
    byte[] privateData) {

    /** Copies the private data. */
    public ConnectReply {
        privateData = privateData.clone();
    }

    /** @return a copy of the private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
