package io.jndk.api;

/** Service-provider interface: a transport's adapter factory, found with {@link java.util.ServiceLoader}. */
public interface NdkProviderFactory {
    /** The transport name this factory serves. */
    String transport();

    /** {@code OPEN_NDK_ADAPTER_HANDLER}: returns an NDIS status and the adapter through {@code adapter}. */
    int openAdapter(NdkOpenParameters parameters, Ref<NdkAdapter> adapter);
}
