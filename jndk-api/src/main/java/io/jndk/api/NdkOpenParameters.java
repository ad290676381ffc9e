package io.jndk.api;

import java.net.InetAddress;
import java.util.Map;

/**
 * {@code NDIS_OPEN_NDK_ADAPTER_PARAMETERS}, plus the jndk choices: which transport and which local IP
 * address the adapter owns.
 *
 * @param version major version and the lowest minor version the consumer accepts
 * @param transport {@code loopback} (in-JVM) or {@code iwarp} (TCP)
 * @param address the IP address of this adapter (its listeners and connections use it)
 * @param options provider options (documented in docs/DECISIONS.md), e.g. {@code pend=always}
 */
public record NdkOpenParameters(NdkVersion version, String transport, InetAddress address, Map<String, String> options) {
    /** Parameters for NDKPI 2.1 on the given transport and address. */
    public static NdkOpenParameters of(String transport, InetAddress address) {
        return new NdkOpenParameters(NdkVersion.V2_1, transport, address, Map.of());
    }

    /** A copy with another requested version. */
    public NdkOpenParameters withVersion(NdkVersion v) {
        return new NdkOpenParameters(v, transport, address, options);
    }

    /** A copy with other options. */
    public NdkOpenParameters withOptions(Map<String, String> o) {
        return new NdkOpenParameters(version, transport, address, Map.copyOf(o));
    }

    /** An option's value, or {@code def}. */
    public String option(String key, String def) {
        return options.getOrDefault(key, def);
    }
}
