/**
 * The reliability core of the RoCEv2 Reliable Connected transport (IBTA vol. 1 section 9.7): a {@link
 * io.jndk.roce.rc.Requester} and a {@link io.jndk.roce.rc.Responder} for one queue pair, each a deterministic state
 * machine without sockets, threads or a clock of its own. The caller feeds decoded-to-be packets in with {@code
 * onPacket}, pulls packets out with {@code poll} into a {@link io.jndk.roce.rc.PacketSink}, and drives the
 * requester's timers with {@code onTimer(now)} on the clock it injected. Local memory is reached through {@link
 * io.jndk.roce.rc.LocalBuffer}, the responder's target memory through {@link io.jndk.roce.rc.RemoteAccess}.
 *
 * <p>Not exported: the transport that carries these packets over UDP and the provider SPI build on it inside the
 * module. See {@code docs/ROCE-RC.md} for the rules, their IBTA sections and what Linux rxe does.
 */
package io.jndk.roce.rc;
