package io.jndk.tools.kit;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkResultEx;
import java.util.HashMap;
import java.util.Map;

/** Setting up one end of a tool's connection (public API only). */
public final class Session {
    private Session() {}

    /** {@code n} result slots. */
    public static NdkResultEx[] results(int n) {
        NdkResultEx[] r = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            r[i] = new NdkResultEx();
        }
        return r;
    }

    /** A CQ of {@code depth} without a notification callback. */
    public static NdkCq cq(NdkAdapter adapter, int depth) {
        return Sync.create("CreateCq", (cc, c, o) -> adapter.createCq(depth, null, null, null, cc, c, o));
    }

    /** The adapter options of a run with {@code --crc} and {@code --pcap}. */
    public static Map<String, String> options(boolean crc, String pcap) {
        return options(crc, pcap, Map.of());
    }

    /** The adapter options of a run: {@code extra} (perf's {@code -O KEY=VALUE}), then crc and pcap over them. */
    public static Map<String, String> options(boolean crc, String pcap, Map<String, String> extra) {
        Map<String, String> o = new HashMap<>(extra);
        if (crc) {
            o.put("crc", "true");
        }
        if (pcap != null) {
            o.put("pcap", pcap);
        }
        return o;
    }
}
