package io.jndk.iwarp.transport;

import io.jndk.api.NtStatus;
import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.TerminateFlyweight;
import io.jndk.iwarp.transport.ConnectionState.Phase;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.WireCounters;
import java.nio.ByteBuffer;

/**
 * What each received FPDU means: the {@link FpduDecoder}'s listener (siw's {@code iwarp_pktinfo[].rx_data} and
 * {@code siw_rdmap_complete}). {@link #onHeader} counts the frame, lets the initiator's first FPDU establish a passive
 * side, then switches on the opcode into the handler of its message: {@link InboundWrite}, {@link InboundSend},
 * {@link InboundReadRequest}, {@link InboundReadResponse}, or a received Terminate. {@link #onFrameEnd} switches
 * again to complete what the frame finished. Each handler answers 0 or the Terminate code to send; a failed check
 * becomes a Terminate here ({@link #protocolError}, built by {@link Terminates}) and decoding stops. The handlers are
 * final fields of concrete classes, so both switches stay monomorphic and allocation-free.
 *
 * <p>Owned by whoever runs the receive side (see {@link RxEngine}).
 */
final class RxDispatch implements FpduListener {
    // ---- wiring, set at construction ---------------------------------------------------------------------
    private final IwarpConnection connection;
    private final ConnectionState state;
    private final WireCounters counters;
    private final ConsumerDrive drive;
    private final FpduDecoder decoder;
    private final Terminates terminates;
    private final RxPlacement placement = new RxPlacement();
    private final InboundWrite write;
    private final InboundSend send;
    private final InboundReadRequest readRequest;
    private final InboundReadResponse readResponse;
    // ---- owned by whoever runs the receive side ---------------------------------------------------------
    /** The opcode of the FPDU being received. */
    private RdmapOpcode opcode;

    RxDispatch(IwarpConnection connection, QpPort qp, ReadQueues queues, TxEngine tx) {
        this.connection = connection;
        this.state = connection.state;
        this.counters = connection.counters();
        this.drive = connection.drive;
        boolean crc = connection.negotiated().crc();
        this.decoder = new FpduDecoder(this, crc);
        this.terminates = new Terminates(new FpduEncoder(crc));
        this.write = new InboundWrite(qp, placement);
        this.send = new InboundSend(qp, placement);
        this.readRequest = new InboundReadRequest(qp, queues, tx);
        this.readResponse = new InboundReadResponse(qp, queues, tx, placement, connection.sinkStag);
    }

    /** @return the decoder this listens to (fed by {@link RxEngine}) */
    FpduDecoder decoder() {
        return decoder;
    }

    /** @return the current FPDU's placement (for direct placement) */
    RxPlacement placement() {
        return placement;
    }

    /** @return the Terminates of the receive side (built with its own encoder) */
    Terminates terminates() {
        return terminates;
    }

    /** A Send in progress when the connection breaks completes its receive in error. */
    void abandonReceive() {
        send.fail(NtStatus.STATUS_CANCELLED, 0);
    }

    @Override
    public void onHeader(FpduHeaderView h) {
        counters.fpduIn();
        if (drive.consumerStepping()) {
            counters.fpduInPolled();
        }
        if (state.phase() != Phase.ESTABLISHED && !connection.firstFrameArrived()) {
            decoder.stop(); // an abandoned passive side
            return;
        }
        opcode = h.opcode();
        placement.reset();
        int length = h.payloadLength();
        int term = switch (opcode) {
            case RDMA_WRITE -> write.onHeader(h, length);
            case RDMA_READ_RESPONSE -> readResponse.onHeader(h, length);
            case RDMA_READ_REQUEST -> readRequest.onHeader(h);
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE -> send.onHeader(h, length);
            case TERMINATE -> received(h.terminate());
        };
        if (term != 0) {
            // a Send longer than its receive completes that receive with STATUS_BUFFER_OVERFLOW, the rest cancelled
            protocolError(term, h, term == Term.DDP_UNTAGGED_TOO_LONG ? NtStatus.STATUS_BUFFER_OVERFLOW
                : NtStatus.STATUS_CANCELLED);
        }
    }

    @Override
    public void onPayload(ByteBuffer buffer, int index, int length) {
        placement.place(buffer, index, length);
    }

    @Override
    public void onFrameEnd(FpduHeaderView h, CrcVerdict verdict) {
        placement.frameEnded(h.payloadLength());
        if (verdict == CrcVerdict.MISMATCH) {
            return; // the decoder reports CRC_MISMATCH next
        }
        int length = h.payloadLength();
        if (placement.failed()) {
            boolean tagged = opcode.tagged();
            protocolError(tagged ? Term.DDP_TAGGED_BASE_BOUNDS : Term.DDP_UNTAGGED_TOO_LONG, h,
                tagged ? NtStatus.STATUS_CANCELLED : NtStatus.STATUS_BUFFER_OVERFLOW);
            return;
        }
        int term = 0;
        switch (opcode) {
            case RDMA_WRITE, TERMINATE -> { }
            case RDMA_READ_RESPONSE -> term = readResponse.onFrameEnd(h, length);
            case RDMA_READ_REQUEST -> readRequest.onFrameEnd();
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE ->
                term = send.onFrameEnd(h, opcode, length);
        }
        if (term != 0) {
            protocolError(term, h);
        }
    }

    /** The peer's Terminate (siw's {@code siw_proc_terminate}): the connection fails as it says, at once. */
    private int received(TerminateFlyweight t) {
        int term = Term.of(t.layer(), t.errorType(), t.errorCode());
        abandonReceive();
        connection.fail(Failure.terminateReceived(term));
        decoder.stop();
        return 0;
    }

    /** A check failed on the current FPDU: Terminate (attachments per IWARP.md 3.8), stop decoding. */
    private void protocolError(int term, FpduHeaderView header) {
        protocolError(term, header, NtStatus.STATUS_CANCELLED);
    }

    /**
     * {@link #protocolError(int, FpduHeaderView)}; a Send in progress completes its receive with {@code status}, once
     * the failure is recorded ({@link IwarpConnection#fail(Failure, Runnable)}).
     */
    private void protocolError(int term, FpduHeaderView header, int status) {
        Failure f = terminates.sending(term, header);
        connection.fail(f, () -> send.fail(status, term));
        decoder.stop();
    }
}
