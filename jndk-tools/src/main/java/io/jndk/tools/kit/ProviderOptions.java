package io.jndk.tools.kit;

import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkObjectType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The provider options a tool's {@code -O KEY=VALUE} may set, with what each takes. The provider reads its options
 * where it needs them and ignores keys it does not know, so a misspelt key ({@code -O pol=true}) or value
 * ({@code -O poll=yes}, read as false) would silently change a benchmark; the tools check every {@code -O} against
 * this catalogue before they open an adapter. The keys are the ones docs/TRANSPORTS.md and docs/DECISIONS.md
 * describe: the adapter's (every transport), the iwarp transport's, the roce transport's ({@code RoceOptions}), and the
 * {@link NdkAdapterInfo} field overrides. The check is per transport: a key of another transport is refused with the
 * transport it belongs to.
 */
public final class ProviderOptions {
    private ProviderOptions() {}

    /** What a key takes: a description for the message and the test of a value. */
    private record Kind(String takes, Predicate<String> valid) {}

    private static final Kind BOOLEAN = new Kind("true or false", v -> v.equals("true") || v.equals("false"));
    /** A limit or an NDK_ADAPTER_INFO ULONG: 0 to 0xFFFFFFFF, decimal or hexadecimal (the provider's reading). */
    private static final Kind COUNT = new Kind("a whole number from 0 to 4294967295 (0xFFFFFFFF), decimal or 0x"
            + " hexadecimal", v -> number(v, 0, 0xFFFF_FFFFL));
    private static final Kind ULONG64 = new Kind("a whole number from 0 to " + Long.MAX_VALUE + ", decimal or 0x"
            + " hexadecimal", v -> number(v, 0, Long.MAX_VALUE));
    /** These the tools take in decimal only (stricter than the transport, which also reads 0x: spi.OptionValues). */
    private static final Kind MILLIS = new Kind("milliseconds, a decimal number from 1 to " + Long.MAX_VALUE,
            v -> decimal(v, 1, Long.MAX_VALUE));
    private static final Kind BYTES = new Kind("bytes, a decimal number from 0 to " + Integer.MAX_VALUE
            + " (0: the system's)", v -> decimal(v, 0, Integer.MAX_VALUE));
    private static final Kind LONG = new Kind("a decimal number from 0 to " + Long.MAX_VALUE,
            v -> decimal(v, 0, Long.MAX_VALUE));
    private static final Kind DECIMAL_COUNT = new Kind("a decimal number from 0 to " + Integer.MAX_VALUE,
            v -> decimal(v, 0, Integer.MAX_VALUE));
    private static final Kind FILE = new Kind("a file name", v -> !v.isBlank());

    /** The options every transport reads. */
    private static final Map<String, Kind> ADAPTER = new LinkedHashMap<>();
    /** The options only the iwarp transport reads. */
    private static final Map<String, Kind> IWARP = new LinkedHashMap<>();
    /** The options only the roce transport reads (its RoceOptions; the device-level ones from the first adapter). */
    private static final Map<String, Kind> ROCE = new LinkedHashMap<>();
    /** Each transport's own options, by transport name (loopback has none beyond the adapter's). */
    private static final Map<String, Map<String, Kind>> OWN = new LinkedHashMap<>();

