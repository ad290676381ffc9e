/**
 * The transport SPI: what a transport implements ({@link io.jndk.provider.spi.WireTransport},
 * {@link io.jndk.provider.spi.WireConnection}) and what the verbs engine offers it for one connected QP
 * ({@link io.jndk.provider.spi.QpPort}). Every transport sits behind it — the in-JVM {@code loopback}
 * ({@code io.jndk.provider.loopback}) as much as {@code iwarp} — so the provider has one connection protocol and one
 * implementation of every access, bounds, invalidation, ordering and flush rule, and "the same behaviour on every
 * transport" holds by construction. Nothing here is specific to a wire: no MPA, no TCP (a transport's own choices,
 * such as MPA CRC, are its own options).
 *
 * <h2>Connection setup</h2>
 * <ul>
 *   <li>Active: {@link io.jndk.provider.spi.WireTransport#connect} hands over the request (private data, read limits,
 *       a deadline); it returns at once, either {@code STATUS_PENDING} with exactly one later call of the
 *       {@link io.jndk.provider.spi.ActiveHandler} (reply, reject or failure), or the status of an attempt that failed
 *       before anything left (then the handler is never called). After {@code onReply} the provider either
 *       {@link io.jndk.provider.spi.WireConnection#start starts} the connection (binding its QP port) or
 *       {@link io.jndk.provider.spi.WireConnection#reject rejects} it.</li>
 *   <li>Passive: each complete request reaches the {@link io.jndk.provider.spi.ListenHandler} as an
 *       {@link io.jndk.provider.spi.IncomingRequest}, which the provider accepts (with its QP port and a
 *       {@link io.jndk.provider.spi.PassiveHandler}), rejects, or refuses; the passive handler then hears exactly once
 *       that the requester established the connection or abandoned it.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * No SPI method blocks on the network, and the provider never calls one while it holds a provider lock other than a
 * connector's monitor during connection setup. A transport calls the port's transmit-side methods ({@code nextRequest},
 * {@code sent}) from one thread at a time, and its receive-side methods ({@code writeTarget}, {@code readSource},
 * {@code beginReceive}, {@code endReceive}, {@code failReceive}, {@code readDone}, {@code peerClosed}) from one thread
 * at a time; a transmit-side and a receive-side call may run at once. {@link io.jndk.provider.spi.WireConnection#kick}
 * may be called by any thread (a consumer posting); the transport decides which thread runs the work (its own, or
 * the caller's). Callbacks to consumers are the provider's: a transport never calls consumer code, but the provider
 * may run notifications on a transport thread that marked itself an {@link io.jndk.provider.spi.EngineThread}.
 *
 * <h2>Memory</h2>
 * A transport reaches registered memory only through {@link io.jndk.provider.spi.BufferCursor}s the provider hands
 * it after the access check: a request's local SGE list ({@link io.jndk.provider.spi.WireRequest#local}), or the range
 * an inbound tagged access or Send may touch. A cursor stays valid until the request is reported back ({@code sent},
 * {@code readDone}) or the receive ends; a Read source until {@link io.jndk.provider.spi.QpPort#READ_RESPONSE_BATCH}
 * further inbound Reads. Nothing outside a cursor's grant can be touched.
 *
 * <h2>Completion rules</h2>
 * The port completes requests in posting order: a Write or Send when the transport reports it sent (handed to the
 * wire, or placed), a Read when its response is placed; local operations (bind, fast-register, invalidate) inside
 * {@code nextRequest}. A check the port refuses returns a Terminate code ({@link io.jndk.provider.spi.Term}, the
 * provider's error vocabulary whatever the wire's own): the transport answers it as its wire does (iWARP: a Terminate
 * frame) and reports the failure. Any failure of the connection is reported once with
 * {@link io.jndk.provider.spi.QpPort#failed} (the QP goes to error and flushes; the oldest request on the wire
 * carries the status, and every request behind it completes cancelled, even one the transport already reported
 * sent), an orderly close by the peer with {@link io.jndk.provider.spi.QpPort#peerClosed}; after the
 * provider's own {@code abort} or {@code reset} the transport reports nothing back.
 */
package io.jndk.provider.spi;
