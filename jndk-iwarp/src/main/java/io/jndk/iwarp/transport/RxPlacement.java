package io.jndk.iwarp.transport;

import io.jndk.provider.spi.BufferCursor;
import java.nio.ByteBuffer;

/**
 * Where the payload of the FPDU being received goes (siw's {@code siw_rx_fpdu}): the checked target the message's
 * handler chose in {@code onHeader} ({@link #at}), the offset the next octet lands at, and whether placement failed.
 * Payload arrives either through the decoder ({@link #place}) or read straight into the target
 * ({@link RxEngine}'s direct placement, which reports it with {@link #placed}).
 *
 * <p>Owned by whoever runs the receive side.
 */
final class RxPlacement {
    /** Payloads at least this large are read straight into their target. */
    static final int DIRECT_PLACEMENT_MIN = 8192;

    private BufferCursor target;
    private long offset;
    private boolean failed;
    /**
     * Whether one of the last two frames carried a payload worth placing directly: the next read then takes just a
     * header, so that a large payload that follows goes straight into its target. Two, not one: a large message is
     * cut into full frames and a short last one (64 KiB on loopback's MSS: 65,460 octets, then 76), and a read sized
     * after that short frame alone took a whole buffer of the next large frame and copied it (20-44 % of the payload
     * octets of a 64 KiB stream went through the buffer; docs/PERFORMANCE.md, "payload copied after a short frame").
     */
    private boolean largeFrames;
    /** Whether the last frame's payload was large. */
    private boolean lastLarge;

    /** Payload octets of the current FPDU read straight into the target, and handed over by the decoder. */
    private long directInFrame, bufferedInFrame;

    /** A new FPDU: no target until its handler names one. */
    void reset() {
        target = null;
        offset = 0;
        failed = false;
        directInFrame = 0;
        bufferedInFrame = 0;
    }

    /** The FPDU's payload goes to {@code cursor} from {@code at}. */
    void at(BufferCursor cursor, long at) {
        target = cursor;
        offset = at;
    }

    /** A payload piece the decoder handed over: placed, unless there is no target or placement failed already. */
    void place(ByteBuffer buffer, int index, int length) {
        bufferedInFrame += length;
        if (target == null || failed) {
            return;
        }
        if (!target.place(offset, buffer, index, length)) {
            failed = true;
        }
        offset += length;
    }

    /** @return the target for a direct read, or {@code null} (no target, or placement failed) */
    BufferCursor directTarget() {
        return failed ? null : target;
    }

    /** @return where the next payload octet lands in the target */
    long offset() {
        return offset;
    }

    /** {@code n} payload octets were read straight into the target. */
    void placed(int n) {
        directInFrame += n;
        offset += n;
    }

    /** @return how the current FPDU's payload arrived so far, for a person reading a CRC mismatch's log line */
    String arrival() {
        return directInFrame + " payload octets read straight into the target, " + bufferedInFrame
            + " through the receive buffer";
    }

    /** @return whether a piece fell outside the target's grant (the FPDU is answered with a Terminate) */
    boolean failed() {
        return failed;
    }

    /** The FPDU ended: remembers whether it was large, for the size of the next read. */
    void frameEnded(int payloadLength) {
        boolean large = payloadLength >= DIRECT_PLACEMENT_MIN;
        largeFrames = large || lastLarge;
        lastLarge = large;
    }

    /** @return whether one of the last two frames' payloads was large enough to be placed directly */
    boolean largeFrames() {
        return largeFrames;
    }
}
