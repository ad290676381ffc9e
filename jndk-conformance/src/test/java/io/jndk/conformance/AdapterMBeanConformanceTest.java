package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.World;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Each open adapter is a platform MBean {@code io.jndk:type=Adapter,name=...} with its counters; closing removes it. */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class AdapterMBeanConformanceTest {
    @Parameter
    Mode mode;

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static Set<ObjectName> beans() throws Exception {
        return SERVER.queryNames(new ObjectName("io.jndk:type=Adapter,*"), null);
    }

    @Test
    void theAdapterIsRegisteredWithItsCountersAndUnregisteredOnClose() throws Exception {
        Set<ObjectName> before = beans();
        ObjectName name;
        try (World w = new World(mode)) {
            World.Pair p = w.connect();
            Set<ObjectName> added = new HashSet<>(beans());
            added.removeAll(before);
            assertThat(added).hasSize(2);
            for (ObjectName n : added) {
                assertThat(n.getKeyProperty("name")).startsWith(mode.transport() + "-");
                assertThat(SERVER.getAttribute(n, "Transport")).isEqualTo(mode.transport());
                assertThat(SERVER.getAttribute(n, "Address")).isEqualTo("127.0.0.1");
                assertThat(SERVER.getAttribute(n, "CONNECTIONS")).isEqualTo(1L);
            }
            name = added.iterator().next();
            NdkAdapter[] adapters = {p.a.adapter, p.b.adapter};
            long regs = (Long) SERVER.getAttribute(name, "REGISTRATIONS");
            assertThat(regs).isZero();
            NdkAdapter owner = null;
            for (NdkAdapter a : adapters) {
                w.registerAll(w.pd(a), w.buffer(64));
                if ((Long) SERVER.getAttribute(name, "REGISTRATIONS") == 1L && owner == null) {
                    owner = a;
                }
            }
            assertThat(owner).as("the adapter behind " + name).isNotNull();
            NdkCounters c = owner.counters();
            String[] attrs = new String[NdkCounter.values().length];
            for (NdkCounter k : NdkCounter.values()) {
                attrs[k.ordinal()] = k.name();
            }
            Map<String, Object> values = new java.util.HashMap<>();
            SERVER.getAttributes(name, attrs).asList().forEach(a -> values.put(a.getName(), a.getValue()));
            for (NdkCounter k : NdkCounter.values()) {
                assertThat(values.get(k.name())).as(k.name()).isEqualTo(c.get(k));
            }
            // the device's counters follow as DEVICE_<NAME> (roce; none on loopback and iwarp)
            Map<String, Long> device = Kit.deviceCounters(owner);
            // the MBean's list comes from a snapshot of its own, which a loaded machine's engine may not answer in time
            Kit.awaitTrue("the MBean lists the adapter's counters, two more and the device's", () -> {
                try {
                    return SERVER.getMBeanInfo(name).getAttributes().length == NdkCounter.values().length + 2 + device.size();
                } catch (javax.management.JMException e) {
                    throw new IllegalStateException(e);
                }
            });
            for (String d : device.keySet()) {
                Object v = SERVER.getAttribute(name, "DEVICE_" + d.toUpperCase(java.util.Locale.ROOT));
                assertThat(v).as(d).isInstanceOf(Long.class);
                assertThat((Long) v).as(d).isGreaterThanOrEqualTo(0L);
            }
            if (mode.transport().equals("roce")) {
                assertThat(device).isNotEmpty();
                assertThat(SERVER.getAttribute(name, "DEVICE_ICRC_BAD")).isEqualTo(0L);
            }
        }
        assertThat(SERVER.isRegistered(name)).isFalse();
        assertThat(beans()).isEqualTo(before);
    }

    @Test
    void optionMbeanFalseRegistersNothing() throws Exception {
        Set<ObjectName> before = beans();
        try (World w = new World(mode)) {
            w.adapter(Map.of("mbean", "false"));
            assertThat(beans()).isEqualTo(before);
        }
    }
}
