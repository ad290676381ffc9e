package io.jndk.roce.rc;

import io.jndk.roce.codec.AethFlyweight;
import io.jndk.roce.codec.Psn;
import io.jndk.roce.codec.RethFlyweight;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The receive half of one RC queue pair (IBTA vol. 1 section 9.7, the responder): checks each request packet's
 * PSN against the expected PSN (ePSN), executes the in-sequence ones, answers duplicates, and queues its responses
 * (ACKs, NAKs, RDMA READ responses) in PSN order for {@link #poll}.
 *
 * <ul>
 *   <li>In sequence ({@code PSN == ePSN}): a SEND is placed into the oldest posted receive across its packets, a
 *       WRITE is checked once through {@link RemoteAccess#check} over the RETH's range and then placed, a READ is
 *       checked and answered with {@code max(1, ceil(length / MTU))} response packets at PSNs from the request's on;
 *       ePSN moves past the request (past all the READ's response PSNs). The MSN counts completed messages (READs
 *       included) and goes in every AETH.</li>
 *   <li>ACKs are coalesced: one is queued when a packet carries AckReq, or after {@link RcConfig#ackCoalesce()}
 *       unacknowledged packets, and a queued ACK not yet sent is overwritten by a newer one.</li>
 *   <li>Duplicate ({@code PSN} behind ePSN within half the PSN space, 9.7.5.1.x): a SEND or WRITE packet is not
 *       executed again but acknowledged again with ePSN - 1; a READ request is answered again from memory when it
 *       falls inside one of the last {@link RcConfig#responderResources()} READs (a partial re-request must name
 *       the matching VA and length), and dropped otherwise, as rxe does.</li>
 *   <li>Ahead of ePSN: one NAK PSN sequence error carrying ePSN, then silence until ePSN arrives.</li>
 *   <li>A SEND's first packet with no receive posted: RNR NAK with {@link RcConfig#minRnrTimer()}; ePSN stays, and
 *       later packets are dropped silently until the requester resends it.</li>
 *   <li>Opcode sequence errors (a Middle or Last without a First, a First inside a message), payload longer than the
 *       MTU, First/Middle payload not exactly one MTU, a WRITE longer or shorter than its RETH length, a SEND
 *       longer than its receive, unsupported opcodes (immediate, atomics): NAK invalid request. An R_Key refused by
 *       {@link RemoteAccess}: NAK remote access error (or invalid request, as it answers). Both put the responder
 *       in {@link RcState#ERROR}: the receive in progress completes with the error, the others are flushed.</li>
 * </ul>
 *
 * <p>No memory is touched for a packet that fails a check: every check runs before placement, and placement stays
 * inside the range a check granted. The responder has no timers of its own (the requester's timers drive
 * recovery), so it has no {@code onTimer}. Single-threaded; nothing is allocated per packet.
 */
public final class Responder {

    private static final int HEADROOM = 64;
    private static final int ACK_SYNDROME = AethFlyweight.ackSyndrome(AethFlyweight.INVALID_CREDIT_COUNT);

    private enum Message {
        NONE, SEND, WRITE
    }

    private static final class Receive {
        long wrId;
        LocalBuffer buffer;
    }

    /** One remembered RDMA READ, for duplicates. */
    private static final class ReadResource {
        boolean valid;
        int firstPsn;
        int packets;
        long va;
        int rkey;
        int length;
        int msn;
    }

    /** One queued response: an ACK/NAK, or the packets of a READ response still to send. */
    private static final class Response {
        boolean read;
        int psn;
        int syndrome;
        int msn;
        long va;
        int rkey;
        int length;
        int packets;
        int sent;
    }

    private final RcConfig config;
    private final int mtu;
    private final RemoteAccess access;
    private final ReceiveCompletionHandler completions;
    private final ReceiveSource source;
    private final RocePacketEncoder encoder = new RocePacketEncoder();
    private final RocePacketDecoder decoder = new RocePacketDecoder();
    private final ByteBuffer out;
    private final Receive[] receives;
    private final ReadResource[] resources;
    private final Response[] queue;
    private final long[] counts = new long[RcCounter.COUNT];

    private RcState state = RcState.READY;
    private long rqHead;
    private long rqTail;
    private long qHead;
    private long qTail;
    private int nextResource;
    private int epsn;
    private int msn;
    private boolean nakSent;
    private int unacknowledged;
    private Message message = Message.NONE;
    private int messageOffset;
    private long writeVa;
    private int writeRkey;
    private int writeLength;

    /**
     * @param config the QP's attributes
     * @param initialPsn the first PSN expected (the QP's RQ PSN, the peer's SQ PSN)
     * @param access the target memory's checks and placement
     * @param completions where receive completions go
     */
    public Responder(RcConfig config, int initialPsn, RemoteAccess access, ReceiveCompletionHandler completions) {
        this(config, initialPsn, access, completions, null);
    }

    /**
     * A responder whose receives come from {@code source}, one per inbound SEND (nothing is posted with
     * {@link #postReceive}; its completions carry {@code wrId} 0).
     *
     * @param config the QP's attributes
     * @param initialPsn the first PSN expected
     * @param access the target memory's checks and placement
     * @param completions where receive completions go
     * @param source where receive buffers come from, or {@code null} for {@link #postReceive}
     */
    public Responder(RcConfig config, int initialPsn, RemoteAccess access, ReceiveCompletionHandler completions,
        ReceiveSource source) {
        this.source = source;
        this.config = Objects.requireNonNull(config, "config");
        this.access = Objects.requireNonNull(access, "access");
        this.completions = Objects.requireNonNull(completions, "completions");
        if (!Psn.isValid(initialPsn)) {
            throw new IllegalArgumentException("initial PSN " + initialPsn + " does not fit 24 bits");
        }
        this.mtu = config.pathMtu();
        this.epsn = initialPsn;
        this.out = ByteBuffer.allocateDirect(mtu + HEADROOM);
        this.receives = new Receive[config.receiveQueueDepth()];
        for (int i = 0; i < receives.length; i++) {
            receives[i] = new Receive();
        }
        this.resources = new ReadResource[config.responderResources()];
        for (int i = 0; i < resources.length; i++) {
            resources[i] = new ReadResource();
        }
        this.queue = new Response[2 * config.responderResources() + 4];
        for (int i = 0; i < queue.length; i++) {
            queue[i] = new Response();
        }
    }

    /**
     * Posts a receive for an inbound SEND. In {@link RcState#ERROR} it is accepted and completed at once as
     * {@link RcStatus#FLUSHED} (NDKPI section 7.12).
     *
     * @param wrId the caller's identifier
     * @param buffer where the message goes
     * @return {@link PostResult#OK} or {@link PostResult#QUEUE_FULL}
     */
    public PostResult postReceive(long wrId, LocalBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (state != RcState.READY) {
            completions.completed(wrId, RcStatus.FLUSHED, 0, false, 0);
            return PostResult.OK;
        }
        if (rqTail - rqHead == receives.length) {
            return PostResult.QUEUE_FULL;
        }
        Receive r = receive(rqTail++);
        r.wrId = wrId;
        r.buffer = buffer;
        return PostResult.OK;
    }

    /**
     * Takes one request packet: position to limit of {@code packet}, ICRC already checked.
     *
     * @param packet the UDP payload
     */
    public void onPacket(ByteBuffer packet) {
        onPacket(packet, packet.position(), packet.remaining());
    }

    /**
     * Takes one request packet, ICRC already checked. Responses, UD packets, packets that do not decode and every
     * packet once in {@link RcState#ERROR} are dropped and counted.
     *
     * @param buffer the buffer
     * @param offset index of the BTH
     * @param length the UDP payload's length, ICRC included
     */
    public void onPacket(ByteBuffer buffer, int offset, int length) {
        if (state != RcState.READY || !Inbound.accepts(decoder, buffer, offset, length, false)) {
            counts[RcCounter.DROPPED_PACKETS.ordinal()]++;
            return;
        }
        int psn = decoder.bth().psn();
        int d = Psn.diff(psn, epsn);
        if (d > 0) {
            counts[RcCounter.OUT_OF_SEQUENCE_REQUESTS.ordinal()]++;
            if (!nakSent) {
                nakSent = true;
                counts[RcCounter.SEQUENCE_NAKS_SENT.ordinal()]++;
                queueAck(epsn, AethFlyweight.nakSyndrome(AethFlyweight.NakCode.PSN_SEQUENCE_ERROR));
            }
            return;
        }
        if (d < 0) {
            counts[RcCounter.DUPLICATE_REQUESTS.ordinal()]++;
            if (decoder.opcode() == RoceOpcode.RDMA_READ_REQUEST) {
                replayRead(psn);
            } else {
                queueAck(Psn.add(epsn, -1), ACK_SYNDROME);
            }
            return;
        }
        nakSent = false;
        execute(decoder.opcode(), psn);
    }

    private void execute(RoceOpcode op, int psn) {
        int payload = decoder.payloadLength();
        RoceOpcode.Position position = op.position();
        boolean fullPacket = position == RoceOpcode.Position.FIRST || position == RoceOpcode.Position.MIDDLE;
        if (payload > mtu || (fullPacket && payload != mtu) || (position == RoceOpcode.Position.LAST && payload == 0)) {
            invalid(psn, RcStatus.INVALID_REQUEST);
            return;
        }
        switch (op) {
            case SEND_FIRST, SEND_ONLY, SEND_ONLY_WITH_INVALIDATE -> {
                if (message != Message.NONE) {
                    invalid(psn, RcStatus.INVALID_REQUEST);
                } else if (rqHead == rqTail && takeFailed()) {
                    errorNak(psn, AethFlyweight.NakCode.REMOTE_OPERATIONAL_ERROR, RcStatus.FLUSHED);
                } else if (rqHead == rqTail) {
                    counts[RcCounter.RNR_NAKS_SENT.ordinal()]++;
                    nakSent = true;
                    queueAck(psn, AethFlyweight.rnrNakSyndrome(config.minRnrTimer()));
                } else {
                    message = Message.SEND;
                    messageOffset = 0;
                    placeSend(op, psn, payload);
                }
            }
            case SEND_MIDDLE, SEND_LAST, SEND_LAST_WITH_INVALIDATE -> {
                if (message != Message.SEND) {
                    invalid(psn, RcStatus.INVALID_REQUEST);
                } else {
                    placeSend(op, psn, payload);
                }
            }
            case RDMA_WRITE_FIRST, RDMA_WRITE_ONLY -> {
                if (message != Message.NONE) {
                    invalid(psn, RcStatus.INVALID_REQUEST);
                    return;
                }
                RethFlyweight reth = decoder.reth();
                if (!checkAccess(psn, reth, RemoteAccess.Right.REMOTE_WRITE)) {
                    return;
                }
                message = Message.WRITE;
                messageOffset = 0;
                writeVa = reth.virtualAddress();
                writeRkey = reth.rkey();
                writeLength = reth.dmaLength();
                placeWrite(psn, payload);
            }
            case RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST -> {
                if (message != Message.WRITE) {
                    invalid(psn, RcStatus.INVALID_REQUEST);
                } else {
                    placeWrite(psn, payload);
                }
            }
            case RDMA_READ_REQUEST -> {
                if (message != Message.NONE) {
                    invalid(psn, RcStatus.INVALID_REQUEST);
                } else {
                    executeRead(psn);
                }
            }
            default -> invalid(psn, RcStatus.INVALID_REQUEST);
        }
    }

    /**
     * Takes a receive from the {@link ReceiveSource} into the queue (none: the queue stays empty, RNR NAK).
     *
     * @return true when the source answered {@link ReceiveSource#FAILED}
     */
    private boolean takeFailed() {
        LocalBuffer b = source == null ? null : source.take();
        if (b == ReceiveSource.FAILED) {
            return true;
        }
        if (b != null) {
            Receive r = receive(rqTail++);
            r.wrId = 0;
            r.buffer = b;
        }
        return false;
    }

    /** @return the solicited-event bit of the packet being handled (for a receive completion handler) */
    public boolean solicitedEvent() {
        return decoder.bth().solicitedEvent();
    }

    /** @return true when the RETH's range may be accessed; otherwise the error NAK is queued */
    private boolean checkAccess(int psn, RethFlyweight reth, RemoteAccess.Right right) {
        int length = reth.dmaLength();
        if (length < 0) {
            invalid(psn, RcStatus.INVALID_REQUEST);
            return false;
        }
        if (length == 0) {
            return true;
        }
        RemoteAccess.Result result = access.check(reth.rkey(), reth.virtualAddress(), length, right);
        if (result == RemoteAccess.Result.OK) {
            return true;
        }
        if (result == RemoteAccess.Result.REMOTE_ACCESS_ERROR) {
            errorNak(psn, AethFlyweight.NakCode.REMOTE_ACCESS_ERROR, RcStatus.FLUSHED);
        } else {
            invalid(psn, RcStatus.FLUSHED);
        }
        return false;
    }

    private void placeSend(RoceOpcode op, int psn, int payload) {
        Receive r = receive(rqHead);
        if (messageOffset + payload > r.buffer.length()) {
            invalid(psn, RcStatus.LOCAL_LENGTH_ERROR);
            return;
        }
        if (payload > 0) {
            r.buffer.copyIn(messageOffset, decoder.buffer(), decoder.payloadOffset(), payload);
        }
        messageOffset += payload;
        epsn = Psn.next(psn);
        counts[RcCounter.REQUESTS_EXECUTED.ordinal()]++;
        RoceOpcode.Position position = op.position();
        if (position == RoceOpcode.Position.LAST || position == RoceOpcode.Position.ONLY) {
            boolean invalidate = op == RoceOpcode.SEND_LAST_WITH_INVALIDATE || op == RoceOpcode.SEND_ONLY_WITH_INVALIDATE;
            int rkey = invalidate ? decoder.ieth().rkey() : 0;
            if (invalidate && access.invalidate(rkey) != RemoteAccess.Result.OK) {
                invalid(psn, RcStatus.INVALIDATE_ERROR);
                return;
            }
            message = Message.NONE;
            msn = Psn.next(msn);
            rqHead++;
            r.buffer = null;
            completions.completed(r.wrId, RcStatus.SUCCESS, messageOffset, invalidate, rkey);
        }
        acknowledge(psn);
    }

    private void placeWrite(int psn, int payload) {
        RoceOpcode.Position position = decoder.opcode().position();
        long end = (long) messageOffset + payload;
        boolean ends = position == RoceOpcode.Position.LAST || position == RoceOpcode.Position.ONLY;
        if (ends ? end != writeLength : end >= writeLength) {
            invalid(psn, RcStatus.FLUSHED);
            return;
        }
        if (payload > 0) {
            access.write(writeRkey, writeVa + messageOffset, decoder.buffer(), decoder.payloadOffset(), payload);
        }
        messageOffset += payload;
        epsn = Psn.next(psn);
        counts[RcCounter.REQUESTS_EXECUTED.ordinal()]++;
        if (ends) {
            message = Message.NONE;
            msn = Psn.next(msn);
        }
        acknowledge(psn);
    }

    private void executeRead(int psn) {
        RethFlyweight reth = decoder.reth();
        if (qTail - qHead == queue.length) {
            counts[RcCounter.DROPPED_PACKETS.ordinal()]++;
            return;
        }
        if (!checkAccess(psn, reth, RemoteAccess.Right.REMOTE_READ)) {
            return;
        }
        int length = reth.dmaLength();
        int packets = Requester.packetsFor(length, mtu);
        msn = Psn.next(msn);
        ReadResource res = resources[nextResource];
        nextResource = (nextResource + 1) % resources.length;
        res.valid = true;
        res.firstPsn = psn;
        res.packets = packets;
        res.va = reth.virtualAddress();
        res.rkey = reth.rkey();
        res.length = length;
        res.msn = msn;
        queueRead(psn, res.va, res.rkey, length, packets, msn);
        epsn = Psn.add(psn, packets);
        unacknowledged = 0;
        counts[RcCounter.REQUESTS_EXECUTED.ordinal()]++;
    }

    private void replayRead(int psn) {
        RethFlyweight reth = decoder.reth();
        for (ReadResource res : resources) {
            if (!res.valid || !Psn.inWindow(psn, res.firstPsn, res.packets)) {
                continue;
            }
            int skipped = Psn.distance(res.firstPsn, psn) * mtu;
            int length = reth.dmaLength();
            if (reth.rkey() != res.rkey || reth.virtualAddress() != res.va + skipped || length != res.length - skipped
                || qTail - qHead == queue.length
                || (length > 0 && access.check(res.rkey, reth.virtualAddress(), length, RemoteAccess.Right.REMOTE_READ)
                    != RemoteAccess.Result.OK)) {
                break;
            }
            counts[RcCounter.READS_REPLAYED.ordinal()]++;
            queueRead(psn, reth.virtualAddress(), res.rkey, length, Requester.packetsFor(length, mtu), res.msn);
            return;
        }
        counts[RcCounter.DROPPED_PACKETS.ordinal()]++;
    }

    private void acknowledge(int psn) {
        unacknowledged++;
        if (decoder.bth().ackRequest() || (config.ackCoalesce() > 0 && unacknowledged >= config.ackCoalesce())) {
            queueAck(psn, ACK_SYNDROME);
        }
    }

    private void invalid(int psn, RcStatus receiveStatus) {
        errorNak(psn, AethFlyweight.NakCode.INVALID_REQUEST, receiveStatus);
    }

    /** Queues an error NAK for {@code psn} and moves to ERROR; the receive in progress ends with {@code status}. */
    private void errorNak(int psn, AethFlyweight.NakCode code, RcStatus status) {
        counts[RcCounter.ERROR_NAKS_SENT.ordinal()]++;
        queueAck(psn, AethFlyweight.nakSyndrome(code));
        enterError(message == Message.SEND ? status : RcStatus.FLUSHED);
    }

    private void enterError(RcStatus inProgress) {
        state = RcState.ERROR;
        boolean first = true;
        while (rqHead != rqTail) {
            Receive r = receive(rqHead++);
            r.buffer = null;
            completions.completed(r.wrId, first ? inProgress : RcStatus.FLUSHED, 0, false, 0);
            first = false;
        }
        message = Message.NONE;
    }

    /**
     * Moves to {@link RcState#ERROR} and completes every posted receive as {@link RcStatus#FLUSHED}. Responses
     * already queued are still sent by {@link #poll}.
     */
    public void flush() {
        if (state == RcState.READY) {
            enterError(RcStatus.FLUSHED);
        }
    }

    private void queueAck(int psn, int syndrome) {
        unacknowledged = 0;
        if (qTail != qHead) {
            Response last = queue[index(qTail - 1)];
            boolean lastIsAck = !last.read && AethFlyweight.ackType(last.syndrome) == AethFlyweight.AckType.ACK;
            boolean coalesce = lastIsAck && AethFlyweight.ackType(syndrome) == AethFlyweight.AckType.ACK;
            if (coalesce || (lastIsAck && qTail - qHead == queue.length)) {
                last.psn = psn;
                last.syndrome = syndrome;
                last.msn = msn;
                return;
            }
        }
        if (qTail - qHead == queue.length) {
            counts[RcCounter.DROPPED_PACKETS.ordinal()]++;
            return;
        }
        Response r = queue[index(qTail++)];
        r.read = false;
        r.psn = psn;
        r.syndrome = syndrome;
        r.msn = msn;
    }

    private void queueRead(int psn, long va, int rkey, int length, int packets, int readMsn) {
        Response r = queue[index(qTail++)];
        r.read = true;
        r.psn = psn;
        r.syndrome = ACK_SYNDROME;
        r.msn = readMsn;
        r.va = va;
        r.rkey = rkey;
        r.length = length;
        r.packets = packets;
        r.sent = 0;
    }

    /**
     * Builds and hands over up to {@code maxPackets} queued responses, in PSN order.
     *
     * @param sink where the packets go
     * @param maxPackets the most to build in this call
     * @return how many were built
     */
    public int poll(PacketSink sink, int maxPackets) {
        int built = 0;
        while (built < maxPackets && qHead != qTail) {
            Response r = queue[index(qHead)];
            int length;
            if (r.read) {
                length = buildReadResponse(r);
                if (r.sent == r.packets) {
                    qHead++;
                }
            } else {
                encoder.begin(out, 0, RoceOpcode.ACKNOWLEDGE);
                encoder.bth().destQp(config.destQpn()).psn(r.psn);
                encoder.aeth().syndrome(r.syndrome).msn(r.msn);
                length = encoder.finish();
                qHead++;
                if (AethFlyweight.ackType(r.syndrome) == AethFlyweight.AckType.ACK) {
                    counts[RcCounter.ACKS_SENT.ordinal()]++;
                }
            }
            sink.send(out, 0, length);
            built++;
        }
        return built;
    }

    private int buildReadResponse(Response r) {
        int index = r.sent;
        RoceOpcode opcode = r.packets == 1 ? RoceOpcode.RDMA_READ_RESPONSE_ONLY
            : index == 0 ? RoceOpcode.RDMA_READ_RESPONSE_FIRST
            : index == r.packets - 1 ? RoceOpcode.RDMA_READ_RESPONSE_LAST : RoceOpcode.RDMA_READ_RESPONSE_MIDDLE;
        int offset = index * mtu;
        int payload = Math.min(mtu, r.length - offset);
        encoder.begin(out, 0, opcode);
        encoder.bth().destQp(config.destQpn()).psn(Psn.add(r.psn, index));
        if (opcode != RoceOpcode.RDMA_READ_RESPONSE_MIDDLE) {
            encoder.aeth().syndrome(r.syndrome).msn(r.msn);
        }
        if (payload > 0) {
            access.read(r.rkey, r.va + offset, out, encoder.payloadOffset(), payload);
        }
        encoder.payloadLength(payload);
        r.sent++;
        counts[RcCounter.READ_RESPONSES_SENT.ordinal()]++;
        return encoder.finish();
    }

    private Receive receive(long position) {
        return receives[(int) Long.remainderUnsigned(position, receives.length)];
    }

    private int index(long position) {
        return (int) Long.remainderUnsigned(position, queue.length);
    }

    /** @return READY or ERROR */
    public RcState state() {
        return state;
    }

    /** @return the expected PSN */
    public int expectedPsn() {
        return epsn;
    }

    /** @return the message sequence number: messages completed so far, modulo 2^24 */
    public int msn() {
        return msn;
    }

    /** @return receives posted and not completed */
    public int postedReceives() {
        return (int) (rqTail - rqHead);
    }

    /** @return responses queued and not yet fully sent */
    public int queuedResponses() {
        return (int) (qTail - qHead);
    }

    /** @return a snapshot of the counters */
    public RcCounters counters() {
        return new RcCounters(counts);
    }
}
