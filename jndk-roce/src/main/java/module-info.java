/**
 * The {@code roce} transport: RoCEv2 (the InfiniBand RC transport over UDP port 4791, connection management with CM
 * MADs on QP1 as Linux {@code rdma_cm} does it), built on {@code io.jndk.provider}'s transport SPI and interoperable
 * with Linux {@code rxe}. Consumers reach it through {@code io.jndk.api}'s service binding. The wire codecs
 * ({@code io.jndk.roce.codec}, {@code io.jndk.roce.mad}) are exported for tools that read captures.
 */
module io.jndk.roce {
    requires io.jndk.api;
    requires io.jndk.provider;
    requires java.logging;

    exports io.jndk.roce.codec;
    exports io.jndk.roce.mad;

    provides io.jndk.api.NdkProviderFactory with io.jndk.roce.transport.RoceProviderFactory;
}
