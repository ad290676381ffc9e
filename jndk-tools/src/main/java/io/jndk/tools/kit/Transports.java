package io.jndk.tools.kit;

import java.util.List;

/**
 * The transports the tools run over and what each can do: {@code loopback} joins QPs of one process; the wire
 * transports, {@code iwarp} (MPA over TCP) and {@code roce} (RoCEv2 over UDP port 4791), reach other processes and
 * hosts. {@code --crc} (MPA CRC32c) is iwarp's alone; {@code --pcap} captures on iwarp and roce.
 */
public final class Transports {
    private Transports() {}

    /** The transports that connect processes (rping, perftest, the ND tools, perf's --server and --client). */
    public static final List<String> WIRE = List.of("iwarp", "roce");
    /** Every transport a tool knows, loopback first. */
    public static final List<String> ALL = List.of("loopback", "iwarp", "roce");

    /**
     * The device name of a transport, as {@code ibv_devinfo} and perftest show it: {@code jndk0} is iwarp (the device
     * perftest's header names), {@code jndk_lo} loopback (as siw's {@code siw_lo}), {@code jndk_roce} roce.
     */
    public static String device(String transport) {
        return transport.equals("iwarp") ? "jndk0" : "jndk_" + (transport.equals("loopback") ? "lo" : transport);
    }

    /**
     * Checks {@code --transport} of a tool that runs between processes; throws a usage {@link Failure}
     * ("unknown --transport X (iwarp or roce)").
     */
    public static String wire(String transport) {
        if (!WIRE.contains(transport)) {
            throw new Failure(Failure.Kind.USAGE, "unknown --transport " + transport + " (" + String.join(" or ", WIRE)
                    + ")");
        }
        return transport;
    }

    /**
     * The problem with {@code --crc} or {@code --pcap} on {@code transport}, or null: MPA CRC32c is the iwarp
     * transport's alone; a capture is iwarp's (FPDUs) and roce's (RoCEv2 packets).
     */
    public static String iwarpOnly(String transport, boolean crc, String pcap) {
        if (transport.equals("iwarp")) {
            return null;
        }
        String why = transport.equals("roce") ? "the roce transport has none (RoCEv2 packets carry an ICRC always)"
                : "the " + transport + " transport has none";
        if (pcap != null && !transport.equals("roce")) {
            return "--pcap captures iWARP frames (iwarp) and RoCEv2 packets (roce), and the " + transport
                    + " transport has none: add --transport iwarp or --transport roce to capture";
        }
        if (crc) {
            return "--crc asks for MPA CRC32c on iWARP FPDUs, and " + why + ": add --transport iwarp";
        }
        return null;
    }
}
