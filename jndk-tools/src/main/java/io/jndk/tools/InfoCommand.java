package io.jndk.tools;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkRdmaTechnology;
import io.jndk.tools.kit.Json;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Transports;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jndk info}: the adapter the way {@code ibv_devinfo} shows an RDMA device (hca_id, transport, GUIDs, vendor,
 * the port with its state, MTU and link layer; {@code -v} the device attributes that have an NDK counterpart and the
 * decoded capability flags; {@code -l} the devices), then NDK's own view beside it: every NDK_ADAPTER_INFO field with
 * the adapter flags decoded, the transports installed and the counters. jndk's devices are its transports:
 * {@code jndk0} is iwarp (the device perftest's header names), {@code jndk_lo} loopback (as siw's {@code siw_lo}),
 * {@code jndk_roce} roce (RoCEv2). {@code --transport all} shows every installed device one after another, as
 * ibv_devinfo without {@code -d} does, then each transport's RDMA technology.
 */
@Command(name = "info", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show an adapter as ibv_devinfo shows a device, then its NDK_ADAPTER_INFO, transports and counters."},
        footer = {"", "Examples:", "  ./jndk info                       loopback (jndk_lo)",
                "  ./jndk info -v --transport iwarp  jndk0 with every attribute and the decoded flags",
                "  ./jndk info -l                    the devices", "  ./jndk info --transport loopback --json",
                "  ./jndk info --transport all       every device, and each transport's RDMA technology",
                "  ./jndk info --transport roce      jndk_roce (RoCEv2 on 127.0.0.1, UDP port 4791)"})
final class InfoCommand implements Callable<Integer> {
    /** ibv_device_cap_flags bits that hold for every jndk adapter (memory windows, fast registration). */
    static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;

    @Option(names = "--transport", defaultValue = "loopback", description = "Transport: loopback, iwarp, roce, or all"
            + " (every installed one, with its RDMA technology) (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "The device by its name, as ibv_devinfo -d:"
            + " jndk0 (iwarp), jndk_roce (roce) or jndk_lo (loopback); replaces --transport.")
    String device;

    @Option(names = {"-v", "--verbose"}, description = "Also every device attribute with an NDK counterpart, as"
            + " ibv_devinfo -v.")
    boolean verbose;

