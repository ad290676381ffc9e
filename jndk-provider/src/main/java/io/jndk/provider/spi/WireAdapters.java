package io.jndk.provider.spi;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.Ref;
import io.jndk.provider.SoftProviderFactory;

/**
 * What a transport's {@link io.jndk.api.NdkProviderFactory} calls to open an adapter: the provider's verbs engine
 * over the transport's {@link WireTransport}. The SPI's one entry into the engine, so that a transport in another
 * module needs nothing of the provider but this package.
 */
public final class WireAdapters {
    private WireAdapters() {}

    /**
     * Opens an adapter whose connections run over {@code transport} (version negotiation and the {@code enabled}
     * option as for every adapter). On a failure the transport is left to the caller to shut down.
     *
     * @return an NDIS status; on {@code NDIS_STATUS_SUCCESS} {@code adapter} holds the adapter
     */
    public static int open(NdkOpenParameters parameters, WireTransport transport, Ref<NdkAdapter> adapter) {
        return SoftProviderFactory.open(parameters, transport, adapter);
    }
}
