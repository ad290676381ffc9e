package io.jndk.roce.codec;

/**
 * The extension transport headers that may follow the BTH (IBTA vol. 1 section 9.3), with their fixed lengths.
 * {@link RoceOpcode} lists, per opcode, which of them follow in wire order.
 */
public enum ExtensionHeader {
    /** Datagram ETH: Q_Key and source QP (UD). */
    DETH(DethFlyweight.LENGTH),
    /** RDMA ETH: virtual address, R_Key, DMA length. */
    RETH(RethFlyweight.LENGTH),
    /** Atomic ETH: virtual address, R_Key, swap/add and compare data. */
    ATOMIC_ETH(AtomicEthFlyweight.LENGTH),
    /** ACK ETH: syndrome and MSN. */
    AETH(AethFlyweight.LENGTH),
    /** Atomic acknowledge ETH: the original remote data. */
    ATOMIC_ACK_ETH(AtomicAckEthFlyweight.LENGTH),
    /** Immediate data. */
    IMMDT(ImmDtFlyweight.LENGTH),
    /** Invalidate ETH: the R_Key to invalidate. */
    IETH(IethFlyweight.LENGTH);

    private final int length;

    ExtensionHeader(int length) {
        this.length = length;
    }

    /** @return the header's length in octets */
    public int length() {
        return length;
    }
}
