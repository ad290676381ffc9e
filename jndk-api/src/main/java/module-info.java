/**
 * NDKPI for Java: one type per NDK object, one method per NDK function. {@link io.jndk.api.Ndk} opens adapters of
 * the transports installed beside this module: each is a provider of {@link io.jndk.api.NdkProviderFactory}
 * ({@code io.jndk.provider} brings {@code loopback}, {@code io.jndk.iwarp} brings {@code iwarp}), found by service
 * binding on the module path or through {@code META-INF/services} on the class path, so a consumer needs
 * {@code requires io.jndk.api} and nothing else.
 */
module io.jndk.api {
    exports io.jndk.api;

    uses io.jndk.api.NdkProviderFactory;
}
