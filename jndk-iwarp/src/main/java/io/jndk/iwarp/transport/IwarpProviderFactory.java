package io.jndk.iwarp.transport;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.provider.SoftProviderFactory;

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
        IwarpTransport transport;
        try {
            transport = new IwarpTransport(parameters.options());
        } catch (IllegalArgumentException e) {
            return NtStatus.NDIS_STATUS_RESOURCES;
        }
        int status = NtStatus.NDIS_STATUS_RESOURCES;
        try {
            status = SoftProviderFactory.open(parameters, transport, adapter); // a bad adapter option throws
        } finally {
            if (status != NtStatus.NDIS_STATUS_SUCCESS) {
                transport.shutdown();
            }
        }
        return status;
    }
}
