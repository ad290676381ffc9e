package io.jndk.tools.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tools' catalogue of provider options against the transports that read them: a value the catalogue takes, the
 * transport takes too (the adapter opens), and the first value past a bound is refused by both, so that the check
 * before a run is the transport's own and a benchmark never fails only when its adapter opens.
 */
class ProviderOptionsTest {

    @Test
    void mpaHoldIsAnIwarpOptionTheToolsTake() throws Exception {
        String most = Long.toString(Long.MAX_VALUE / 2_000_000);
        for (String v : new String[] {"0", "250", most}) {
            assertThatCode(() -> ProviderOptions.check(Map.of("mpa.hold.ms", v), "iwarp")).doesNotThrowAnyException();
        }
        assertThatThrownBy(() -> ProviderOptions.check(Map.of("mpa.hold.ms", "-1"), "iwarp"))
            .hasMessage("-O mpa.hold.ms=-1: mpa.hold.ms takes milliseconds, a decimal number from 0 to " + most);
        assertThatThrownBy(() -> ProviderOptions.check(Map.of("mpa.hold.ms", "250"), "roce"))
            .hasMessageContaining("is an iwarp transport option and changes nothing on roce");
        assertThat(ProviderOptions.keys("iwarp")).contains("mpa.hold.ms");
        assertBound("iwarp", "mpa.hold.ms", Long.MAX_VALUE / 2_000_000, Map.of());
    }

    @Test
    void pollSpinTakesEachTransportsOwnRange() throws Exception {
        assertBound("iwarp", "poll.spin.us", 60_000_000L, Map.of("poll", "true"));
        assertBound("iwarp", "poll.spin.us", 60_000_000L, Map.of()); // refused even with the polling mode off
        assertBound("roce", "poll.spin.us", 10_000_000L, Map.of("poll", "true"));
    }

    /** docs/TRANSPORTS.md's table of every option names each key the tools take, with the transport it applies to. */
    @Test
    void everyTransportKeyTheToolsTakeIsInTheDocsOptionTable() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "TRANSPORTS.md"));
        String table = doc.substring(doc.indexOf("## Every option, by where it applies"));
        List<String> rows = table.lines().filter(l -> l.startsWith("| `")).toList();
        ProviderOptions.transportKeys().forEach((transport, keys) -> {
            assertThat(keys).isNotEmpty();
            for (String key : keys) {
                assertThat(rows).as("a row of docs/TRANSPORTS.md's option table names `%s` for %s", key, transport)
                    .anyMatch(r -> names(r, key, transport));
            }
        });
    }

    /** Whether a table row's first cell holds {@code `key`} and its second names {@code transport}. */
    private static boolean names(String row, String key, String transport) {
        String[] cells = row.split("\\|");
        return cells.length > 2 && cells[1].contains("`" + key + "`") && cells[2].contains(transport);
    }

    /** {@code most} passes the tools' check and opens an adapter; {@code most + 1} fails both. */
    private static void assertBound(String transport, String key, long most, Map<String, String> with)
            throws Exception {
        Map<String, String> ok = new HashMap<>(with);
        ok.put(key, Long.toString(most));
        assertThatCode(() -> ProviderOptions.check(ok, transport)).doesNotThrowAnyException();
        assertOpens(transport, ok);
        Map<String, String> over = new HashMap<>(with);
        over.put(key, Long.toString(most + 1));
        assertThatThrownBy(() -> ProviderOptions.check(over, transport))
            .hasMessageStartingWith("-O " + key + "=" + (most + 1) + ": " + key + " takes ")
            .hasMessageContaining(Long.toString(most));
        assertRefusedAtOpen(transport, over, key);
    }

    private static void assertOpens(String transport, Map<String, String> options) throws Exception {
        try (NdkAdapter a = Ndk.open(NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress())
                .withOptions(withPort(transport, options)))) {
            assertThat(a).isNotNull();
        }
    }

    /** Opening an adapter with {@code options} fails, naming {@code key}. */
    private static void assertRefusedAtOpen(String transport, Map<String, String> options, String key)
            throws Exception {
        Map<String, String> o = withPort(transport, options);
        assertThatThrownBy(() -> Ndk.open(NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress())
                .withOptions(o)).close())
            .hasStackTraceContaining(key);
    }

    /** A roce adapter gets a UDP port nothing holds now (another test or process may hold 4791). */
    private static Map<String, String> withPort(String transport, Map<String, String> options) throws Exception {
        Map<String, String> o = new HashMap<>(options);
        if (transport.equals("roce")) {
            try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                o.put("udp.port", Integer.toString(s.getLocalPort()));
            }
        }
        return o;
    }
}
