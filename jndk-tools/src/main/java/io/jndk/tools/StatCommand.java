package io.jndk.tools;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import io.jndk.tools.kit.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jndk stat}: the live counters of the jndk adapters in running JVMs on this host. Each JVM is reached
 * through the Attach API: its system properties tell whether it opened jndk adapters (property
 * {@value #MARKER}); only then is its local JMX agent started and the adapter MBeans
 * ({@value #PATTERN}) read; the connection is kept for later samples (a JVM seen without adapters is not asked
 * again). Exit status 0 (also when no adapter was found), 1 when a PID given cannot be read.
 */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = {"Show the live counters of the jndk adapters in running processes.",
                "Without PID: every local JVM that has opened jndk adapters."},
        footer = {"", "Example:", "  ./jndk stat                      counters of every running jndk process",
                "  ./jndk stat 4242 --json          one JSON record for process 4242",
                "  ./jndk stat --interval 1 --count 5   5 samples, 1 s apart, with deltas and rates"})
final class StatCommand implements Callable<Integer> {
    static final String MARKER = "io.jndk.adapters";
    static final String PATTERN = "io.jndk:type=Adapter,*";

    @Parameters(arity = "0..1", paramLabel = "PID", description = "Process to read (default: every local JVM with jndk adapters).")
    String pid;

    @Option(names = "--json", description = "Print one JSON record per sample.")
    boolean json;

    @Option(names = "--interval", paramLabel = "SECONDS",
            description = "Seconds between samples, more than 0 (at most 3600); later samples show deltas and rates"
                    + " (default: one sample).")
    Double interval;

    @Option(names = "--count", paramLabel = "N", description = "Number of samples, with --interval (default: until"
            + " interrupted).")
    Integer count;

    /** One adapter's sample: its name, transport, address, counters by attribute name, and when it was read. */
    record AdapterSample(String pid, String name, String transport, String address, Map<String, Long> counters,
            long nanos) {
        String key() {
            return pid + "/" + name;
        }
    }

    @Override
    public Integer call() throws Exception {
        if (interval != null && !(interval > 0 && interval <= 3600)) {
            System.err.println("jndk stat: --interval " + java.math.BigDecimal.valueOf(interval).stripTrailingZeros()
                    .toPlainString() + " is not a time between samples: give seconds, more"
                    + " than 0 and at most 3600 (without --interval: one sample)");
            return 2;
        }
        if (count != null && (count < 1 || interval == null && count > 1)) {
            System.err.println("jndk stat: --count " + count + (count < 1 ? " must be at least 1"
                    : " needs --interval SECONDS (the time between the samples)"));
            return 2;
        }
        if (pid != null && !pid.matches("[1-9][0-9]{0,18}")) {
            System.err.println("jndk stat: '" + pid + "' is not a process id (./jndk stat lists the processes with adapters)");
            return 2;
        }
        int samples = count != null ? count : interval != null ? Integer.MAX_VALUE : 1;
        try {
            return sample(samples);
        } finally {
            for (JMXConnector c : connections.values()) {
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (IOException ignored) {
                    // the process is gone
                }
            }
        }
    }

    /** JMX connections by process id, kept across samples; a process without jndk adapters maps to null. */
    private final Map<String, JMXConnector> connections = new LinkedHashMap<>();

    private int sample(int samples) throws InterruptedException {
        Map<String, AdapterSample> previous = new LinkedHashMap<>();
        for (int i = 0; i < samples; i++) {
            if (i > 0) {
                Thread.sleep((long) (interval * 1000)); // the sampling period itself, not a synchronisation
            }
            List<AdapterSample> now = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (String id : targets()) {
                try {
                    now.addAll(read(id));
                } catch (IOException | AttachNotSupportedException | JMException | RuntimeException e) {
                    connections.remove(id);
                    problems.add("process " + id + ": " + why(id, e));
                }
            }
            if (pid != null && !problems.isEmpty()) {
                problems.forEach(p -> System.err.println("jndk stat: " + p));
                return 1;
            }
            System.out.println(json ? toJson(now, previous) : toText(now, previous));
            System.out.flush();
            previous.clear();
            now.forEach(s -> previous.put(s.key(), s));
        }
        return 0;
    }

    /** Why process {@code id} could not be read, in words (no exception class names). */
    static String why(String id, Exception e) {
        boolean alive;
        try {
            alive = ProcessHandle.of(Long.parseLong(id)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException nfe) {
            alive = false;
        }
        if (!alive) {
            return "no such process (it may have ended)";
        }
        if (e instanceof AttachNotSupportedException || e instanceof IOException) {
            return "cannot attach to it: it is not a Java process, runs as another user, or does not answer"
                    + " (jcmd " + id + " VM.version tells which)";
        }
        String m = e.getMessage();
        return "its counters could not be read" + (m == null || m.isBlank() ? "" : " (" + m.strip() + ")");
    }

    /** The JVMs to look at: the one given, or every local JVM but this one. */
    private List<String> targets() {
        if (pid != null) {
            return List.of(pid);
        }
        String self = Long.toString(ProcessHandle.current().pid());
        List<String> out = new ArrayList<>();
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            if (!d.id().equals(self)) {
                out.add(d.id());
            }
        }
        return out;
    }

    /** Attaches to {@code id}: its JMX connection, or null when it never opened a jndk adapter. */
    private static JMXConnector connect(String id) throws IOException, AttachNotSupportedException {
        VirtualMachine vm = VirtualMachine.attach(id);
        String url;
        try {
            Properties props = vm.getSystemProperties();
            if (props.getProperty(MARKER) == null) {
                return null;
            }
            url = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        return JMXConnectorFactory.connect(new JMXServiceURL(url));
    }

    /** The adapters of one JVM; none when it never opened a jndk adapter. */
    private List<AdapterSample> read(String id) throws IOException, AttachNotSupportedException, JMException {
        if (!connections.containsKey(id)) {
            connections.put(id, connect(id));
        }
        JMXConnector c = connections.get(id);
        List<AdapterSample> out = new ArrayList<>();
        if (c != null) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            for (ObjectName n : s.queryNames(new ObjectName(PATTERN), null)) {
                MBeanAttributeInfo[] infos = s.getMBeanInfo(n).getAttributes();
                String[] names = new String[infos.length];
                for (int i = 0; i < infos.length; i++) {
                    names[i] = infos[i].getName();
                }
                Map<String, Long> counters = new LinkedHashMap<>();
                String transport = "", address = "";
                for (Attribute a : s.getAttributes(n, names).asList()) {
                    switch (a.getName()) {
                        case "Transport" -> transport = String.valueOf(a.getValue());
                        case "Address" -> address = String.valueOf(a.getValue());
                        default -> counters.put(a.getName(), ((Number) a.getValue()).longValue());
                    }
                }
                out.add(new AdapterSample(id, n.getKeyProperty("name"), transport, address, counters, System.nanoTime()));
            }
        }
        out.sort((x, y) -> x.name().compareTo(y.name()));
        return out;
    }

    /** The sample as text; with a previous sample, each counter's growth and its rate per second since then. */
    private String toText(List<AdapterSample> now, Map<String, AdapterSample> previous) {
        if (now.isEmpty()) {
            return pid == null ? "no running jndk adapters found" : "no jndk adapters in process " + pid;
        }
        StringBuilder sb = new StringBuilder();
        for (AdapterSample s : now) {
            AdapterSample before = previous.get(s.key());
            double seconds = before == null ? 0 : (s.nanos() - before.nanos()) / 1e9;
            sb.append(String.format("pid %s adapter %s (%s %s)%n", s.pid(), s.name(), s.transport(), s.address()));
            int width = 28; // the adapter counters' column; wider for long device counter names
            for (String k : s.counters().keySet()) {
                width = Math.max(width, k.length() + 1);
            }
            for (var e : s.counters().entrySet()) {
                sb.append(String.format("  %-" + width + "s %16d", e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
                if (before != null) {
                    long d = e.getValue() - before.counters().getOrDefault(e.getKey(), 0L);
                    sb.append(String.format("  %+14d  %14.0f/s", d, d / seconds));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private String toJson(List<AdapterSample> now, Map<String, AdapterSample> previous) {
        StringBuilder sb = new StringBuilder("{\"time\":").append(Json.str(java.time.Instant.now().toString()))
                .append(",\"adapters\":[");
        for (int i = 0; i < now.size(); i++) {
            AdapterSample s = now.get(i);
            AdapterSample before = previous.get(s.key());
            sb.append(i == 0 ? "" : ",").append("{\"pid\":").append(s.pid()).append(",\"name\":").append(Json.str(s.name()))
                    .append(",\"transport\":").append(Json.str(s.transport())).append(",\"address\":")
                    .append(Json.str(s.address())).append(",\"counters\":").append(object(s.counters(), null));
            if (before != null) {
                sb.append(",\"deltas\":").append(object(s.counters(), before.counters()));
            }
            sb.append('}');
        }
        return sb.append("]}").toString();
    }

    /** A JSON object of the counters (lower-case names), or of their growth since {@code before}. */
    private static String object(Map<String, Long> counters, Map<String, Long> before) {
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (var e : counters.entrySet()) {
            long v = before == null ? e.getValue() : e.getValue() - before.getOrDefault(e.getKey(), 0L);
            sb.append(first ? "" : ",").append(Json.str(e.getKey().toLowerCase(Locale.ROOT))).append(':').append(v);
            first = false;
        }
        return sb.append('}').toString();
    }
}
