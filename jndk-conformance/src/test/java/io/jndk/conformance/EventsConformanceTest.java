package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkMr;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.conformance.support.Buffer;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** The provider's JFR events (category jndk) seen by an in-process recording around a small workload. */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class EventsConformanceTest {
    @Parameter
    Mode mode;

    @TempDir
    Path dir;

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static Set<String> strings(List<RecordedEvent> events, String field) {
        return events.stream().map(e -> e.getString(field)).collect(Collectors.toSet());
    }

    @Test
    void connectionRegistrationTerminateAndQpEventsAreRecorded() throws Exception {
        Path file = dir.resolve("jndk.jfr");
        String localB;
        try (Recording r = new Recording()) {
            for (String e : new String[] {"jndk.ConnectionState", "jndk.QpState", "jndk.Registration", "jndk.Terminate"}) {
                r.enable(e);
            }
            r.start();
            try (World w = new World(mode)) {
                World.Pair p = w.connect();
                localB = p.address.getAddress().getHostAddress() + ":" + p.address.getPort();
                Buffer src = w.buffer(4096).fillRandom(3);
                Buffer dst = w.buffer(4096);
                NdkMr srcMr = w.registerAll(p.a.pd, src);
                NdkMr dstMr = w.registerAll(p.b.pd, dst);
                assertThat(p.a.qp.write("bad", new NdkSge[] {src.sge(0, 64, srcMr.getLocalToken())}, 1, dst.address(),
                        dstMr.getRemoteToken() ^ 0x100, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
                Kit.awaitTrue("disconnect events", () -> p.a.disconnects.get() == 1 && p.b.disconnects.get() == 1);
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> conn = named(events, "jndk.ConnectionState");
        assertThat(strings(conn, "state")).contains("requested", "established", "disconnected");
        assertThat(conn.stream().filter(e -> e.getString("state").equals("established"))).hasSize(2)
                .allSatisfy(e -> assertThat(e.getString("transport")).isEqualTo(mode.transport()));
        assertThat(conn.stream().filter(e -> e.getString("state").equals("requested")).map(e -> e.getString("remoteAddress")))
                .containsExactly(localB);

        List<RecordedEvent> reg = named(events, "jndk.Registration");
        assertThat(reg.stream().filter(e -> e.getString("operation").equals("register"))).hasSize(2)
                .allSatisfy(e -> assertThat(e.getLong("length")).isEqualTo(4096));

        List<RecordedEvent> term = named(events, "jndk.Terminate");
        assertThat(term).hasSize(2);
        assertThat(term.stream().map(e -> e.getBoolean("sent"))).containsExactlyInAnyOrder(true, false);
        assertThat(term).allSatisfy(e -> {
            assertThat(e.getString("layer")).isEqualTo("DDP");
            assertThat(e.getInt("errorType")).isEqualTo(1); // tagged buffer error
            assertThat(e.getInt("errorCode")).isEqualTo(0); // invalid STag
        });

        List<RecordedEvent> qp = named(events, "jndk.QpState");
        assertThat(qp.stream().filter(e -> e.getString("state").equals("error")).map(e -> e.getString("qp")).distinct())
                .hasSize(2);
        assertThat(qp.stream().filter(e -> e.getString("state").equals("closed"))).hasSize(2);
        assertThat(Files.size(file)).isPositive();
    }
}
