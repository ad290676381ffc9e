package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkCounter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code jndk info} prints every declared counter of its fresh adapter, by label and (JSON) by name. */
class InfoCountersTest {
    private static final Duration RUN = Duration.ofSeconds(60);

    private static String run(String... args) throws Exception {
        return JndkProcess.run(RUN, args);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyCounterIsPrintedWithItsLabelAndInJson() throws Exception {
        String text = run("info", "--transport", "iwarp");
        String json = run("info", "--transport", "iwarp", "--json");
        for (NdkCounter c : NdkCounter.values()) {
            assertThat(text).containsPattern("(?m)^  " + Pattern.quote(c.label) + " +0$");
            assertThat(json).contains("\"" + c.name().toLowerCase(Locale.ROOT) + "\":0");
        }
        assertThat(text).as("iwarp keeps no device counters beyond these").doesNotContain("device counters");
        assertThat(json).contains("\"deviceCounters\":{}");
    }

    /** The roce device's counters (the ICRC checks, the CM's, the RC's summed over its QPs) follow the adapter's. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void roceAlsoPrintsItsDeviceCounters() throws Exception {
        String text = run("info", "--transport", "roce");
        assertThat(text).contains("\ndevice counters (the whole roce device at this address)\n")
                .containsPattern("(?m)^  icrc_bad +0$").containsPattern("(?m)^  unknown_qpn +0$")
                .containsPattern("(?m)^  cm_retries +0$").containsPattern("(?m)^  rc_retransmitted_packets +0$");
        assertThat(run("info", "--transport", "roce", "--json")).contains("\"deviceCounters\":{\"packets_in\":0,")
                .contains("\"icrc_unchecked\":0,").contains("\"rc_dropped_packets\":0}");
    }

    /**
     * The roce adapter is RoCEv2: NDK_ADAPTER_INFO.RdmaTechnology ROCE_V2 (4), an InfiniBand transport on an Ethernet
     * link with lo's 4096-byte MTU; {@code --transport all} lists every installed transport with its technology.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void roceReportsRoceV2AndAllListsEachTransportsTechnology() throws Exception {
        String roce = run("info", "--transport", "roce");
        assertThat(roce).startsWith("hca_id:\tjndk_roce\n\ttransport:\t\t\tInfiniBand (0)\n")
                .contains("\t\t\tactive_mtu:\t\t4096 (5)\n").contains("\t\t\tlink_layer:\t\tEthernet\n")
                .contains("NDK adapter: roce on 127.0.0.1").containsPattern("(?m)^  rdmaTechnology +4 \\(ROCE_V2\\)$");
        assertThat(run("info", "-d", "jndk_roce", "--json")).contains("\"hca_id\":\"jndk_roce\"")
                .contains("\"rdmaTechnology\":4");
        String all = run("info", "--transport", "all");
        assertThat(all).contains("hca_id:\tjndk_lo\n").contains("hca_id:\tjndk0\n").contains("hca_id:\tjndk_roce\n")
                .contains("3 transports installed (NDK_ADAPTER_INFO.RdmaTechnology):\n")
                .containsPattern("(?m)^  iwarp +jndk0 +1 \\(IWARP\\)$")
                .containsPattern("(?m)^  roce +jndk_roce +4 \\(ROCE_V2\\)$")
                .doesNotContain("NDK_ADAPTER_INFO\n");
        assertThat(run("info", "--transport", "all", "--json"))
                .contains("{\"transport\":\"roce\",\"hca_id\":\"jndk_roce\",\"rdmaTechnology\":4,\"technology\":\"ROCE_V2\"}")
                .contains("{\"transport\":\"iwarp\",\"hca_id\":\"jndk0\",\"rdmaTechnology\":1,\"technology\":\"IWARP\"}");
    }

    /** ibv_devinfo's shape: the device, its port and state, MTU, the attributes with -v, the devices with -l. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theAdapterLooksLikeIbvDevinfoBesideItsNdkAdapterInfo() throws Exception {
        String plain = run("info", "--transport", "iwarp");
        assertThat(plain).startsWith("hca_id:\tjndk0\n\ttransport:\t\t\tiWARP (1)\n")
                .contains("\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n")
                .contains("\t\t\tactive_mtu:\t\t1024 (3)\n").contains("\t\t\tlink_layer:\t\tEthernet\n")
                .doesNotContain("max_qp_rd_atom").contains("NDK_ADAPTER_INFO").contains("  maxInboundReadLimit      128");
        String verbose = run("info", "-v", "-d", "jndk0");
        assertThat(verbose).contains("\tmax_qp_rd_atom:\t\t\t128\n").contains("\tmax_qp_init_rd_atom:\t\t128\n")
                .contains("\tdevice_cap_flags:\t\t0x00220000\n\t\t\t\t\tMEM_WINDOW\n\t\t\t\t\tMEM_MGT_EXTENSIONS\n")
                .contains("\t\t\tmax_msg_sz:\t\t0x40000000\n")
                .containsPattern("(?m)^  adapterFlags +0x[0-9A-F]{8}\n {27}IN_ORDER_DMA_SUPPORTED$");
        assertThat(run("info", "-l")).isEqualTo("3 HCAs found:\n\tjndk_lo\n\tjndk0\n\tjndk_roce\n");
        assertThat(run("info", "--json")).contains("\"device\":{\"hca_id\":\"jndk_lo\"").contains("\"port_state\":\"PORT_ACTIVE (4)\"")
                .contains("\"adapterFlags\":[\"IN_ORDER_DMA_SUPPORTED\"");
        try (JndkProcess p = JndkProcess.start(java.util.List.of(), "info", "-d", "mlx5_0")) {
            assertThat(p.await(RUN)).isEqualTo(2);
            assertThat(p.output().strip()).isEqualTo("[stderr] jndk info: no device mlx5_0 (./jndk info -l lists them)");
        }
    }
}
