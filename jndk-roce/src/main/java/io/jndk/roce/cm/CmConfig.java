package io.jndk.roce.cm;

/**
 * The constants a {@link CmAgent} puts in its messages and derives its timers from. {@link #rdmaCm} gives what Linux
 * rdma_cm over rxe sends (checked against the captures): CM response timeouts 20, max CM retries 15, packet life
 * time 18 (local ACK timeout 19 = one more), retry and RNR retry counts 7, path MTU 1024, hop limit 64, target ACK
 * delay 15.
 *
 * <p>Times are IBA exponents: 4.096 us * 2^t, which {@link #millis} rounds as ib_cm does, to 2^(t-8) ms. The REQ is
 * retried every 2 * packet life time + remote CM response timeout (2 * 1024 + 4096 = 6144 ms; the slirp capture
 * shows 6.3-6.4 s between rxe's REQs under TCG), the REP every local CM response timeout of the REQ (4096 ms; the
 * dgram capture shows 4.1 and 4.3 s), each at most max CM retries times after the first send.
 *
 * @param caGuid this port's CA GUID (REQ and REP; the ARI of a timeout REJ)
 * @param packetLifeTime the path's packet life time exponent
 * @param cmResponseTimeout the local and remote CM response timeouts of a REQ
 * @param maxCmRetries how many times a REQ, REP or DREQ is resent, 0-15
 * @param localAckTimeout the REQ's primary path local ACK timeout; also the time wait (2^(t-8) ms, as ib_cm)
 * @param targetAckDelay the REP's target ACK delay
 * @param retryCount the REQ's retry count
 * @param rnrRetryCount the REQ's and REP's RNR retry count (7: infinite)
 * @param pathMtu the REQ's path MTU code (3 = 1024)
 * @param hopLimit the REQ's primary path hop limit
 * @param mraServiceTimeout the service timeout of the MRAs this agent sends (rdma_cm: 24)
 * @param maxPendingRequests bound on passive connections not yet established or failed and still held
 * @param maxConnections bound on all connections the agent knows
 */
public record CmConfig(long caGuid, int packetLifeTime, int cmResponseTimeout, int maxCmRetries, int localAckTimeout,
    int targetAckDelay, int retryCount, int rnrRetryCount, int pathMtu, int hopLimit, int mraServiceTimeout,
    int maxPendingRequests, int maxConnections) {

    /** Checks the ranges. */
    public CmConfig {
        checkExponent(packetLifeTime, "packet life time");
        checkExponent(cmResponseTimeout, "CM response timeout");
        checkExponent(localAckTimeout, "local ACK timeout");
        checkExponent(targetAckDelay, "target ACK delay");
        checkExponent(mraServiceTimeout, "MRA service timeout");
        if (maxCmRetries < 0 || maxCmRetries > 15 || retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7
            || pathMtu < 1 || pathMtu > 5 || hopLimit < 0 || hopLimit > 255 || maxPendingRequests < 1
            || maxConnections < maxPendingRequests) {
            throw new IllegalArgumentException("CM configuration out of range");
        }
    }

    /**
     * @param caGuid this port's CA GUID
     * @return rdma_cm's values over rxe, with at most 256 pending requests and 4096 connections
     */
    public static CmConfig rdmaCm(long caGuid) {
        return new CmConfig(caGuid, 18, 20, 15, 19, 15, 7, 7, 3, 64, 24, 256, 4096);
    }

    /**
     * @param pending the bound on pending requests
     * @param connections the bound on connections
     * @return this configuration with other bounds
     */
    public CmConfig withBounds(int pending, int connections) {
        return new CmConfig(caGuid, packetLifeTime, cmResponseTimeout, maxCmRetries, localAckTimeout, targetAckDelay, retryCount,
            rnrRetryCount, pathMtu, hopLimit, mraServiceTimeout, pending, connections);
    }

    /**
     * @param exponent an IBA time exponent (4.096 us * 2^exponent), clamped to 0-31
     * @return its length in milliseconds as ib_cm rounds it, 2^(exponent-8), at least 1
     */
    public static long millis(int exponent) {
        int e = Math.max(0, Math.min(31, exponent));
        return 1L << Math.max(e - 8, 0);
    }

    /** @return the REQ retry interval: 2 * packet life time + CM response timeout, in milliseconds */
    public long reqIntervalMillis() {
        return 2 * millis(packetLifeTime) + millis(cmResponseTimeout);
    }

    private static void checkExponent(int value, String what) {
        if (value < 0 || value > 31) {
            throw new IllegalArgumentException(what + " is a 5-bit exponent, not " + value);
        }
    }
}
