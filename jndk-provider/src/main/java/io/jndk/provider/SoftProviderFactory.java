package io.jndk.provider;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;

/** Opens adapters of the in-JVM {@code loopback} transport. */
public final class SoftProviderFactory implements NdkProviderFactory {
    /** Public for {@link java.util.ServiceLoader}. */
    public SoftProviderFactory() {}

    @Override
    public String transport() {
        return Transport.LOOPBACK.name();
    }

    @Override
    public int openAdapter(NdkOpenParameters p, Ref<NdkAdapter> out) {
        return open(p, Transport.LOOPBACK, null, out);
    }

    /**
     * Opens an adapter whose connections run over {@code wire} (used by wire transports such as iWARP).
     *
     * @return an NDIS status
     */
    public static int open(NdkOpenParameters p, io.jndk.provider.spi.WireTransport wire, Ref<NdkAdapter> out) {
        Transport t = Transport.named(wire.name());
        t.osPorts = true;
        return open(p, t, wire, out);
    }

    /** Version negotiation (same major; run at the highest minor of that major) and adapter creation. */
    static int open(NdkOpenParameters p, Transport transport, io.jndk.provider.spi.WireTransport wire, Ref<NdkAdapter> out) {
        NdkVersion req = p.version() == null ? NdkVersion.V2_1 : p.version();
        NdkVersion run;
        if (req.major() == 1 && req.minor() <= 2) {
            run = NdkVersion.V1_2;
        } else if (req.major() == 2 && req.minor() <= 1) {
            run = NdkVersion.V2_1;
        } else {
            return NtStatus.NDIS_STATUS_BAD_VERSION;
        }
        if ("false".equals(p.option("enabled", "true"))) {
            return NtStatus.NDIS_STATUS_ADAPTER_NOT_READY;
        }
        SoftAdapter a = new SoftAdapter(run, p, transport, wire);
        transport.adapterOpened(a);
        out.set(a);
        return NtStatus.NDIS_STATUS_SUCCESS;
    }
}
