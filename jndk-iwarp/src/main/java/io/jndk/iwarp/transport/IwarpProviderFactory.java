package io.jndk.iwarp.transport;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.provider.spi.WireAdapters;

/** The {@code iwarp} transport's adapter factory: the provider's verbs engine over an {@link IwarpTransport}. */
public final class IwarpProviderFactory implements NdkProviderFactory {

    /** For {@link java.util.ServiceLoader}. */
    public IwarpProviderFactory() {
    }

    @Override
    public String transport() {
        return "iwarp";
    }

    @Override
    public int openAdapter(NdkOpenParameters parameters, Ref<NdkAdapter> adapter) {
        // a bad option value is refused with an IllegalArgumentException that says which (as over loopback)
        IwarpTransport transport = new IwarpTransport(parameters.options());
        int status = NtStatus.NDIS_STATUS_RESOURCES;
        try {
            status = WireAdapters.open(parameters, transport, adapter);
        } finally {
            if (status != NtStatus.NDIS_STATUS_SUCCESS) {
                transport.shutdown();
            }
        }
        return status;
    }
}