    @Option(names = {"-l", "--list"}, description = "Only list the devices (the transports installed), as ibv_devinfo -l.")
    boolean list;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    /** The device name of a transport. */
    static String deviceName(String transport) {
        return Transports.device(transport);
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            List<String> t = new ArrayList<>(Ndk.transports());
            System.out.println(t.size() + " HCA" + (t.size() == 1 ? "" : "s") + " found:");
            for (String name : t) {
                System.out.println("\t" + deviceName(name));
            }
            return 0;
        }
        String chosen = transport;
        if (device != null) {
            chosen = null;
            for (String name : Ndk.transports()) {
                if (deviceName(name).equals(device)) {
                    chosen = name;
                }
            }
            if (chosen == null) {
                System.err.println("jndk info: no device " + device + " (./jndk info -l lists them)");
                return 2;
            }
        }
        if (device == null && chosen.equals("all")) {
            return all();
        }
        if (!Ndk.transports().contains(chosen)) {
            System.err.println("jndk info: no transport " + chosen + " (installed: " + String.join(", ", Ndk.transports())
                    + ")");
            return 2;
        }
        InetAddress at = InetAddress.getLoopbackAddress();
        try (NdkAdapter a = Session.open(chosen, at, Map.of())) {
            NdkAdapterInfo info = a.info();
            System.out.println(json ? json(chosen, a, info) : text(chosen, a, info, at));
        }
        return 0;
    }

    /**
     * {@code --transport all}: each installed transport's device block (as ibv_devinfo prints every device without
     * {@code -d}), then one line a transport with its device and NDK_ADAPTER_INFO.RdmaTechnology; with {@code --json}
     * one object with a record a transport. A transport whose adapter cannot open (a roce device's UDP port taken by
     * another process, say) is listed with the reason; the status is then 1.
     */
    private int all() {
        InetAddress at = InetAddress.getLoopbackAddress();
        StringBuilder blocks = new StringBuilder();
        StringBuilder table = new StringBuilder();
        List<String> names = Ndk.transports();
        StringBuilder js = new StringBuilder("{\"transports\":").append(Json.list(names)).append(",\"devices\":[");
        int status = 0;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            js.append(i == 0 ? "" : ",").append("{\"transport\":").append(Json.str(name)).append(",\"hca_id\":")
                    .append(Json.str(deviceName(name)));
            try (NdkAdapter a = Session.open(name, at, Map.of())) {
                NdkAdapterInfo info = a.info();
                blocks.append(deviceText(name, info, at)).append('\n');
                table.append(String.format(Locale.ROOT, "  %-10s %-10s %d (%s)%n", name, deviceName(name),
                        info.rdmaTechnology(), technology(info.rdmaTechnology())));
                js.append(",\"rdmaTechnology\":").append(info.rdmaTechnology()).append(",\"technology\":")
                        .append(Json.str(technology(info.rdmaTechnology()))).append('}');
            } catch (RuntimeException e) {
                status = 1;
                table.append(String.format(Locale.ROOT, "  %-10s %-10s %s%n", name, deviceName(name), e.getMessage()));
                js.append(",\"error\":").append(Json.str(String.valueOf(e.getMessage()))).append('}');
            }
        }
        if (json) {
            System.out.println(js.append("]}"));
        } else {
            System.out.print(blocks);
            System.out.printf(Locale.ROOT, "%d transport%s installed (NDK_ADAPTER_INFO.RdmaTechnology):%n", names.size(),
                    names.size() == 1 ? "" : "s");
            System.out.print(table);
        }
        return status;
    }

    private String text(String transport, NdkAdapter a, NdkAdapterInfo info, InetAddress at) throws Exception {
        StringBuilder sb = new StringBuilder(deviceText(transport, info, at));
        sb.append("\nNDK adapter: ").append(transport).append(" on ").append(at.getHostAddress()).append(", NDKPI ")
                .append(a.version()).append(" (transports installed: ").append(String.join(", ", Ndk.transports()))
                .append(")\n\nNDK_ADAPTER_INFO\n");
        for (RecordComponent rc : NdkAdapterInfo.class.getRecordComponents()) {
            Object v = rc.getAccessor().invoke(info);
            String shown = switch (rc.getName()) {
                case "adapterFlags" -> String.format("0x%08X", (Integer) v);
                case "rdmaTechnology" -> v + " (" + technology((Integer) v) + ")";
                default -> String.valueOf(v);
            };
            sb.append(String.format("  %-24s %s%n", rc.getName(), shown));
            if (rc.getName().equals("adapterFlags")) {
                for (String f : adapterFlags(info.adapterFlags())) {
                    sb.append(String.format("  %-24s %s%n", "", f));
                }
            }
        }
        sb.append("\ncounters\n");
        for (NdkCounter c : NdkCounter.values()) {
            sb.append(String.format("  %-28s %d%n", c.label, a.counters().get(c)));
        }
        Map<String, Long> device = a.deviceCounters();
        if (!device.isEmpty()) {
            sb.append("\ndevice counters (the whole ").append(transport).append(" device at this address)\n");
            device.forEach((name, value) -> sb.append(String.format("  %-36s %d%n", name, value)));
        }
        return sb.toString();
    }

    /** The device block as ibv_devinfo prints it (with {@code -v} every attribute). */
    private String deviceText(String transport, NdkAdapterInfo info, InetAddress at) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : device(transport, info, at).entrySet()) {
            String key = e.getKey();
            if (key.equals("hca_id")) {
                sb.append("hca_id:\t").append(e.getValue()).append('\n');
                continue;
            }
            if (key.equals("port")) {
                sb.append("\t\tport:\t1\n");
                continue;
            }
            boolean portField = key.startsWith("port.");
            String name = portField ? key.substring(5) : key;
            if (name.startsWith("-") && !verbose) {
                continue;
            }
            name = name.substring(name.startsWith("-") ? 1 : 0);
            sb.append(portField ? "\t\t\t" : "\t").append(name).append(':').append(pad(name, portField)).append(e.getValue())
                    .append('\n');
        }
        return sb.toString();
    }

    /** ibv_devinfo's alignment: tabs from the end of "name:" to column 40 (device fields) or 48 (port fields). */
    static String pad(String name, boolean port) {
        int col = (port ? 24 : 8) + name.length() + 1;
        int target = port ? 48 : 40;
        StringBuilder b = new StringBuilder("\t");
        col = (col / 8 + 1) * 8;
        while (col < target) {
            b.append('\t');
            col += 8;
        }
        return b.toString();
    }

    /**
     * The device as ibv_devinfo prints one, field by field in its order; fields only {@code -v} shows start with
     * "-"; "port." fields belong to port 1. The attributes are NDK_ADAPTER_INFO's, under their verbs names.
     */
    static Map<String, String> device(String transport, NdkAdapterInfo info, InetAddress at) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("hca_id", deviceName(transport));
        int tech = info.rdmaTechnology();
        d.put("transport", switch (tech) {
            case NdkRdmaTechnology.INFINIBAND, NdkRdmaTechnology.ROCE, NdkRdmaTechnology.ROCE_V2 -> "InfiniBand (0)";
            default -> "iWARP (1)";
        });
        d.put("fw_ver", "0.1.0");
        String guid = guid(at);
        d.put("node_guid", guid);
        d.put("sys_image_guid", guid);
        d.put("vendor_id", String.format("0x%04x", info.vendorId()));
        d.put("vendor_part_id", Integer.toString(info.deviceId()));
        d.put("hw_ver", "0x0");
        d.put("phys_port_cnt", "1");
        d.put("-max_mr_size", String.format("0x%x", info.maxRegistrationSize()));
        d.put("-page_size_cap", "0x1000");
        d.put("-max_qp_wr", Integer.toString(Math.min(info.maxInitiatorQueueDepth(), info.maxReceiveQueueDepth())));
        int caps = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_MGT_EXTENSIONS;
        d.put("-device_cap_flags", String.format("0x%08x", caps) + "\n\t\t\t\t\tMEM_WINDOW\n\t\t\t\t\tMEM_MGT_EXTENSIONS");
        d.put("-max_sge", Integer.toString(info.maxInitiatorRequestSge()));
        d.put("-max_sge_rd", Integer.toString(info.maxReadRequestSge()));
        d.put("-max_cqe", Integer.toString(info.maxCqDepth()));
        d.put("-max_qp_rd_atom", Integer.toString(info.maxInboundReadLimit()));
        d.put("-max_qp_init_rd_atom", Integer.toString(info.maxOutboundReadLimit()));
        d.put("-atomic_cap", "ATOMIC_NONE (0)");
        d.put("-max_srq_wr", Integer.toString(info.maxSrqDepth()));
        d.put("-max_srq_sge", Integer.toString(info.maxReceiveRequestSge()));
        d.put("port", "1");
        d.put("port.state", "PORT_ACTIVE (4)");
        // roce: the device's MTU on lo (the interface's MTU less the headers, at most 4096, as rxe); iwarp as siw
        String mtu = transport.equals("roce") ? "4096 (5)" : "1024 (3)";
        d.put("port.max_mtu", mtu);
        d.put("port.active_mtu", mtu);
        d.put("port.sm_lid", "0");
        d.put("port.port_lid", "0");
        d.put("port.port_lmc", "0x00");
        d.put("port.link_layer", transport.equals("loopback") ? "Unspecified (in-JVM loopback)" : "Ethernet");
        d.put("port.-max_msg_sz", String.format("0x%x", info.maxTransferLength()));
        d.put("port.-gid_tbl_len", "1");
        return d;
    }

    /** An EUI-64 style GUID from the adapter's address, as siw derives one from its MAC. */
    static String guid(InetAddress at) {
        byte[] a = at.getAddress();
        byte[] g = new byte[8];
        for (int i = 0; i < Math.min(8, a.length); i++) {
            g[8 - Math.min(8, a.length) + i] = a[a.length - Math.min(8, a.length) + i];
        }
        return String.format("%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    }

    /** The names of the NDK_ADAPTER_FLAG_* bits set in {@code flags}, unknown bits in hex. */
    static List<String> adapterFlags(int flags) {
        List<String> names = new ArrayList<>();
        int known = 0;
        for (java.lang.reflect.Field f : NdkAdapterFlags.class.getFields()) {
            if (f.getType() == int.class && java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                try {
                    int bit = f.getInt(null);
                    if (bit != 0 && (flags & bit) == bit) {
                        names.add(f.getName());
                        known |= bit;
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        if ((flags & ~known) != 0) {
            names.add(String.format("0x%08X (unknown)", flags & ~known));
        }
        return names;
    }

    private static String technology(int t) {
        return switch (t) {
            case NdkRdmaTechnology.IWARP -> "IWARP";
            case NdkRdmaTechnology.INFINIBAND -> "INFINIBAND";
            case NdkRdmaTechnology.ROCE -> "ROCE";
            case NdkRdmaTechnology.ROCE_V2 -> "ROCE_V2";
            default -> "UNDEFINED";
        };
    }

    private String json(String transport, NdkAdapter a, NdkAdapterInfo info) throws Exception {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"transports\":").append(Json.list(Ndk.transports())).append(",\"device\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : device(transport, info, InetAddress.getLoopbackAddress()).entrySet()) {
            if (e.getKey().equals("port")) {
                continue;
            }
            String key = e.getKey().replace("-", "").replace("port.", "port_");
            String value = e.getValue().split("\n")[0];
            sb.append(first ? "" : ",").append(Json.str(key)).append(':').append(Json.str(value));
            first = false;
        }
        sb.append("},\"adapterInfo\":{");
        first = true;
        for (RecordComponent rc : NdkAdapterInfo.class.getRecordComponents()) {
            sb.append(first ? "" : ",").append('"').append(rc.getName()).append("\":");
            Object v = rc.getAccessor().invoke(info);
            sb.append(v instanceof Number ? v.toString() : "\"" + v + "\"");
            first = false;
        }
        sb.append("},\"adapterFlags\":").append(Json.list(adapterFlags(info.adapterFlags()))).append(",\"counters\":{");
        first = true;
        for (var e : a.counters().asMap().entrySet()) {
            sb.append(first ? "" : ",").append('"').append(e.getKey().name().toLowerCase(Locale.ROOT)).append("\":")
                    .append(e.getValue());
            first = false;
        }
        return sb.append("},\"deviceCounters\":").append(Json.numbers(a.deviceCounters())).append('}').toString();
    }
}
