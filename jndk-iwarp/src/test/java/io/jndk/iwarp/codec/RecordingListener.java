package io.jndk.iwarp.codec;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/** Listener that records every frame, checks callback order and can re-encode each frame from its parsed fields. */
final class RecordingListener implements FpduListener {

    final List<DecodedFrame> frames = new ArrayList<>();
    final List<byte[]> reencoded = new ArrayList<>();
    private final ByteArrayOutputStream payload = new ByteArrayOutputStream();
    private final boolean reencodeWithCrc;
    private final boolean reencode;
    private BiConsumer<FpduHeaderView, byte[]> onFrame = (h, p) -> { };
    private byte[] header;
    private int pieces;
    private boolean inFrame;

    RecordingListener() {
        this(false, false);
    }

    RecordingListener(boolean reencode, boolean reencodeWithCrc) {
        this.reencode = reencode;
        this.reencodeWithCrc = reencodeWithCrc;
    }

    RecordingListener onFrame(BiConsumer<FpduHeaderView, byte[]> action) {
        this.onFrame = action;
        return this;
    }

    @Override
    public void onHeader(FpduHeaderView view) {
        if (inFrame) {
            throw new AssertionError("onHeader before onFrameEnd of the previous frame");
        }
        inFrame = true;
        header = new byte[view.headerLength()];
        view.buffer().get(0, header);
        payload.reset();
        pieces = 0;
    }

    @Override
    public void onPayload(ByteBuffer buffer, int index, int length) {
        if (!inFrame || length <= 0) {
            throw new AssertionError("onPayload outside a frame or empty");
        }
        byte[] piece = new byte[length];
        buffer.get(index, piece);
        payload.writeBytes(piece);
        pieces++;
    }

    @Override
    public void onFrameEnd(FpduHeaderView view, CrcVerdict verdict) {
        if (!inFrame) {
            throw new AssertionError("onFrameEnd without onHeader");
        }
        inFrame = false;
        byte[] body = payload.toByteArray();
        if (body.length != view.payloadLength()) {
            throw new AssertionError("payload length " + body.length + " != " + view.payloadLength());
        }
        frames.add(new DecodedFrame(Hex.of(header), Hex.of(body), view.opcode(), verdict, pieces));
        if (reencode) {
            reencoded.add(Reencoder.reencode(view, body, reencodeWithCrc));
        }
        onFrame.accept(view, body);
    }

    List<DecodedFrame> contents() {
        return frames.stream().map(DecodedFrame::content).toList();
    }
}
