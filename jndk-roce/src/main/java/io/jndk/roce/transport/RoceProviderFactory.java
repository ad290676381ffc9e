package io.jndk.roce.transport;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.provider.spi.WireAdapters;
import java.io.UncheckedIOException;

/** The {@code roce} transport's adapter factory: the provider's verbs engine over a {@link RoceTransport}. */
public final class RoceProviderFactory implements NdkProviderFactory {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(RoceProviderFactory.class.getName());

    /** For {@link java.util.ServiceLoader}. */
    public RoceProviderFactory() {
    }

    @Override
    public String transport() {
        return "roce";
    }

    @Override
    public int openAdapter(NdkOpenParameters parameters, Ref<NdkAdapter> adapter) {
        RoceTransport transport;
        try {
            transport = new RoceTransport(parameters.address(), parameters.options());
        } catch (UncheckedIOException e) {
            LOG.warning(e.getMessage()); // the status alone cannot say which address or why
            return NtStatus.NDIS_STATUS_RESOURCES;
        }
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
