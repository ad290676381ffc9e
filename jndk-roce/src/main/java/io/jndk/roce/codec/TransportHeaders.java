package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/** The BTH and one flyweight per extension header, wrapped together over one packet; shared by decoder and encoder. */
final class TransportHeaders {

    final BthFlyweight bth = new BthFlyweight();
    final DethFlyweight deth = new DethFlyweight();
    final RethFlyweight reth = new RethFlyweight();
    final AtomicEthFlyweight atomicEth = new AtomicEthFlyweight();
    final AethFlyweight aeth = new AethFlyweight();
    final AtomicAckEthFlyweight atomicAckEth = new AtomicAckEthFlyweight();
    final ImmDtFlyweight immDt = new ImmDtFlyweight();
    final IethFlyweight ieth = new IethFlyweight();

    HeaderFlyweight get(ExtensionHeader h) {
        return switch (h) {
            case DETH -> deth;
            case RETH -> reth;
            case ATOMIC_ETH -> atomicEth;
            case AETH -> aeth;
            case ATOMIC_ACK_ETH -> atomicAckEth;
            case IMMDT -> immDt;
            case IETH -> ieth;
        };
    }

    /** Wraps the BTH and the opcode's extension headers of the packet whose BTH starts at {@code offset}. */
    void wrap(ByteBuffer buffer, int offset, RoceOpcode opcode) {
        bth.wrap(buffer, offset);
        for (int i = 0; i < opcode.headerCount(); i++) {
            ExtensionHeader h = opcode.header(i);
            get(h).wrap(buffer, offset + opcode.headerOffset(h));
        }
    }
}
