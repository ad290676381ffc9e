package io.jndk.roce.rc;

/** Every counter the requester and responder keep, declared once: an id (the ordinal) and a label. */
public enum RcCounter {
    /** Requester: request packets sent, first transmissions and retransmissions. */
    PACKETS_SENT("request packets sent"),
    /** Requester: request packets sent again after a timeout, a NAK or an RNR wait. */
    RETRANSMITTED_PACKETS("request packets retransmitted"),
    /** Requester: local ACK timer expiries. */
    TIMEOUTS("local ACK timeouts"),
    /** Requester: retries started (timeouts, sequence NAKs, implied NAKs), each one taken off the retry count. */
    RETRIES("transport retries"),
    /** Requester: ACKs received that were accepted. */
    ACKS_RECEIVED("ACKs received"),
    /** Requester: RDMA READ response packets placed. */
    READ_RESPONSES_RECEIVED("READ responses placed"),
    /** Requester: PSN sequence error NAKs received. */
    SEQUENCE_NAKS_RECEIVED("sequence NAKs received"),
    /** Requester: RNR NAKs received. */
    RNR_NAKS_RECEIVED("RNR NAKs received"),
    /** Requester: invalid request, remote access and remote operational error NAKs received. */
    ERROR_NAKS_RECEIVED("error NAKs received"),
    /** Requester: responses ignored (stale, duplicate, out of order, or for nothing outstanding). */
    IGNORED_RESPONSES("responses ignored"),
    /** Responder: request packets received in sequence and executed. */
    REQUESTS_EXECUTED("requests executed"),
    /** Responder: duplicate request packets (PSN behind the expected one). */
    DUPLICATE_REQUESTS("duplicate requests"),
    /** Responder: request packets ahead of the expected PSN. */
    OUT_OF_SEQUENCE_REQUESTS("out-of-sequence requests"),
    /** Responder: duplicate RDMA READs answered again from memory. */
    READS_REPLAYED("duplicate READs replayed"),
    /** Responder: ACK packets sent. */
    ACKS_SENT("ACKs sent"),
    /** Responder: RDMA READ response packets sent. */
    READ_RESPONSES_SENT("READ responses sent"),
    /** Responder: PSN sequence error NAKs sent. */
    SEQUENCE_NAKS_SENT("sequence NAKs sent"),
    /** Responder: RNR NAKs sent. */
    RNR_NAKS_SENT("RNR NAKs sent"),
    /** Responder: invalid request and remote access error NAKs sent. */
    ERROR_NAKS_SENT("error NAKs sent"),
    /** Both: packets dropped unprocessed (malformed, wrong direction, QP in error, no room for a response). */
    DROPPED_PACKETS("packets dropped");

    private static final RcCounter[] VALUES = values();

    /** How many counters there are. */
    public static final int COUNT = VALUES.length;

    private final String label;

    RcCounter(String label) {
        this.label = label;
    }

    /** @return a human-readable label */
    public String label() {
        return label;
    }

    /**
     * @param id an ordinal
     * @return its counter
     */
    public static RcCounter of(int id) {
        return VALUES[id];
    }
}
