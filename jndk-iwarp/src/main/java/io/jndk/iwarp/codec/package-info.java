/**
 * Byte-exact codecs for the iWARP wire protocols: MPA (RFC 5044, RFC 6581), DDP (RFC 5041) and
 * RDMAP (RFC 5040), interoperable with Linux soft-iWARP ({@code siw}).
 *
 * <p>The package holds one flyweight per wire header ({@link io.jndk.iwarp.codec.MpaFrameFlyweight},
 * {@link io.jndk.iwarp.codec.MpaIrdOrdFlyweight}, {@link io.jndk.iwarp.codec.FpduFlyweight},
 * {@link io.jndk.iwarp.codec.DdpHeaderFlyweight}, {@link io.jndk.iwarp.codec.DdpTaggedHeaderFlyweight},
 * {@link io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight}, {@link io.jndk.iwarp.codec.ReadRequestFlyweight},
 * {@link io.jndk.iwarp.codec.TerminateFlyweight}), the opcode table {@link io.jndk.iwarp.codec.RdmapOpcode},
 * the Terminate error catalogue {@link io.jndk.iwarp.codec.TerminateCode}, an allocation-free
 * {@link io.jndk.iwarp.codec.FpduEncoder} and the resumable stream parser
 * {@link io.jndk.iwarp.codec.FpduDecoder}.
 *
 * <p>Codecs know nothing about sockets, connections or queue pairs; they never throw on malformed input
 * and report problems as values instead. All multi-octet fields are read and written in network byte
 * order regardless of the {@link java.nio.ByteOrder} set on the buffer; the only little-endian field is
 * the MPA CRC trailer, exactly as the wire requires.
 */
package io.jndk.iwarp.codec;
