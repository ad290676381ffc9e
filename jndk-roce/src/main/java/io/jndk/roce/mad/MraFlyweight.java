package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Flyweight over a MessageReceiptAcknowledgement (MRA, attribute 0x0011; IBTA vol. 1 section 12.6.6, table 107): local communication ID (CM offset 0), remote
 * communication ID (4), Message MRAed (8, upper 2 bits: 0 REQ, 1 REP, 2 LAP), Service Timeout (9, upper 5 bits), then private data from CM offset 10 to the end of the MAD.
 */
public final class MraFlyweight extends CmPairedMessageFlyweight {

    /** CM offset of the private data. */
    public static final int PRIVATE_DATA = 10;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = DATA_LENGTH - PRIVATE_DATA;
    /** CM offset of the octet holding Message MRAed. */
    public static final int MESSAGE_MRAED = 8;
    /** CM offset of the octet holding the service timeout. */
    public static final int SERVICE_TIMEOUT = 9;

    /** Creates an unwrapped flyweight. */
    public MraFlyweight() {
        super(CmAttribute.MRA, PRIVATE_DATA);
    }

    @Override
    public MraFlyweight wrap(ByteBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the 2-bit code of the message acknowledged: 0 REQ, 1 REP, 2 LAP */
    public int messageMraed() {
        return bits(MESSAGE_MRAED, 0xC0, 6);
    }

    /** @param code the 2-bit code of the message acknowledged */
    public void messageMraed(int code) {
        putBits(MESSAGE_MRAED, 0xC0, 6, code);
    }

    /** @return the 5-bit service timeout (4.096 us * 2^value) */
    public int serviceTimeout() {
        return bits(SERVICE_TIMEOUT, 0xF8, 3);
    }

    /** @param timeout the 5-bit service timeout */
    public void serviceTimeout(int timeout) {
        putBits(SERVICE_TIMEOUT, 0xF8, 3, timeout);
    }
}
