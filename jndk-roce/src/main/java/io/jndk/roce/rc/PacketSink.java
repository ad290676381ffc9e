package io.jndk.roce.rc;

import java.nio.ByteBuffer;

/**
 * Where a requester or responder hands each packet it builds: one RoCEv2 UDP payload, BTH first, with a zero ICRC
 * field that the transport fills once it knows the IP and UDP headers ({@code Icrc.write}). The octets are valid
 * only during the call: the engine reuses its buffer for the next packet, so the sink sends or copies them before
 * returning.
 */
@FunctionalInterface
public interface PacketSink {

    /**
     * @param buffer the packet's buffer
     * @param offset index of the BTH's first octet
     * @param length the UDP payload's length, ICRC included
     */
    void send(ByteBuffer buffer, int offset, int length);
}
