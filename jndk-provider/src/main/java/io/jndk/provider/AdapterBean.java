package io.jndk.provider;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ObjectName;

/**
 * An open adapter as a platform MBean, {@code io.jndk:type=Adapter,name=<transport>-<n>}: read-only attributes
 * {@code Transport}, {@code Address} and one {@code long} per {@link NdkCounter}, named like the constant
 * ({@code FPDUS_IN}), and one per device counter ({@link io.jndk.api.NdkAdapter#deviceCounters()}) named
 * {@code DEVICE_} and the counter's name in upper case ({@code DEVICE_ICRC_BAD}). Tools read it through JMX
 * ({@code jndk stat}). Registered when the adapter opens, gone
 * when it closes; the system property {@value #MARKER} tells a tool attaching to the process that it has
 * (or had) jndk adapters.
 */
final class AdapterBean implements DynamicMBean {
    /** The ObjectName domain and type of every adapter bean. */
    static final String PATTERN = "io.jndk:type=Adapter,*";
    /** System property set once a bean was registered in this process. */
    static final String MARKER = "io.jndk.adapters";
    private static final Logger LOG = Logger.getLogger(AdapterBean.class.getName());
    private static final String TRANSPORT = "Transport", ADDRESS = "Address";
    /** The prefix of the device counters' attributes: {@code DEVICE_ICRC_BAD} for {@code icrc_bad}. */
    static final String DEVICE = "DEVICE_";

    private final SoftAdapter adapter;
    private final ObjectName name;

    private AdapterBean(SoftAdapter adapter, ObjectName name) {
        this.adapter = adapter;
        this.name = name;
    }

    /** Registers {@code adapter} as {@code name}; null when JMX refuses (the adapter works without it). */
    static AdapterBean register(SoftAdapter adapter, String name) {
        try {
            AdapterBean b = new AdapterBean(adapter, new ObjectName("io.jndk:type=Adapter,name=" + name));
            ManagementFactory.getPlatformMBeanServer().registerMBean(b, b.name);
            System.setProperty(MARKER, "true");
            return b;
        } catch (JMException | SecurityException e) {
            LOG.log(Level.WARNING, "adapter MBean not registered", e);
            return null;
        }
    }

    void unregister() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            LOG.log(Level.FINE, "adapter MBean already gone", e);
        }
    }

    ObjectName name() {
        return name;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        List<Attribute> found = getAttributes(new String[] {attribute}).asList();
        if (found.isEmpty()) {
            throw new AttributeNotFoundException(attribute);
        }
        return found.get(0).getValue();
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        NdkCounters snapshot = adapter.counters(); // one consistent snapshot for the whole list
        Map<String, Long> device = null; // the device's, taken once if asked for
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            if (TRANSPORT.equals(a) || ADDRESS.equals(a)) {
                list.add(new Attribute(a, TRANSPORT.equals(a) ? adapter.transport() : adapter.address().getHostAddress()));
            } else if (a.startsWith(DEVICE)) {
                if (device == null) {
                    device = adapter.deviceCounters();
                }
                Long v = device.get(a.substring(DEVICE.length()).toLowerCase(Locale.ROOT));
                if (v != null) {
                    list.add(new Attribute(a, v));
                }
            } else {
                for (NdkCounter c : NdkCounter.values()) {
                    if (c.name().equals(a)) {
                        list.add(new Attribute(a, snapshot.get(c)));
                    }
                }
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<MBeanAttributeInfo> attrs = new ArrayList<>();
        attrs.add(new MBeanAttributeInfo(TRANSPORT, "java.lang.String", "transport name", true, false, false));
        attrs.add(new MBeanAttributeInfo(ADDRESS, "java.lang.String", "adapter address", true, false, false));
        for (NdkCounter c : NdkCounter.values()) {
            attrs.add(new MBeanAttributeInfo(c.name(), "long", c.label, true, false, false));
        }
        for (String d : adapter.deviceCounters().keySet()) {
            attrs.add(new MBeanAttributeInfo(DEVICE + d.toUpperCase(Locale.ROOT), "long", "device counter " + d, true, false,
                    false));
        }
        return new MBeanInfo(AdapterBean.class.getName(), "jndk adapter counters",
                attrs.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }
}
