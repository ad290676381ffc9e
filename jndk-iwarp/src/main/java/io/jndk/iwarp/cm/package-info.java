/**
 * MPA connection setup (RFC 5044 section 7.1, RFC 6581): the active side
 * ({@link io.jndk.iwarp.cm.MpaInitiator}), the passive side ({@link io.jndk.iwarp.cm.MpaListener} with
 * {@link io.jndk.iwarp.cm.PendingMpaConnection}), IRD/ORD and CRC negotiation, and the RTR frame
 * ({@link io.jndk.iwarp.cm.Rtr}).
 *
 * <p>Plain blocking networking over {@link java.nio.channels.SocketChannel}, meant to run on virtual
 * threads. This package knows nothing of queue pairs or of the NDK API: a successful setup hands
 * over the connected channel, the negotiated parameters and any FPDU octets already read, and the
 * layer above takes it from there. Failures are values ({@link io.jndk.iwarp.cm.MpaFailure}), never
 * exceptions; exceptions are thrown only for misuse (bad arguments).
 *
 * <p>Wire behaviour follows Linux soft-iWARP ({@code siw}): MPA revision 2 with the enhanced IRD/ORD
 * word, relaxed IRD/ORD negotiation, C echoed by the responder, at most 256 octets of private data,
 * a plain close for malformed Requests and an MPA reject for a markers request.
 */
package io.jndk.iwarp.cm;
