package io.jndk.provider;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.provider.loopback.LoopbackTransport;
import io.jndk.provider.spi.WireTransport;
import java.net.InetAddress;

/** Opens adapters of the in-JVM {@code loopback} transport, and (for wire transports) adapters over a given transport. */
public final class SoftProviderFactory implements NdkProviderFactory {
    /** Public for {@link java.util.ServiceLoader}. */
    public SoftProviderFactory() {}

    @Override
    public String transport() {
        return "loopback";
    }

    @Override
    public int openAdapter(NdkOpenParameters p, Ref<NdkAdapter> out) {
        InetAddress address = p.address() != null ? p.address() : InetAddress.getLoopbackAddress();
        LoopbackTransport transport = new LoopbackTransport(address, p.options());
        int status = NtStatus.NDIS_STATUS_RESOURCES;
        try {
            status = open(p, transport, out);
        } finally {
            if (status != NtStatus.NDIS_STATUS_SUCCESS) {
                transport.shutdown();
            }
        }
        return status;
    }

    /**
     * Opens an adapter whose connections run over {@code wire} (every transport: loopback, iWARP, ...).
     *
     * @return an NDIS status
     */
    public static int open(NdkOpenParameters p, WireTransport wire, Ref<NdkAdapter> out) {
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
        out.set(new SoftAdapter(run, p, Endpoints.named(wire.name(), wire.hostPorts()), wire));
        return NtStatus.NDIS_STATUS_SUCCESS;
    }
}
