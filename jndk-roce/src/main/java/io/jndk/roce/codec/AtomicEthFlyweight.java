package io.jndk.roce.codec;

import java.nio.ByteBuffer;

/**
 * Flyweight over the 28-octet Atomic Extended Transport Header (IBTA vol. 1 section 9.3.4, figure 131) of
 * CmpSwap and FetchAdd requests.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Virtual Address (64)                      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                            R_Key                              |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  Swap (or Add) Data (64)                      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      Compare Data (64)                        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>FetchAdd ignores Compare Data (rxe sends 0). The virtual address must be 8-octet aligned for a valid atomic.
 */
public final class AtomicEthFlyweight extends RemoteAccessFlyweight<AtomicEthFlyweight> {

    /** Header length. */
    public static final int LENGTH = 28;
    /** Offset of the swap or add data. */
    public static final int SWAP_ADD_OFFSET = 12;
    /** Offset of the compare data. */
    public static final int COMPARE_OFFSET = 20;

    /** Creates an unwrapped flyweight. */
    public AtomicEthFlyweight() {
    }

    @Override
    public AtomicEthFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    @Override
    public int length() {
        return LENGTH;
    }

    @Override
    protected AtomicEthFlyweight self() {
        return this;
    }

    /** @return the swap data (CmpSwap) or the addend (FetchAdd) */
    public long swapOrAdd() {
        return NetworkOrder.i64(buffer, offset + SWAP_ADD_OFFSET);
    }

    /**
     * @param value the swap data or the addend
     * @return this
     */
    public AtomicEthFlyweight swapOrAdd(long value) {
        NetworkOrder.putI64(buffer, offset + SWAP_ADD_OFFSET, value);
        return this;
    }

    /** @return the compare data */
    public long compare() {
        return NetworkOrder.i64(buffer, offset + COMPARE_OFFSET);
    }

    /**
     * @param value the compare data
     * @return this
     */
    public AtomicEthFlyweight compare(long value) {
        NetworkOrder.putI64(buffer, offset + COMPARE_OFFSET, value);
        return this;
    }
}
