package io.jndk.provider.spi;

import java.nio.ByteBuffer;

/**
 * Memory the provider has already checked (token, bounds, rights) for one transfer: a local SGE list, or the
 * target/source range of an inbound tagged access. Offsets are relative to the start of the transfer. The
 * transport moves bytes only through it, so nothing outside the grant can be touched.
 */
public interface BufferCursor {
    /** Bytes covered. */
    long length();

    /**
     * Places {@code length} octets of {@code src} (absolute indexes from {@code index}) at {@code offset}.
     *
     * @return false if the range is not inside the grant (nothing is written then)
     */
    boolean place(long offset, ByteBuffer src, int index, int length);

    /**
     * Fills {@code out} (from {@code outIndex}) with buffer views covering {@code [offset, offset+length)} for a
     * gathering write; each view's position/limit delimit its bytes.
     *
     * @return the number of views written, or -1 if more than {@code out.length - outIndex} are needed or the
     *     range is outside the grant
     */
    default int slices(long offset, long length, ByteBuffer[] out, int outIndex) {
        return slices(offset, length, Long.MAX_VALUE, out, outIndex);
    }

    /**
     * As {@link #slices(long, long, ByteBuffer[], int)}, and a view also ends at every multiple of {@code split}
     * octets counted from {@code offset} (a gathering write of several FPDUs: each view lies inside one FPDU's
     * payload). The views one call returns are distinct objects, so all of them can sit in one gathering write; a
     * later call on the same cursor may reuse them.
     *
     * @param split positive; {@code Long.MAX_VALUE} splits only at memory pieces
     */
    int slices(long offset, long length, long split, ByteBuffer[] out, int outIndex);
}
