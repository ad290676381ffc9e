/**
 * RoCEv2 wire codecs: the InfiniBand base and extension transport headers, the invariant CRC, and the
 * communication-management MADs that Linux {@code rdma_cm} exchanges over the GSI. Codecs only: no sockets, queue
 * pairs or connection state.
 */
module io.jndk.roce {
    exports io.jndk.roce.codec;
    exports io.jndk.roce.mad;
}
