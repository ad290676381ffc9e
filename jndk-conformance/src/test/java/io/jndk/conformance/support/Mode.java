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
    /** Open parameters for an adapter of this mode on 127.0.0.1, with extra options. */
    public NdkOpenParameters params(Map<String, String> extra) {
        var opts = new java.util.HashMap<String, String>(extra);
        if (pend) {
            opts.put("pend", "always");
        }
        return NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress()).withOptions(opts);
    }

    @Override
    public String toString() {
        return transport + (pend ? "+pend" : "");
    }
}
