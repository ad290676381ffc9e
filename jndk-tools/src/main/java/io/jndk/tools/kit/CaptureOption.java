package io.jndk.tools.kit;

import picocli.CommandLine.Option;

/**
 * The picocli mixin for the options the tools share to the letter (name, default and help text): today
 * {@code --pcap}, in perf and rping. perftest's {@code --pcap} and every tool's {@code --crc}, {@code --json} and
 * {@code --transport} say different things in their help (what their users know), so they stay the tools' own.
 */
public final class CaptureOption {
    @Option(names = "--pcap", paramLabel = "FILE", description = "Capture every iWARP frame (iwarp) or RoCEv2 packet (roce) sent and received to FILE (pcap).")
    String pcap;

    /** The capture file, or null without {@code --pcap}. */
    public String file() {
        return pcap;
    }
}
