package io.jndk.roce.rc;

/**
 * The per-QP attributes the reliability core needs (the RTR/RTS attributes of IBTA vol. 1 chapter 11, Modify QP, plus
 * this implementation's bounds). One value serves both halves of a QP: the requester reads the send-side fields, the
 * responder the receive-side ones. Built from {@link #rxeDefaults()} with {@link #toBuilder()}.
 *
 * @param pathMtu the path MTU in octets: 256, 512, 1024, 2048 or 4096
 * @param destQpn the peer's QP number, written into every BTH sent
 * @param localAckTimeout the local ACK timeout exponent {@code t}, 0-31 ({@code 4.096 us * 2^t}; 0 = none)
 * @param retryCount the transport retry count, 0-7 (timeouts and PSN sequence error NAKs)
 * @param rnrRetry the RNR retry count, 0-7, 7 meaning retry for ever
 * @param minRnrTimer the RNR NAK timer code the responder puts in its RNR NAKs, 0-31
 * @param maxUnackedPsns how many PSNs the requester may have unacknowledged, 1..2^23
 * @param maxPacketsWithoutAckRequest inside a long message, AckReq goes on the packet after this many without it
 * @param initiatorDepth how many RDMA READs the requester may have outstanding (ORD)
 * @param responderResources how many RDMA READs the responder remembers for duplicates (IRD)
 * @param ackCoalesce the responder also acknowledges after this many unacknowledged in-order packets; 0 = only on AckReq
 * @param sendQueueDepth requester work request slots
 * @param receiveQueueDepth responder receive slots
 */
public record RcConfig(int pathMtu, int destQpn, int localAckTimeout, int retryCount, int rnrRetry, int minRnrTimer,
    int maxUnackedPsns, int maxPacketsWithoutAckRequest, int initiatorDepth, int responderResources, int ackCoalesce,
    int sendQueueDepth, int receiveQueueDepth) {

    /** The retry count value that means "for ever" for {@link #rnrRetry()}. */
    public static final int INFINITE_RNR_RETRY = 7;

    /** Validates every field. */
    public RcConfig {
        if (pathMtu != 256 && pathMtu != 512 && pathMtu != 1024 && pathMtu != 2048 && pathMtu != 4096) {
            throw new IllegalArgumentException("path MTU " + pathMtu + " is not 256, 512, 1024, 2048 or 4096");
        }
        require("destination QPN", destQpn, 0, 0xFFFFFF);
        require("local ACK timeout", localAckTimeout, 0, 31);
        require("retry count", retryCount, 0, 7);
        require("RNR retry count", rnrRetry, 0, 7);
        require("minimum RNR NAK timer", minRnrTimer, 0, 31);
        require("maximum unacknowledged PSNs", maxUnackedPsns, 1, 1 << 23);
        require("packets without AckReq", maxPacketsWithoutAckRequest, 0, 1 << 23);
        require("initiator depth", initiatorDepth, 1, 1 << 16);
        require("responder resources", responderResources, 1, 1 << 16);
        require("ACK coalescing", ackCoalesce, 0, 1 << 23);
        require("send queue depth", sendQueueDepth, 1, 1 << 20);
        require("receive queue depth", receiveQueueDepth, 1, 1 << 20);
    }

    private static void require(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " is not in " + min + ".." + max);
        }
    }

    /**
     * What an rxe peer negotiates through rdma_cm (path MTU 1024, local ACK timeout 19, retry 7, RNR retry 7) with
     * rxe's own requester bounds: 128 unacknowledged PSNs, AckReq at least every 66th packet, and ACKs only on
     * AckReq. Minimum RNR timer 12 (0.64 ms), 16 outstanding READs each way, queues of 256.
     *
     * @return the defaults
     */
    public static RcConfig rxeDefaults() {
        return new RcConfig(1024, 0, 19, 7, 7, 12, 128, 65, 16, 16, 0, 256, 256);
    }

    /** @return a builder starting from this value */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds an {@link RcConfig} field by field; {@link #build()} validates. */
    public static final class Builder {
        private int pathMtu;
        private int destQpn;
        private int localAckTimeout;
        private int retryCount;
        private int rnrRetry;
        private int minRnrTimer;
        private int maxUnackedPsns;
        private int maxPacketsWithoutAckRequest;
        private int initiatorDepth;
        private int responderResources;
        private int ackCoalesce;
        private int sendQueueDepth;
        private int receiveQueueDepth;

        private Builder(RcConfig c) {
            pathMtu = c.pathMtu;
            destQpn = c.destQpn;
            localAckTimeout = c.localAckTimeout;
            retryCount = c.retryCount;
            rnrRetry = c.rnrRetry;
            minRnrTimer = c.minRnrTimer;
            maxUnackedPsns = c.maxUnackedPsns;
            maxPacketsWithoutAckRequest = c.maxPacketsWithoutAckRequest;
            initiatorDepth = c.initiatorDepth;
            responderResources = c.responderResources;
            ackCoalesce = c.ackCoalesce;
            sendQueueDepth = c.sendQueueDepth;
            receiveQueueDepth = c.receiveQueueDepth;
        }

        /** @param v the path MTU @return this */
        public Builder pathMtu(int v) {
            pathMtu = v;
            return this;
        }

        /** @param v the peer's QPN @return this */
        public Builder destQpn(int v) {
            destQpn = v;
            return this;
        }

        /** @param v the local ACK timeout exponent @return this */
        public Builder localAckTimeout(int v) {
            localAckTimeout = v;
            return this;
        }

        /** @param retry the retry count @param rnr the RNR retry count @return this */
        public Builder retries(int retry, int rnr) {
            retryCount = retry;
            rnrRetry = rnr;
            return this;
        }

        /** @param v the RNR NAK timer code @return this */
        public Builder minRnrTimer(int v) {
            minRnrTimer = v;
            return this;
        }

        /** @param unacked the PSN window @param withoutAckRequest the AckReq interval @return this */
        public Builder window(int unacked, int withoutAckRequest) {
            maxUnackedPsns = unacked;
            maxPacketsWithoutAckRequest = withoutAckRequest;
            return this;
        }

        /** @param ord the initiator depth @param ird the responder resources @return this */
        public Builder readDepth(int ord, int ird) {
            initiatorDepth = ord;
            responderResources = ird;
            return this;
        }

        /** @param v the responder's ACK interval in packets, 0 = only on AckReq @return this */
        public Builder ackCoalesce(int v) {
            ackCoalesce = v;
            return this;
        }

        /** @param send the send queue depth @param receive the receive queue depth @return this */
        public Builder queueDepths(int send, int receive) {
            sendQueueDepth = send;
            receiveQueueDepth = receive;
            return this;
        }

        /** @return the configuration @throws IllegalArgumentException naming the first field out of range */
        public RcConfig build() {
            return new RcConfig(pathMtu, destQpn, localAckTimeout, retryCount, rnrRetry, minRnrTimer, maxUnackedPsns,
                maxPacketsWithoutAckRequest, initiatorDepth, responderResources, ackCoalesce, sendQueueDepth,
                receiveQueueDepth);
        }
    }

    /** @return the local ACK timeout in nanoseconds, or {@link RcTimers#INFINITE} */
    public long localAckTimeoutNanos() {
        return RcTimers.localAckTimeoutNanos(localAckTimeout);
    }
}
