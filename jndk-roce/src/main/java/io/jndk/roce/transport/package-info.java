/**
 * The {@code roce} transport: RoCEv2 devices (one per local IP address and UDP port in a JVM), their links (UDP socket
 * or Ethernet frames), connection management over QP1 and the RC queue pairs behind the provider's transport SPI.
 */
package io.jndk.roce.transport;
