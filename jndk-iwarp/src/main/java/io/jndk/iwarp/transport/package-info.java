/**
 * The iWARP wire transport: {@link io.jndk.iwarp.transport.IwarpTransport} (listen/connect over MPA) and
 * {@link io.jndk.iwarp.transport.IwarpConnection} (the RDMAP/DDP/MPA stream engine of one connection), the
 * implementation of the provider's transport SPI.
 *
 * <p>The stream engine is split by concern behind {@code IwarpConnection}, as siw splits {@code siw_qp_rx.c},
 * {@code siw_qp_tx.c} and {@code siw_qp.c}: the lifecycle ({@code ConnectionState}), the receive path
 * ({@code RxEngine}, {@code RxDispatch}, {@code RxPlacement} and one {@code Inbound*} class per message type), the
 * transmit path ({@code TxEngine}, {@code MessageSegmenter}, {@code TxBatch}), the read queues ({@code ReadQueues}),
 * Terminates ({@code Terminates}, {@code Failure}), capture ({@code ConnectionCapture}) and all of polling mode
 * ({@code ConsumerDrive}). {@code TransportLayoutTest} keeps the split.
 */
package io.jndk.iwarp.transport;
