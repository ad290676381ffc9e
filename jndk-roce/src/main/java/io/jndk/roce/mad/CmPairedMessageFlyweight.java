package io.jndk.roce.mad;

/**
 * A CM message that answers or follows another and so names both ends: local communication ID at CM offset 0,
 * remote communication ID at 4 (MRA, REJ, REP, RTU, DREQ, DREP).
 */
public abstract class CmPairedMessageFlyweight extends CmMessageFlyweight {

    /** CM offset of the remote communication ID. */
    public static final int REMOTE_COMM_ID = 4;

    /**
     * Creates an unwrapped flyweight.
     *
     * @param attribute the message this flyweight reads
     * @param privateDataOffset the CM offset of its private data
     */
    protected CmPairedMessageFlyweight(CmAttribute attribute, int privateDataOffset) {
        super(attribute, privateDataOffset);
    }

    /** @return the remote communication ID (the peer's local one; 0 when not known yet) */
    public final int remoteCommId() {
        return i32(REMOTE_COMM_ID);
    }

    /**
     * @param id the remote communication ID
     */
    public final void remoteCommId(int id) {
        putI32(REMOTE_COMM_ID, id);
    }
}
