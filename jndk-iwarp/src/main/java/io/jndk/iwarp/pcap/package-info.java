/**
 * Capture writing for diagnosis: {@link io.jndk.iwarp.pcap.PcapWriter} records the byte streams of
 * iWARP connections as classic pcap files with synthetic Ethernet, IP and TCP headers, so that
 * Wireshark's {@code iwarp_mpa} and {@code iwarp_ddp_rdmap} dissectors can read them.
 */
package io.jndk.iwarp.pcap;
