/**
 * Byte-exact codecs for the RoCEv2 wire (IBTA vol. 1 chapter 9 transport headers over UDP port 4791, annex A17),
 * interoperable with Linux soft-RoCE ({@code rxe}).
 *
 * <p>A RoCEv2 packet is an IP/UDP datagram to port {@value io.jndk.roce.codec.Icrc#ROCE_V2_PORT} whose payload is
 * <pre>
 *  | BTH (12) | DETH / RETH / AtomicETH | AETH | AtomicAckETH | ImmDt | IETH | payload | pad (0-3) | ICRC (4) |
 * </pre>
 * with the extension headers present as the opcode says ({@link io.jndk.roce.codec.RoceOpcode}). The package
 * holds one flyweight per header ({@link io.jndk.roce.codec.BthFlyweight} section 9.2,
 * {@link io.jndk.roce.codec.DethFlyweight} 9.3.2, {@link io.jndk.roce.codec.RethFlyweight} 9.3.3,
 * {@link io.jndk.roce.codec.AtomicEthFlyweight} 9.3.4, {@link io.jndk.roce.codec.AethFlyweight} 9.3.5,
 * {@link io.jndk.roce.codec.ImmDtFlyweight} 9.3.6, {@link io.jndk.roce.codec.IethFlyweight} 9.3.7,
 * {@link io.jndk.roce.codec.AtomicAckEthFlyweight} 9.3.8), the opcode table, 24-bit PSN arithmetic
 * ({@link io.jndk.roce.codec.Psn}), the packet decoder and encoder
 * ({@link io.jndk.roce.codec.RocePacketDecoder}, {@link io.jndk.roce.codec.RocePacketEncoder}) and the invariant
 * CRC ({@link io.jndk.roce.codec.Icrc}, annex A17.4.2).
 *
 * <p>Codecs know nothing about sockets, queue pairs or connection state; the decoder never throws on malformed
 * input and reports problems as {@link io.jndk.roce.codec.RocePacketError} values. Every multi-octet field is read
 * and written big-endian regardless of the {@link java.nio.ByteOrder} set on the buffer; the only little-endian
 * field is the ICRC, as rxe stores it.
 */
package io.jndk.roce.codec;
