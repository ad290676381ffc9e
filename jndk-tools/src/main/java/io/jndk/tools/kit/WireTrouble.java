package io.jndk.tools.kit;

import io.jndk.api.NdkAdapter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device counters that say a run's wire had trouble ({@link NdkAdapter#deviceCounters()}): retransmissions, ACK
 * timeouts, NAKs, packets dropped or refused. A benchmark row carries their growth over its run, so that a slow row
 * shows whether the wire lost packets or the machine was busy. Transports without device counters (loopback, iwarp)
 * have none.
 */
public final class WireTrouble {
    /** The counters looked at, in the order they are reported. */
    public static final List<String> NAMES = List.of("rc_retransmitted_packets", "rc_timeouts", "rc_rnr_naks_received",
        "rc_sequence_naks_received", "rc_error_naks_received", "rc_duplicate_requests", "rc_out_of_sequence_requests",
        "rc_dropped_packets", "send_drops", "send_failed", "icrc_bad", "unknown_qpn", "malformed", "dropped_closed");

    private WireTrouble() {}

    /**
     * The trouble counters summed over {@code devices} (one adapter per device: adapters on the same device read the
     * same values); empty when their transport keeps no device counters.
     */
    public static Map<String, Long> sample(List<NdkAdapter> devices) {
        Map<String, Long> sum = new LinkedHashMap<>();
        for (NdkAdapter a : devices) {
            Map<String, Long> d = a.deviceCounters();
            for (String n : NAMES) {
                Long v = d.get(n);
                if (v != null) {
                    sum.merge(n, v, Long::sum);
                }
            }
        }
        return sum;
    }

    /** Each counter's growth from {@code before} to {@code after} (the names of {@code after}). */
    public static Map<String, Long> growth(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> g = new LinkedHashMap<>();
        after.forEach((n, v) -> g.put(n, v - before.getOrDefault(n, 0L)));
        return g;
    }

    /** The counters that grew, "N name" separated by commas; empty when none did. */
    public static String text(Map<String, Long> growth) {
        StringBuilder sb = new StringBuilder();
        growth.forEach((n, v) -> {
            if (v != 0) {
                sb.append(sb.isEmpty() ? "" : ", ").append(v).append(' ').append(n);
            }
        });
        return sb.toString();
    }

    /** {@code ,"wire":{...}} for a JSON record (every counter, zeros too), or nothing when there are none. */
    public static String jsonField(Map<String, Long> growth) {
        return growth.isEmpty() ? "" : ",\"wire\":" + Json.numbers(growth);
    }
}
