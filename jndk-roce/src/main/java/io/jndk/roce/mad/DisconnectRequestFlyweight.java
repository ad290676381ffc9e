package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Flyweight over a DisconnectRequest (DREQ, attribute 0x0015; IBTA vol. 1 section 12.6.10, table 112): local communication ID (CM offset 0), remote
 * communication ID (4), remote QPN or EECN (8, 24 bits; octet 11 reserved), then private data from CM offset 12 to the end of the MAD.
 */
public final class DisconnectRequestFlyweight extends CmPairedMessageFlyweight {

    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 12;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;
    /** CM offset of the remote QPN/EECN. */
    public static final int REMOTE_QPN = 8;

    /** Creates an unwrapped flyweight. */
    public DisconnectRequestFlyweight() {
        super(CmAttribute.DREQ, PRIVATE_DATA);
    }

    @Override
    public DisconnectRequestFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the 24-bit remote QPN (or EECN) */
    public int remoteQpn() {
        return u24(REMOTE_QPN);
    }

    /** @param qpn the 24-bit remote QPN (or EECN) */
    public void remoteQpn(int qpn) {
        putU24(REMOTE_QPN, qpn);
    }
}
