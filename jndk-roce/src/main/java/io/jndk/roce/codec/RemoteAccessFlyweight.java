package io.jndk.roce.codec;

/**
 * The virtual address and R_Key that start both the RETH and the AtomicETH (IBTA vol. 1 sections 9.3.3 and
 * 9.3.4): a 64-bit address at offset 0, a 32-bit remote key at offset 8.
 *
 * @param <T> the concrete flyweight, returned by the setters for chaining
 */
public abstract class RemoteAccessFlyweight<T extends RemoteAccessFlyweight<T>> extends HeaderFlyweight {

    /** Offset of the virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the R_Key. */
    public static final int RKEY_OFFSET = 8;

    /** Creates an unwrapped flyweight. */
    protected RemoteAccessFlyweight() {
    }

    /** @return this, as the concrete type */
    protected abstract T self();

    /** @return the remote virtual address */
    public final long virtualAddress() {
        return NetworkOrder.i64(buffer, offset + VA_OFFSET);
    }

    /**
     * @param va the remote virtual address
     * @return this
     */
    public final T virtualAddress(long va) {
        NetworkOrder.putI64(buffer, offset + VA_OFFSET, va);
        return self();
    }

    /** @return the remote key */
    public final int rkey() {
        return NetworkOrder.i32(buffer, offset + RKEY_OFFSET);
    }

    /**
     * @param rkey the remote key
     * @return this
     */
    public final T rkey(int rkey) {
        NetworkOrder.putI32(buffer, offset + RKEY_OFFSET, rkey);
        return self();
    }
}
