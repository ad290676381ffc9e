package io.jndk.tools;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.tools.kit.Json;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jndk info}: every NDK_ADAPTER_INFO field, the transports, the counters. */
@Command(name = "info", mixinStandardHelpOptions = true, description = "Show adapter info, transports and counters.",
        footer = {"", "Example:", "  ./jndk info --transport loopback --json"})
final class InfoCommand implements Callable<Integer> {
    @Option(names = "--transport", defaultValue = "loopback", description = "Transport (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        try (NdkAdapter a = Ndk.open(NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress()))) {
            NdkAdapterInfo info = a.info();
            StringBuilder sb = new StringBuilder();
            if (json) {
                sb.append("{\"transports\":").append(Json.list(Ndk.transports())).append(",\"adapterInfo\":{");
                boolean first = true;
                for (RecordComponent rc : NdkAdapterInfo.class.getRecordComponents()) {
                    sb.append(first ? "" : ",").append('"').append(rc.getName()).append("\":");
                    Object v = rc.getAccessor().invoke(info);
                    sb.append(v instanceof Number ? v.toString() : "\"" + v + "\"");
                    first = false;
                }
                sb.append("},\"counters\":{");
                first = true;
                for (var e : a.counters().asMap().entrySet()) {
                    sb.append(first ? "" : ",").append('"').append(e.getKey().name().toLowerCase()).append("\":").append(e.getValue());
                    first = false;
                }
                sb.append("}}");
            } else {
                sb.append("transports installed: ").append(String.join(", ", Ndk.transports())).append('\n');
                sb.append("adapter: ").append(transport).append(" on ").append(InetAddress.getLoopbackAddress().getHostAddress())
                        .append(", NDKPI ").append(a.version()).append("\n\nNDK_ADAPTER_INFO\n");
                for (RecordComponent rc : NdkAdapterInfo.class.getRecordComponents()) {
                    Object v = rc.getAccessor().invoke(info);
                    String shown = rc.getName().equals("adapterFlags") ? String.format("0x%08X", (Integer) v) : String.valueOf(v);
                    sb.append(String.format("  %-24s %s%n", rc.getName(), shown));
                }
                sb.append("\ncounters\n");
                for (NdkCounter c : NdkCounter.values()) {
                    sb.append(String.format("  %-28s %d%n", c.label, a.counters().get(c)));
                }
            }
            System.out.println(sb);
        }
        return 0;
    }
}
