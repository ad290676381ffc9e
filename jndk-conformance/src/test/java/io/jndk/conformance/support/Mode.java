package io.jndk.conformance.support;

import io.jndk.api.NdkOpenParameters;
import java.net.InetAddress;
import java.util.Map;

/**
 * One permutation the conformance suite runs in: a transport, and whether the provider is told to take
 * the pending path ({@code STATUS_PENDING} plus completion callback) for every function that may pend.
 *
 * @param transport transport name
 * @param pend force the pending path
 */
public record Mode(String transport, boolean pend) {
    /**
     * The private data fields of the IB CM messages the {@code roce} transport carries connection data in: REQ (after
     * rdma_cm's header), REP and REJ. IB CM has no length field: the peer reads the whole field.
     */
    public static final int REQ = 56, REP = 196, REJ = 148;

    /**
     * Private data as the peer reads it: what was sent, and over {@code roce} the rest of the CM message's field as
     * zeros (as on every RoCE provider; NDKPI leaves consumers to encode their own lengths).
     */
    public byte[] carried(byte[] sent, int field) {
        byte[] s = sent == null ? new byte[0] : sent;
        return transport.equals("roce") ? java.util.Arrays.copyOf(s, Math.max(field, s.length)) : s;
    }

    /**
     * The local ACK timeout the suite's roce adapters take unless a test gives its own ({@code ack.timeout}, 4.096 us x
     * 2^17, about 0.54 s; the device's default is 14, 67 ms): the suite checks what a request does, not how soon a
     * loaded two-core machine makes a requester resend (a resend is a duplicate that changes the peer's counters) or
     * gives up (eight timeouts in a row without an answer). {@code RoceLossTest} sets the default's own value.
     */
    public static final String ROCE_ACK_TIMEOUT = "17";

    /** Open parameters for an adapter of this mode on 127.0.0.1, with extra options. */
    public NdkOpenParameters params(Map<String, String> extra) {
        var opts = new java.util.HashMap<String, String>(extra);
        if (pend) {
            opts.put("pend", "always");
        }
        if (transport.equals("roce")) {
            opts.putIfAbsent("ack.timeout", ROCE_ACK_TIMEOUT);
        }
        return NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress()).withOptions(opts);
    }

    @Override
    public String toString() {
        return transport + (pend ? "+pend" : "");
    }
}
