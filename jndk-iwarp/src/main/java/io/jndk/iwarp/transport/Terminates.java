package io.jndk.iwarp.transport;

import io.jndk.iwarp.codec.DdpTaggedHeaderFlyweight;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.ReadRequestFlyweight;
import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.iwarp.codec.TerminateFlyweight;
import io.jndk.provider.spi.Term;
import java.nio.ByteBuffer;

/**
 * Every Terminate this side sends is built here (siw's {@code siw_send_terminate}), as the {@link Failure} that
 * carries it: a check on a received FPDU failed ({@link #sending} with the offending header), a local error or a
 * provider's abort ({@link #sending} without one), or the decoder rejected the stream ({@link #answering}). The
 * attachments follow IWARP.md 3.8 (RFC 5040 Figure 10 as siw applies it).
 *
 * <p>This is also where the two Terminate catalogues meet: the provider's packed {@link Term} ints (the
 * {@code QpPort} contract) and the codec's {@link TerminateCode} (which the codec keeps, since it must not import
 * the provider); {@code TerminateCatalogueTest} keeps them in step.
 *
 * <p>One instance per thread that builds frames (it uses that thread's encoder). Frames are allocated: this is the
 * failure path.
 */
final class Terminates {
    private final FpduEncoder encoder;

    /** @param encoder the owning thread's encoder (not shared with another thread) */
    Terminates(FpduEncoder encoder) {
        this.encoder = encoder;
    }

    /**
     * The failure of sending {@code term}.
     *
     * @param term a packed {@link Term} code; 0 sends none
     * @param offending the received FPDU that failed a check (its DDP header is attached where the code asks for
     *     it), or {@code null}
     */
    Failure sending(int term, FpduHeaderView offending) {
        return Failure.terminateSent(term, term == 0 ? null : frame(term, offending));
    }

    /** The local catastrophic error of the transmit side (a request it cannot send): RDMAP/0/0xFF, as siw. */
    Failure localCatastrophic() {
        return sending(Term.RDMAP_CATASTROPHIC, null);
    }

    /**
     * The answer to a decoder error (the stream cannot be parsed on): the error's Terminate, with the offending DDP
     * header when the code copies it and enough of it arrived; a malformed Terminate is never answered.
     */
    Failure answering(FpduError error, FpduDecoder decoder) {
        TerminateCode code = error.terminate();
        if (code == null) { // a malformed Terminate: close, never answer
            return Failure.terminateReceived(0);
        }
        ByteBuffer frame;
        if (code.copiesDdpHeader() && decoder.collectedHeaderLength() >= FpduFlyweight.ULPDU_OFFSET
            + DdpTaggedHeaderFlyweight.LENGTH) {
            ByteBuffer copy = ByteBuffer.allocate(FpduFlyweight.ULPDU_OFFSET + DdpUntaggedHeaderFlyweight.LENGTH);
            int copied = decoder.copyDdpHeader(copy, FpduFlyweight.ULPDU_OFFSET);
            int ulpdu = decoder.header().buffer().getShort(0) & 0xFFFF;
            frame = ByteBuffer.allocate(FpduFlyweight.fpduLength(
                DdpUntaggedHeaderFlyweight.LENGTH + TerminateFlyweight.MAX_LENGTH));
            int n = encoder.terminate(frame, 0, 1, code, false, Math.max(0, ulpdu - copied), copy,
                FpduFlyweight.ULPDU_OFFSET, copied);
            frame.limit(n);
        } else {
            frame = ByteBuffer.allocate(64);
            frame.limit(encoder.terminate(frame, 0, 1, code, false, 0, null, 0, 0));
        }
        return Failure.terminateSent(term(code), frame);
    }

    /** The provider's packed form of a codec code. */
    static int term(TerminateCode code) {
        return Term.of(code.layer(), code.errorType(), code.errorCode());
    }

    /**
     * Builds a Terminate FPDU for a packed {@link Term} code with the attachments IWARP.md 3.8 asks for.
     *
     * @param header the offending FPDU's header (its opcode, and its DDP payload length for the DDP Segment Length
     *     field), or {@code null}
     */
    private ByteBuffer frame(int term, FpduHeaderView header) {
        int layer = Term.layer(term), etype = Term.etype(term), code = Term.code(term);
        boolean attach = header != null && attachesDdpHeader(layer, etype, code);
        int attached = 0;
        int payloadLength = 0;
        boolean r = false;
        if (attach) {
            RdmapOpcode opcode = header.opcode();
            payloadLength = header.payloadLength();
            attached = opcode.tagged() ? DdpTaggedHeaderFlyweight.LENGTH : DdpUntaggedHeaderFlyweight.LENGTH;
            if (layer == Term.LAYER_RDMAP && etype == TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION
                && opcode == RdmapOpcode.RDMA_READ_REQUEST) {
                attached += ReadRequestFlyweight.LENGTH;
                r = true;
            }
        }
        ByteBuffer frame = ByteBuffer.allocate(FpduFlyweight.fpduLength(
            DdpUntaggedHeaderFlyweight.LENGTH + TerminateFlyweight.MAX_LENGTH));
        int n = encoder.terminate(frame, 0, 1, layer, etype, code, attach, attach, r,
            payloadLength, attach ? header.buffer() : null, FpduFlyweight.ULPDU_OFFSET, attached);
        return frame.limit(n);
    }

    /** RFC 5040 Figure 10 as siw applies it: which errors copy the offending DDP header. */
    private static boolean attachesDdpHeader(int layer, int etype, int code) {
        TerminateCode known = TerminateCode.of(layer, etype, code);
        if (known != null) {
            return known.copiesDdpHeader();
        }
        return layer != Term.LAYER_LLP && etype != 0;
    }
}