    static {
        ADAPTER.put("notify", new Kind("dispatcher or inline", v -> v.equals("dispatcher") || v.equals("inline")));
        ADAPTER.put("pend", new Kind("never or always", v -> v.equals("never") || v.equals("always")));
        ADAPTER.put("mbean", BOOLEAN);
        ADAPTER.put("connect.timeout.ms", new Kind("milliseconds, a whole number from 1 to 4294967295", v -> number(v, 1,
                0xFFFF_FFFFL)));
        ADAPTER.put("accept.timeout.ms", MILLIS);
        ADAPTER.put("limit.tokens", COUNT);
        ADAPTER.put("limit.lampages", COUNT);
        ADAPTER.put("limit.registered.bytes", ULONG64);
        for (NdkObjectType t : NdkObjectType.values()) {
            if (t != NdkObjectType.UNDEFINED) {
                ADAPTER.put("limit." + t.name().toLowerCase(Locale.ROOT), COUNT);
            }
        }
        for (RecordComponent rc : NdkAdapterInfo.class.getRecordComponents()) {
            if (rc.getType() == int.class) {
                ADAPTER.put(rc.getName(), COUNT);
            } else if (rc.getType() == long.class) {
                ADAPTER.put(rc.getName(), ULONG64);
            }
        }
        IWARP.put("crc", BOOLEAN);
        IWARP.put("poll", BOOLEAN);
        IWARP.put("poll.spin.us", new Kind("microseconds, a decimal number from 0 to 60000000", v -> decimal(v, 0,
            60_000_000L)));
        IWARP.put("engine", new Kind("shared or threads", v -> v.equals("shared") || v.equals("threads")));
        IWARP.put("engine.loops", new Kind("a number of engine loops, a decimal number from 1 to 256",
            v -> decimal(v, 1, 256)));
        IWARP.put("engine.spin.us", new Kind("microseconds an engine loop polls after work before it waits, a decimal "
            + "number from 0 to 1000", v -> decimal(v, 0, 1000)));
        IWARP.put("engine.yield.us", new Kind("microseconds of an engine loop's turn after which it yields its CPU, a "
            + "decimal number from 0 (never) to 1000000", v -> decimal(v, 0, 1_000_000)));
        IWARP.put("threads", new Kind("platform (virtual threads were removed)", v -> v.equals("platform")));
        IWARP.put("mss", new Kind("an FPDU size in bytes, a decimal number from 64 to 65536", v -> decimal(v, 64, 65536)));
        IWARP.put("mpa.timeout.ms", MILLIS);
        IWARP.put("mpa.hold.ms", new Kind("milliseconds, a decimal number from 0 to " + Long.MAX_VALUE / 2_000_000,
            v -> decimal(v, 0, Long.MAX_VALUE / 2_000_000)));
        IWARP.put("tcp.sndbuf", BYTES);
        IWARP.put("tcp.rcvbuf", BYTES);
        IWARP.put("limit.connections", DECIMAL_COUNT);
        IWARP.put("pcap", FILE);
        IWARP.put("pcap.max.bytes", LONG);
        ROCE.put("udp.port", new Kind("a UDP port, a decimal number from 1 to 65535 (default 4791)",
            v -> decimal(v, 1, 65535)));
        ROCE.put("link", new Kind("udp (a UDP socket, the default) or a frame link, dgram:...",
            v -> v.equals("udp") || v.startsWith("dgram:") && v.length() > 6));
        ROCE.put("mtu", new Kind("0 (from the interface's MTU), 256, 512, 1024, 2048 or 4096",
            v -> List.of("0", "256", "512", "1024", "2048", "4096").contains(v)));
        ROCE.put("ack.timeout", new Kind("an ACK timeout exponent (4.096 us x 2^t), a decimal number from 1 to 31",
            v -> decimal(v, 1, 31)));
        ROCE.put("retry", new Kind("a retry count, a decimal number from 0 to 7", v -> decimal(v, 0, 7)));
        ROCE.put("rnr.retry", new Kind("an RNR retry count, a decimal number from 0 to 7 (7: for ever)",
            v -> decimal(v, 0, 7)));
        ROCE.put("rnr.timer", new Kind("an RNR NAK timer code, a decimal number from 0 to 31", v -> decimal(v, 0, 31)));
        ROCE.put("sq.depth", new Kind("requests on the wire per QP, a decimal number from 1 to 65536",
            v -> decimal(v, 1, 1 << 16)));
        ROCE.put("icrc.ipv4", new Kind("strict or lenient", v -> v.equals("strict") || v.equals("lenient")));
        ROCE.put("udp.buffer", BYTES);
        ROCE.put("udp.peer.port", new Kind("a UDP port packets are sent to, a decimal number from 1 to 65535 (default:"
                + " udp.port)", v -> decimal(v, 1, 65535)));
        ROCE.put("udp.send", new Kind("connected (a socket per peer address, default) or bound (the device's port)",
            v -> v.equals("connected") || v.equals("bound")));
        ROCE.put("pcap", FILE);
        ROCE.put("poll.spin.us", new Kind("microseconds, a decimal number from 0 to 10000000", v -> decimal(v, 0,
            10_000_000L)));
        ROCE.put("poll", BOOLEAN);
        OWN.put("iwarp", IWARP);
        OWN.put("roce", ROCE);
    }

    /**
     * Checks every option for {@code transport}; throws an {@link IllegalArgumentException} (a usage error) that
     * names the key or value and lists what is valid: the keys when the key is unknown, the values when the value is.
     */
    public static void check(Map<String, String> options, String transport) {
        Map<String, Kind> own = OWN.getOrDefault(transport, Map.of());
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue().trim();
            Kind kind = ADAPTER.containsKey(key) ? ADAPTER.get(key) : own.get(key);
            if (kind == null) {
                for (Map.Entry<String, Map<String, Kind>> other : OWN.entrySet()) {
                    if (other.getValue().containsKey(key)) {
                        throw new IllegalArgumentException("-O " + key + "=" + e.getValue() + " is "
                                + Session.article(other.getKey()) + " " + other.getKey() + " transport option and changes nothing on " + transport + " (add --transport "
                                + other.getKey() + ", or leave it out)");
                    }
                }
                throw new IllegalArgumentException("unknown provider option -O " + key + "=" + e.getValue() + "; the options"
                        + " are: " + String.join(", ", keys(transport)) + " (docs/TRANSPORTS.md)");
            }
            if (!kind.valid().test(value)) {
                throw new IllegalArgumentException("-O " + key + "=" + e.getValue() + ": " + key + " takes " + kind.takes());
            }
        }
    }

    /** Each transport's own keys, by transport name (the keys only that transport reads). */
    static Map<String, List<String>> transportKeys() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        OWN.forEach((t, keys) -> m.put(t, List.copyOf(keys.keySet())));
        return m;
    }

    /** The keys valid for {@code transport}, as the message lists them (the families summed up). */
    static List<String> keys(String transport) {
        List<String> k = new ArrayList<>(List.of("notify", "pend", "mbean", "connect.timeout.ms", "accept.timeout.ms",
                "limit.tokens", "limit.lampages", "limit.registered.bytes", "limit.qp|cq|mr|mw|pd|srq|connector|listener|...",
                "an NDK_ADAPTER_INFO field (maxCqDepth, maxInlineDataSize, ...)"));
        k.addAll(OWN.getOrDefault(transport, Map.of()).keySet());
        return k;
    }

    private static boolean number(String v, long min, long max) {
        if (v.startsWith("+") || v.startsWith("-")) {
            return false;
        }
        try {
            long n = Long.decode(v);
            return n >= min && n <= max;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean decimal(String v, long min, long max) {
        return v.matches("[0-9]{1,19}") && number(v, min, max);
    }
}
