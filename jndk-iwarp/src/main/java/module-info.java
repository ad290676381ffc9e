/**
 * The {@code iwarp} transport: RDMAP, DDP and MPA over TCP, built on {@code io.jndk.provider}'s transport SPI.
 * Consumers reach it only through {@code io.jndk.api}'s service binding; no package is exported to everyone. The
 * fault-injecting TCP proxy ({@code io.jndk.iwarp.fault}) is exported to the tools alone ({@code jndk soak}).
 */
@SuppressWarnings("module") // io.jndk.tools is built after this module: not observable when this one compiles
module io.jndk.iwarp {
    requires io.jndk.api;
    requires io.jndk.provider;
    requires java.logging;

    exports io.jndk.iwarp.fault to io.jndk.tools;

    provides io.jndk.api.NdkProviderFactory with io.jndk.iwarp.transport.IwarpProviderFactory;
}
