package io.jndk.example;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.conformance.GuideExample;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleDescriptor;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Runs docs/GUIDE.md's example ({@code GuideExample}, copied from jndk-conformance by jndk-consumer-test) over each
 * transport named on the command line, in this JVM started on the module path with no {@code --add-modules}, and
 * checks what it printed; checks too that the jndk modules are the named modules their descriptors say, that the
 * transports were bound as service providers, and that the provider's JFR events and adapter MBeans work from its
 * named module. Exits 1 naming every check that failed.
 */
public final class RunGuide {
    private static final List<String> FAILED = new ArrayList<>();

    private RunGuide() {}

    public static void main(String[] args) throws Exception {
        modules();
        for (String transport : args) {
            guide(transport);
            mbean(transport);
        }
        if (!FAILED.isEmpty()) {
            FAILED.forEach(f -> System.out.println("FAILED: " + f));
            System.exit(1);
        }
        System.out.println("guide example on the module path: OK over " + String.join(", ", args));
    }

    private static void check(boolean ok, String what) {
        System.out.println((ok ? "ok:     " : "FAILED: ") + what);
        if (!ok) {
            FAILED.add(what);
        }
    }

    /** The module graph java resolved from this module alone. */
    private static void modules() {
        check(RunGuide.class.getModule().isNamed(), "this example runs as a named module (" + RunGuide.class.getModule() + ")");
        ModuleLayer boot = ModuleLayer.boot();
        for (String name : List.of("io.jndk.api", "io.jndk.provider", "io.jndk.iwarp")) {
            Module m = boot.findModule(name).orElse(null);
            check(m != null && !m.getDescriptor().isAutomatic(), name + " is an explicit module in the boot layer");
        }
        Module api = boot.findModule("io.jndk.api").orElseThrow();
        Module provider = boot.findModule("io.jndk.provider").orElseThrow();
        Module iwarp = boot.findModule("io.jndk.iwarp").orElseThrow();
        check(api.getPackages().equals(Set.of("io.jndk.api")) && api.isExported("io.jndk.api"), "io.jndk.api exports the API");
        check(provider.isExported("io.jndk.provider.spi") && !provider.isExported("io.jndk.provider")
                && !provider.isExported("io.jndk.provider.loopback") && !provider.isExported("io.jndk.provider.events"),
                "io.jndk.provider exports the transport SPI and nothing else");
        check(iwarp.getDescriptor().exports().stream().allMatch(ModuleDescriptor.Exports::isQualified),
                "io.jndk.iwarp exports nothing to everyone (" + iwarp.getDescriptor().exports() + ")");
        check(!iwarp.isExported("io.jndk.iwarp.transport", RunGuide.class.getModule()), "the iwarp engine is not exported to consumers");
        check(Ndk.transports().containsAll(List.of("loopback", "iwarp")),
                "both transports are bound as NdkProviderFactory providers: " + Ndk.transports());
    }

    /** The guide's example over {@code transport}, with a JFR recording of the provider's events. */
    private static void guide(String transport) throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Path jfr = Files.createTempFile("jndk-guide-" + transport, ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jndk.ConnectionState");
            recording.enable("jndk.QpState");
            recording.start();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                GuideExample.main(new String[] {transport});
            } finally {
                System.setOut(old);
            }
            recording.stop();
            recording.dump(jfr);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        System.out.print(text.indent(8));
        for (String line : List.of("connect: STATUS_SUCCESS", "B holds: hello from A", "read back: hello from A",
                "received 13 bytes")) {
            check(text.contains(line), transport + ": the example printed '" + line + "'");
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Files.delete(jfr);
        long established = events.stream().filter(e -> e.getEventType().getName().equals("jndk.ConnectionState"))
                .filter(e -> transport.equals(e.getString("transport")) && "established".equals(e.getString("state"))).count();
        check(established >= 1, transport + ": JFR recorded the provider's jndk.ConnectionState 'established' events ("
                + established + ")");
    }

    /** An open adapter is a platform MBean, as {@code jndk stat} reads it. */
    private static void mbean(String transport) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (NdkAdapter adapter = Ndk.open(NdkOpenParameters.of(transport, InetAddress.getLoopbackAddress()))) {
            boolean found = false;
            for (ObjectName name : server.queryNames(new ObjectName("io.jndk:type=Adapter,*"), null)) {
                found |= transport.equals(server.getAttribute(name, "Transport"));
            }
            check(found && adapter != null, transport + ": an open adapter is the MBean io.jndk:type=Adapter with Transport=" + transport);
        }
    }
}
