package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;

/** Builds an FPDU again from the fields the decoder parsed, only through {@link FpduEncoder}. */
final class Reencoder {

    private Reencoder() {
    }

    static byte[] reencode(FpduHeaderView h, byte[] payload, boolean crc) {
        FpduEncoder encoder = new FpduEncoder(crc);
        ByteBuffer dst = ByteBuffer.allocate(h.fpduLength());
        ByteBuffer p = ByteBuffer.wrap(payload);
        int written = switch (h.opcode()) {
            case RDMA_WRITE, RDMA_READ_RESPONSE ->
                encoder.tagged(dst, 0, h.opcode(), h.last(), h.stag(), h.taggedOffset(), p, 0, payload.length);
            case RDMA_READ_REQUEST -> {
                ReadRequestFlyweight rr = h.readRequest();
                yield encoder.readRequest(dst, 0, h.msn(), rr.sinkStag(), rr.sinkTaggedOffset(), rr.readSize(),
                    rr.sourceStag(), rr.sourceTaggedOffset());
            }
            case TERMINATE -> {
                TerminateFlyweight t = h.terminate();
                int attached = Math.max(0, t.length() - TerminateFlyweight.COPIED_DDP_HEADER_OFFSET);
                yield encoder.terminate(dst, 0, h.msn(), t.layer(), t.errorType(), t.errorCode(),
                    t.flagM(), t.flagD(), t.flagR(), t.hasDdpSegmentLength() ? t.ddpSegmentLength() : 0,
                    h.buffer(), t.copiedDdpHeaderIndex(), attached);
            }
            default -> encoder.untagged(dst, 0, h.opcode(), h.last(), h.invalidateStag(), h.queueNumber(), h.msn(),
                h.messageOffset(), p, 0, payload.length);
        };
        if (h.receivedPad() != 0) {
            // the encoder always zeroes the pad; reproduce a peer's non-zero pad to compare octet for octet
            new FpduFlyweight().wrap(dst, 0).pad(h.receivedPad()).writeTrailer(crc, new java.util.zip.CRC32C());
        }
        if (written != dst.capacity()) {
            throw new AssertionError("encoder wrote " + written + " octets, expected " + dst.capacity());
        }
        return dst.array();
    }
}
