package io.jndk.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.tools.kit.Failure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * perf's server and client close what they opened when they fail: every open adapter is a platform MBean
 * ({@code io.jndk:type=Adapter,...}) until it is closed, so after the failure none of theirs may be left.
 */
class PerfCleanupTest {
    static Set<ObjectName> adapters() throws Exception {
        return ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.jndk:type=Adapter,*"), null);
    }

    static PrintStream sink() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aServerThatCannotListenClosesItsAdapter() throws Exception {
        Set<ObjectName> before = adapters();
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket taken = new ServerSocket(0, 1, lo)) {
            PerfServer server = new PerfServer("iwarp", lo, taken.getLocalPort(), 1, false, null, false, sink(), sink());
            assertThatThrownBy(server::run).isInstanceOf(Failure.class)
                    .satisfies(e -> assertThat(((Failure) e).kind()).isEqualTo(Failure.Kind.ADDRESS_IN_USE))
                    .hasMessageContaining("address in use");
        }
        assertThat(adapters()).as("adapters left open").isEqualTo(before);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aClientWithNoServerClosesItsAdapter() throws Exception {
        Set<ObjectName> before = adapters();
        InetAddress lo = InetAddress.getLoopbackAddress();
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, lo)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        PerfClient client = new PerfClient("iwarp", "127.0.0.1", new InetSocketAddress(lo, port), null, List.of("write"),
                List.of(8), size -> 10, 16, false, null, 1L, PerfFormat.JSON, false, 1, false, false, sink(), sink());
        assertThat(client.run(new ArrayList<>(), PerfProgress.off())).isEqualTo(Failure.Kind.REFUSED.exit);
        assertThat(adapters()).as("adapters left open").isEqualTo(before);
    }
}
