package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.MpaFrameKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP connection whose MPA Request was received and validated, waiting for the ULP's answer.
 * Exactly one of {@link #accept}, {@link #reject} or {@link #close} takes effect; the others then
 * report {@link MpaFailure#INVALID_STATE} (or {@code false}). Thread-safe.
 *
 * <pre>
 *   PENDING --accept--> ACCEPTED   (Reply sent, channel handed over)
 *   PENDING --reject--> REJECTED   (Reply with R = 1 sent, channel closed)
 *   PENDING --close---> CLOSED     (no answer; also when the listener closes)
 * </pre>
 */
public final class PendingMpaConnection implements AutoCloseable {

    /** Lifecycle of a pending connection. */
    public enum State {
        /** Request received, no answer yet. */
        PENDING,
        /** Accepted; the channel belongs to the caller of {@link #accept}. */
        ACCEPTED,
        /** Rejected and closed. */
        REJECTED,
        /** Closed without an answer. */
        CLOSED
    }

    private final MpaListener listener;
    private final SocketChannel channel;
    private final MpaFrames.Frame frame;
    private final MpaRequest request;
    private final byte[] requestOctets;
    private final AtomicReference<State> state = new AtomicReference<>(State.PENDING);

    PendingMpaConnection(MpaListener listener, SocketChannel channel, MpaFrames.Frame frame, MpaRequest request,
                         byte[] requestOctets) {
        this.listener = listener;
        this.channel = channel;
        this.frame = frame;
        this.request = request;
        this.requestOctets = requestOctets;
    }

    /** @return the Request */
    public MpaRequest request() {
        return request;
    }

    /** @return the current state */
    public State state() {
        return state.get();
    }

    /**
     * Sends the MPA Reply: the Request's revision, S echoed, C if either side wants CRC (siw echoes the
     * initiator's C), A echoed, one RTR type selected from the offer, IRD/ORD after relaxed
     * negotiation, then {@code params}' private data.
     *
     * @param params this side's IRD, ORD, private data, CRC wish and preferred RTR types (its
     *     peer-to-peer flag and timeouts are not used: the Request decides the model)
     * @return {@link MpaOutcome.Accepted} with an empty surplus (nothing past the Request is read), or
     *     {@link MpaOutcome.Failed} ({@link MpaFailure#INVALID_STATE}, {@link MpaFailure#ABORTED},
     *     {@link MpaFailure#CANCELLED}); after a failure the channel is closed
     */
    public MpaOutcome accept(MpaParams params) {
        Objects.requireNonNull(params, "params");
        if (!state.compareAndSet(State.PENDING, State.ACCEPTED)) {
            return new MpaOutcome.Failed(MpaFailure.INVALID_STATE, "connection is " + state.get());
        }
        listener.forget(this);
        boolean crc = request.crc() || params.crc();
        int ird = params.ird();
        int ord = params.ord();
        Optional<RtrType> rtr = Optional.empty();
        MpaFrames.Word word = null;
        if (frame.enhanced()) {
            MpaNegotiation.Responder n = MpaNegotiation.respond(frame.word(), params);
            word = n.replyWord();
            ird = n.ird();
            ord = n.ord();
            rtr = n.rtr();
        }
        ByteBuffer reply = MpaFrames.encode(MpaFrameKind.REPLY, request.revision(), crc, false, word,
            params.privateDataUnsafe());
        try {
            MpaIo.writeFully(channel, reply);
            MpaNegotiated negotiated = new MpaNegotiated(MpaRole.RESPONDER, request.revision(), frame.enhanced(), crc,
                ird, ord, request.peerIrd(), request.peerOrd(), rtr.isPresent(), rtr, request.privateData(), false,
                (InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress) channel.getRemoteAddress());
            return new MpaOutcome.Accepted(negotiated, channel, ByteBuffer.allocate(0), MpaSetupFrames.copy(
                ByteBuffer.wrap(requestOctets), 0, requestOctets.length, reply, 0, reply.limit()));
        } catch (IOException e) {
            MpaIo.closeQuietly(channel);
            return new MpaOutcome.Failed(e instanceof ClosedByInterruptException ? MpaFailure.CANCELLED : MpaFailure.ABORTED,
                "writing the MPA Reply: " + MpaIo.describe(e));
        }
    }

    /**
     * Sends an MPA Reply with R = 1 (revision and S echoed, IRD/ORD 0, C echoed) followed by
     * {@code privateData}, then closes the connection.
     *
     * @param privateData ULP private data for the initiator, at most {@value MpaParams#MAX_PRIVATE_DATA} octets
     * @return whether the Reply was written; {@code false} if the connection was no longer pending or broke
     */
    public boolean reject(byte[] privateData) {
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > MpaParams.MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data " + data.length + " > " + MpaParams.MAX_PRIVATE_DATA);
        }
        if (!state.compareAndSet(State.PENDING, State.REJECTED)) {
            return false;
        }
        listener.forget(this);
        return listener.sendRejectAndClose(channel, request.revision(), frame.enhanced(), request.crc(), data);
    }

    /** Closes the connection without an answer (no-op unless pending). */
    @Override
    public void close() {
        if (state.compareAndSet(State.PENDING, State.CLOSED)) {
            listener.forget(this);
            MpaIo.closeQuietly(channel);
        }
    }

    @Override
    public String toString() {
        return "PendingMpaConnection[" + state.get() + " " + request + "]";
    }
}
