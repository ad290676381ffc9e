package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Flyweight over a ReadyToUse (RTU, attribute 0x0014; IBTA vol. 1 section 12.6.9, table 111): local communication ID (CM offset 0), remote
 * communication ID (4), then private data from CM offset 8 to the end of the MAD.
 */
public final class ReadyToUseFlyweight extends CmPairedMessageFlyweight {

    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 8;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;

    /** Creates an unwrapped flyweight. */
    public ReadyToUseFlyweight() {
        super(CmAttribute.RTU, PRIVATE_DATA);
    }

    @Override
    public ReadyToUseFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }
}
