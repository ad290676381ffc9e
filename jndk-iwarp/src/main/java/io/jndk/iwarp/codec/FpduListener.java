package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/**
 * Receives what {@link FpduDecoder} parses, in stream order: for every FPDU exactly one
 * {@link #onHeader}, then zero or more {@link #onPayload} pieces, then one {@link #onFrameEnd}.
 * Callbacks run on the thread calling {@link FpduDecoder#feed}; a callback may call
 * {@link FpduDecoder#stop()}.
 */
public interface FpduListener {

    /**
     * The complete, validated DDP/RDMAP header of an FPDU, before any payload octet: enough to look
     * up the target buffer for direct placement.
     *
     * @param header a view valid until the next {@code onHeader}; do not keep it
     */
    void onHeader(FpduHeaderView header);

    /**
     * A piece of DDP payload, in the pieces it arrived in. The octets are {@code buffer.get(index)}
     * through {@code buffer.get(index + length - 1)}; use absolute access, and copy what must outlive
     * the call. Position and limit of {@code buffer} are not meaningful.
     *
     * @param buffer the caller's input buffer
     * @param index absolute index of the first payload octet of this piece
     * @param length number of octets, at least 1
     */
    void onPayload(ByteBuffer buffer, int index, int length);

    /**
     * The trailer of the FPDU has been read.
     *
     * @param header the same view as passed to {@code onHeader}
     * @param verdict the CRC outcome; on {@link CrcVerdict#MISMATCH} the decoder then reports
     *     {@link FpduError#CRC_MISMATCH}
     */
    void onFrameEnd(FpduHeaderView header, CrcVerdict verdict);
}
