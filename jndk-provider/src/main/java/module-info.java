/**
 * The software provider: the verbs engine behind {@code io.jndk.api} and its in-JVM {@code loopback} transport.
 * It exports only the transport SPI ({@code io.jndk.provider.spi}), through which a transport in another module
 * (such as {@code io.jndk.iwarp}) plugs in and opens adapters; the engine itself ({@code io.jndk.provider}), the
 * loopback transport and the JFR events are internal. Consumers reach it only through {@code io.jndk.api}'s
 * service binding.
 */
module io.jndk.provider {
    requires transitive io.jndk.api;
    requires java.logging;
    requires java.management;
    requires jdk.jfr;

    exports io.jndk.provider.spi;

    provides io.jndk.api.NdkProviderFactory with io.jndk.provider.SoftProviderFactory;
}
