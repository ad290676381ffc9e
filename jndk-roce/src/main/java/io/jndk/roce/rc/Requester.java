package io.jndk.roce.rc;

import io.jndk.roce.codec.AethFlyweight;
import io.jndk.roce.codec.ExtensionHeader;
import io.jndk.roce.codec.Psn;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The send half of one RC queue pair (IBTA vol. 1 section 9.7, the requester): takes work requests, gives each its
 * PSNs, cuts it into packets at the path MTU, keeps a bounded window of unacknowledged PSNs, retransmits, and
 * completes every work request exactly once and in order.
 *
 * <p>PSNs: a SEND or WRITE of {@code n} octets takes {@code max(1, ceil(n / MTU))} PSNs, one per packet; an RDMA
 * READ sends one request packet at its first PSN and takes as many PSNs as it has response packets, so the next
 * request's PSN is the READ's first plus its response count (9.7.1). AckReq is set on the last packet of every
 * message (and so on every READ request) and inside a long message on the packet after
 * {@link RcConfig#maxPacketsWithoutAckRequest()} without it, as rxe does.
 *
 * <p>Acknowledgement is cumulative: an ACK for PSN {@code p} acknowledges every PSN up to {@code p}; a NAK for
 * {@code p} and a READ response for {@code p} acknowledge every PSN before {@code p}. SENDs and WRITEs complete
 * when their last PSN is acknowledged, READs when their last response packet has been placed. An acknowledgement
 * beyond a READ whose responses have not all arrived is an implied NAK: the READ is requested again.
 *
 * <p>Retries: on the local ACK timeout, a PSN sequence error NAK or an implied NAK the requester goes back to the
 * oldest unacknowledged PSN and sends from there (a partly answered READ is requested again for its remaining part,
 * at that PSN, with the RETH's VA and length moved on); each retry takes one off {@link RcConfig#retryCount()}. On
 * an RNR NAK it waits for the NAK's timer, then sends from the NAK'd PSN; each takes one off
 * {@link RcConfig#rnrRetry()} unless that is 7. Both counters are reset whenever the oldest unacknowledged PSN
 * moves on. A counter that is already 0 when another retry is due ends the request with {@link
 * RcStatus#RETRY_EXCEEDED} or {@link RcStatus#RNR_RETRY_EXCEEDED}; an error NAK ends the request it names with the
 * matching status; in both cases every other outstanding request is then flushed and the requester is in {@link
 * RcState#ERROR}. A NAK started retry is not started again by a second NAK or implied NAK until something is
 * acknowledged (duplicated NAKs do not cost retries); the timer always retries.
 *
 * <p>Single-threaded: the caller serialises every call. The work request ring, the packet buffer, the encoder and
 * the decoder are allocated once; nothing is allocated per packet. Completion handlers may post from inside the
 * callback.
 */
public final class Requester {

    private static final long NONE = Long.MAX_VALUE;
    /** Room for the longest request headers (BTH + RETH) and the pad and ICRC, beyond the MTU. */
    private static final int HEADROOM = 64;
    /** The most PSNs one message may take: a quarter of the ordered half of the PSN space. */
    private static final int MAX_MESSAGE_PSNS = 1 << 21;

    private final RcConfig config;
    private final int mtu;
    private final long ackTimeout;
    private final LongSupplier clock;
    private final SendCompletionHandler completions;
    private final RocePacketEncoder encoder = new RocePacketEncoder();
    private final RocePacketDecoder decoder = new RocePacketDecoder();
    private final ByteBuffer out;
    private final Slot[] ring;
    private final long[] counts = new long[RcCounter.COUNT];

    private RcState state = RcState.READY;
    /** Ring positions: the oldest request not completed, the next to (re)transmit, the next free slot. */
    private long head;
    private long next;
    private long tail;
    /** The oldest PSN not acknowledged; everything before it is acknowledged. */
    private int ackPsn;
    /** The next PSN to (re)transmit. */
    private int sendPsn;
    /** One past the highest PSN ever sent: PSNs in [ackPsn, highPsn) are outstanding. */
    private int highPsn;
    private int readsStarted;
    private int packetsWithoutAckRequest;
    private int retriesLeft;
    private int rnrRetriesLeft;
    private boolean retryStarted;
    private long ackDeadline = NONE;
    private long rnrDeadline = NONE;

    /** One work request slot, reused. */
    private static final class Slot {
        long wrId;
        RcOperation op;
        LocalBuffer local;
        int length;
        long remoteVa;
        int rkey;
        int invalidateRkey;
        boolean solicited;
        int packets;
        boolean started;
        int firstPsn;
        int lastPsn;
    }

    /**
     * @param config the QP's attributes
     * @param initialPsn the first PSN to send (the QP's SQ PSN)
     * @param clock the time source, in nanoseconds, the same one {@link #onTimer(long)} is driven by
     * @param completions where completions go
     */
    public Requester(RcConfig config, int initialPsn, LongSupplier clock, SendCompletionHandler completions) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.completions = Objects.requireNonNull(completions, "completions");
        if (!Psn.isValid(initialPsn)) {
            throw new IllegalArgumentException("initial PSN " + initialPsn + " does not fit 24 bits");
        }
        this.mtu = config.pathMtu();
        this.ackTimeout = config.localAckTimeoutNanos();
        this.out = ByteBuffer.allocateDirect(mtu + HEADROOM);
        this.ring = new Slot[config.sendQueueDepth()];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new Slot();
        }
        this.ackPsn = initialPsn;
        this.sendPsn = initialPsn;
        this.highPsn = initialPsn;
        this.retriesLeft = config.retryCount();
        this.rnrRetriesLeft = config.rnrRetry();
    }

    /**
     * Posts a SEND.
     *
     * @param wrId the caller's identifier, echoed in the completion
     * @param local the message
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult postSend(long wrId, LocalBuffer local) {
        return post(wrId, RcOperation.SEND, local, 0, 0, 0);
    }

    /**
     * Posts a SEND with Invalidate.
     *
     * @param wrId the caller's identifier
     * @param local the message
     * @param invalidateRkey the R_Key the responder is to invalidate
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult postSendWithInvalidate(long wrId, LocalBuffer local, int invalidateRkey) {
        return post(wrId, RcOperation.SEND_WITH_INVALIDATE, local, 0, 0, invalidateRkey);
    }

    /**
     * Posts an RDMA WRITE.
     *
     * @param wrId the caller's identifier
     * @param local the octets to write
     * @param remoteVa where they go
     * @param rkey the remote key
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult postWrite(long wrId, LocalBuffer local, long remoteVa, int rkey) {
        return post(wrId, RcOperation.RDMA_WRITE, local, remoteVa, rkey, 0);
    }

    /**
     * Posts an RDMA READ of {@code local.length()} octets.
     *
     * @param wrId the caller's identifier
     * @param local where the octets go
     * @param remoteVa where they are read from
     * @param rkey the remote key
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult postRead(long wrId, LocalBuffer local, long remoteVa, int rkey) {
        return post(wrId, RcOperation.RDMA_READ, local, remoteVa, rkey, 0);
    }

    /**
     * Posts a work request.
     *
     * @param wrId the caller's identifier
     * @param op the operation
     * @param local the local buffer (gather for SEND and WRITE, scatter for READ)
     * @param remoteVa the remote address (WRITE, READ)
     * @param rkey the remote key (WRITE, READ)
     * @param invalidateRkey the R_Key to invalidate (SEND with Invalidate)
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult post(long wrId, RcOperation op, LocalBuffer local, long remoteVa, int rkey, int invalidateRkey) {
        return post(wrId, op, local, remoteVa, rkey, invalidateRkey, false);
    }

    /**
     * Posts a work request; a SEND's last packet carries the solicited event bit when {@code solicited} is set.
     *
     * @param wrId the caller's identifier
     * @param op the operation
     * @param local the local buffer (gather for SEND and WRITE, scatter for READ)
     * @param remoteVa the remote address (WRITE, READ)
     * @param rkey the remote key (WRITE, READ)
     * @param invalidateRkey the R_Key to invalidate (SEND with Invalidate)
     * @param solicited the SE bit of a SEND's last packet
     * @return {@link PostResult#OK} or why it was refused
     */
    public PostResult post(long wrId, RcOperation op, LocalBuffer local, long remoteVa, int rkey, int invalidateRkey,
        boolean solicited) {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(local, "local");
        if (state != RcState.READY) {
            return PostResult.QP_ERROR;
        }
        if (tail - head == ring.length) {
            return PostResult.QUEUE_FULL;
        }
        int length = local.length();
        int packets = packetsFor(length, mtu);
        if (length < 0 || packets > MAX_MESSAGE_PSNS) {
            return PostResult.MESSAGE_TOO_LONG;
        }
        Slot s = slot(tail);
        s.wrId = wrId;
        s.op = op;
        s.local = local;
        s.length = length;
        s.remoteVa = remoteVa;
        s.rkey = rkey;
        s.invalidateRkey = invalidateRkey;
        s.solicited = solicited && op != RcOperation.RDMA_WRITE && op != RcOperation.RDMA_READ;
        s.packets = packets;
        s.started = false;
        tail++;
        return PostResult.OK;
    }

    /**
     * Builds and hands over up to {@code maxPackets} request packets: retransmissions first, then new ones, as long
     * as the PSN window, the READ depth and an RNR wait allow.
     *
     * @param sink where the packets go
     * @param maxPackets the most to build in this call
     * @return how many were built
     */
    public int poll(PacketSink sink, int maxPackets) {
        int built = 0;
        while (built < maxPackets && state == RcState.READY && rnrDeadline == NONE && next != tail
            && Psn.distance(ackPsn, sendPsn) < config.maxUnackedPsns()) {
            Slot s = slot(next);
            if (!s.started) {
                if (s.op == RcOperation.RDMA_READ && readsStarted >= config.initiatorDepth()) {
                    break;
                }
                s.started = true;
                s.firstPsn = sendPsn;
                s.lastPsn = Psn.add(sendPsn, s.packets - 1);
                if (s.op == RcOperation.RDMA_READ) {
                    readsStarted++;
                }
            }
            boolean retransmission = Psn.before(sendPsn, highPsn);
            int length = s.op == RcOperation.RDMA_READ ? buildReadRequest(s) : buildDataPacket(s);
            sink.send(out, 0, length);
            built++;
            counts[RcCounter.PACKETS_SENT.ordinal()]++;
            if (retransmission) {
                counts[RcCounter.RETRANSMITTED_PACKETS.ordinal()]++;
            }
            if (Psn.after(sendPsn, highPsn)) {
                highPsn = sendPsn;
            }
            if (ackDeadline == NONE && ackTimeout != RcTimers.INFINITE) {
                ackDeadline = clock.getAsLong() + ackTimeout;
            }
        }
        return built;
    }

    private int buildReadRequest(Slot s) {
        int done = Psn.distance(s.firstPsn, sendPsn) * mtu;
        encoder.begin(out, 0, RoceOpcode.RDMA_READ_REQUEST);
        encoder.bth().destQp(config.destQpn()).psn(sendPsn).ackRequest(true);
        encoder.reth().virtualAddress(s.remoteVa + done).rkey(s.rkey).dmaLength(s.length - done);
        packetsWithoutAckRequest = 0;
        sendPsn = Psn.next(s.lastPsn);
        next++;
        return encoder.finish();
    }

    private int buildDataPacket(Slot s) {
        int index = Psn.distance(s.firstPsn, sendPsn);
        int offset = index * mtu;
        int payload = Math.min(mtu, s.length - offset);
        boolean last = index == s.packets - 1;
        RoceOpcode opcode = opcode(s.op, index == 0, last);
        boolean ackRequest = last || packetsWithoutAckRequest >= config.maxPacketsWithoutAckRequest();
        encoder.begin(out, 0, opcode);
        encoder.bth().destQp(config.destQpn()).psn(sendPsn).ackRequest(ackRequest).solicitedEvent(last && s.solicited);
        if (opcode.has(ExtensionHeader.RETH)) {
            encoder.reth().virtualAddress(s.remoteVa).rkey(s.rkey).dmaLength(s.length);
        }
        if (opcode.has(ExtensionHeader.IETH)) {
            encoder.ieth().rkey(s.invalidateRkey);
        }
        if (payload > 0) {
            s.local.copyOut(offset, out, encoder.payloadOffset(), payload);
        }
        encoder.payloadLength(payload);
        packetsWithoutAckRequest = ackRequest ? 0 : packetsWithoutAckRequest + 1;
        sendPsn = Psn.next(sendPsn);
        if (last) {
            next++;
        }
        return encoder.finish();
    }

    /**
     * @param op a SEND or WRITE operation
     * @param first the packet is the message's first
     * @param last the packet is the message's last
     * @return its opcode (9.2.1, table 38)
     */
    static RoceOpcode opcode(RcOperation op, boolean first, boolean last) {
        return switch (op) {
            case SEND -> first ? (last ? RoceOpcode.SEND_ONLY : RoceOpcode.SEND_FIRST)
                : (last ? RoceOpcode.SEND_LAST : RoceOpcode.SEND_MIDDLE);
            case SEND_WITH_INVALIDATE -> first ? (last ? RoceOpcode.SEND_ONLY_WITH_INVALIDATE : RoceOpcode.SEND_FIRST)
                : (last ? RoceOpcode.SEND_LAST_WITH_INVALIDATE : RoceOpcode.SEND_MIDDLE);
            case RDMA_WRITE -> first ? (last ? RoceOpcode.RDMA_WRITE_ONLY : RoceOpcode.RDMA_WRITE_FIRST)
                : (last ? RoceOpcode.RDMA_WRITE_LAST : RoceOpcode.RDMA_WRITE_MIDDLE);
            case RDMA_READ -> RoceOpcode.RDMA_READ_REQUEST;
        };
    }

    /**
     * Takes one response packet: position to limit of {@code packet}, ICRC already checked.
     *
     * @param packet the UDP payload
     */
    public void onPacket(ByteBuffer packet) {
        onPacket(packet, packet.position(), packet.remaining());
    }

    /**
     * Takes one response packet (Acknowledge or RDMA READ response), ICRC already checked. Anything else, a packet
     * that does not decode, or any packet once in {@link RcState#ERROR}, is dropped and counted.
     *
     * @param buffer the buffer
     * @param offset index of the BTH
     * @param length the UDP payload's length, ICRC included
     */
    public void onPacket(ByteBuffer buffer, int offset, int length) {
        if (state != RcState.READY || !Inbound.accepts(decoder, buffer, offset, length, true)) {
            counts[RcCounter.DROPPED_PACKETS.ordinal()]++;
            return;
        }
        int psn = decoder.bth().psn();
        if (!isOutstanding(psn)) {
            counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
            return;
        }
        switch (decoder.opcode()) {
            case ACKNOWLEDGE -> onAcknowledge(psn, decoder.aeth().syndrome());
            case RDMA_READ_RESPONSE_FIRST, RDMA_READ_RESPONSE_MIDDLE, RDMA_READ_RESPONSE_LAST,
                RDMA_READ_RESPONSE_ONLY -> onReadResponse(psn);
            default -> counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
        }
    }

    private void onAcknowledge(int psn, int syndrome) {
        int value = syndrome & AethFlyweight.VALUE_MASK;
        switch (AethFlyweight.ackType(syndrome)) {
            case ACK -> {
                counts[RcCounter.ACKS_RECEIVED.ordinal()]++;
                if (acknowledgeBefore(Psn.next(psn))) {
                    impliedNak();
                }
            }
            case RNR_NAK -> onRnrNak(psn, value);
            case NAK -> {
                AethFlyweight.NakCode code = AethFlyweight.NakCode.of(value);
                if (code == AethFlyweight.NakCode.PSN_SEQUENCE_ERROR) {
                    counts[RcCounter.SEQUENCE_NAKS_RECEIVED.ordinal()]++;
                    acknowledgeBefore(psn);
                    if (!retryStarted) {
                        retry();
                    }
                } else {
                    counts[RcCounter.ERROR_NAKS_RECEIVED.ordinal()]++;
                    acknowledgeBefore(psn);
                    fail(slotContaining(psn), code == AethFlyweight.NakCode.INVALID_REQUEST ? RcStatus.REMOTE_INVALID_REQUEST
                        : code == AethFlyweight.NakCode.REMOTE_ACCESS_ERROR ? RcStatus.REMOTE_ACCESS_ERROR
                        : RcStatus.REMOTE_OPERATIONAL_ERROR);
                }
            }
            case RESERVED -> counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
        }
    }

    private void onRnrNak(int psn, int timerCode) {
        if (rnrDeadline != NONE && psn == ackPsn) {
            counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
            return;
        }
        counts[RcCounter.RNR_NAKS_RECEIVED.ordinal()]++;
        acknowledgeBefore(psn);
        if (rnrRetriesLeft == 0) {
            fail(slotContaining(psn), RcStatus.RNR_RETRY_EXCEEDED);
            return;
        }
        if (config.rnrRetry() != RcConfig.INFINITE_RNR_RETRY) {
            rnrRetriesLeft--;
        }
        retryStarted = true;
        rewind();
        ackDeadline = NONE;
        rnrDeadline = clock.getAsLong() + RcTimers.rnrNakNanos(timerCode);
    }

    private void onReadResponse(int psn) {
        long at = indexContaining(psn);
        Slot s = at < 0 ? null : slot(at);
        if (s == null || s.op != RcOperation.RDMA_READ) {
            counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
            return;
        }
        acknowledgeBefore(psn);
        if (at != head || psn != ackPsn) {
            counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
            return;
        }
        RoceOpcode.Position position = decoder.opcode().position();
        boolean last = psn == s.lastPsn;
        int offset = Psn.distance(s.firstPsn, psn) * mtu;
        int expected = Math.min(mtu, s.length - offset);
        boolean positionOk = last ? position == RoceOpcode.Position.LAST || position == RoceOpcode.Position.ONLY
            : position == RoceOpcode.Position.FIRST || position == RoceOpcode.Position.MIDDLE;
        AethFlyweight aeth = decoder.aeth();
        if (!positionOk || decoder.payloadLength() != expected
            || (aeth != null && aeth.ackType() != AethFlyweight.AckType.ACK)) {
            counts[RcCounter.IGNORED_RESPONSES.ordinal()]++;
            return;
        }
        if (expected > 0) {
            s.local.copyIn(offset, decoder.buffer(), decoder.payloadOffset(), expected);
        }
        counts[RcCounter.READ_RESPONSES_RECEIVED.ordinal()]++;
        ackPsn = Psn.next(psn);
        if (last) {
            complete(RcStatus.SUCCESS);
        }
        progressed();
    }

    /**
     * Acknowledges every PSN before {@code limit}, completing the SENDs and WRITEs that ends, up to the first
     * unfinished READ.
     *
     * @return true when an unfinished READ stands before {@code limit} (its responses are missing)
     */
    private boolean acknowledgeBefore(int limit) {
        boolean moved = false;
        boolean blocked = false;
        while (head != tail && slot(head).started && Psn.after(limit, ackPsn)) {
            Slot s = slot(head);
            if (s.op == RcOperation.RDMA_READ) {
                blocked = true;
                break;
            }
            moved = true;
            if (Psn.after(limit, s.lastPsn)) {
                ackPsn = Psn.next(s.lastPsn);
                complete(RcStatus.SUCCESS);
            } else {
                ackPsn = limit;
                break;
            }
        }
        if (moved) {
            progressed();
        }
        return blocked;
    }

    /** Something was acknowledged: reset the retry counters, restart the timer, keep the send point ahead. */
    private void progressed() {
        retriesLeft = config.retryCount();
        rnrRetriesLeft = config.rnrRetry();
        retryStarted = false;
        if (next - head < 0 || (next == head && Psn.before(sendPsn, ackPsn))) {
            next = head;
            sendPsn = ackPsn;
        }
        ackDeadline = ackPsn == highPsn || ackTimeout == RcTimers.INFINITE ? NONE : clock.getAsLong() + ackTimeout;
    }

    private void impliedNak() {
        if (!retryStarted) {
            retry();
        }
    }

    /** Starts a retry from the oldest unacknowledged PSN, or ends the head request when the counter is spent. */
    private void retry() {
        if (retriesLeft == 0) {
            fail(head, RcStatus.RETRY_EXCEEDED);
            return;
        }
        retriesLeft--;
        retryStarted = true;
        counts[RcCounter.RETRIES.ordinal()]++;
        rewind();
        ackDeadline = ackTimeout == RcTimers.INFINITE ? NONE : clock.getAsLong() + ackTimeout;
    }

    private void rewind() {
        next = head;
        sendPsn = ackPsn;
        packetsWithoutAckRequest = 0;
    }

    /**
     * Fires the timers that are due: the end of an RNR wait, then the local ACK timeout.
     *
     * @param nowNanos the time on the injected clock
     */
    public void onTimer(long nowNanos) {
        if (state != RcState.READY) {
            return;
        }
        if (rnrDeadline != NONE && nowNanos - rnrDeadline >= 0) {
            rnrDeadline = NONE;
        }
        if (ackDeadline != NONE && nowNanos - ackDeadline >= 0) {
            ackDeadline = NONE;
            if (ackPsn != highPsn) {
                counts[RcCounter.TIMEOUTS.ordinal()]++;
                retry();
            }
        }
    }

    /** @return when {@link #onTimer(long)} next has something to do, or {@link Long#MAX_VALUE} */
    public long nextDeadline() {
        return Math.min(ackDeadline, rnrDeadline);
    }

    /**
     * Moves to {@link RcState#ERROR}, completing every outstanding request with {@link RcStatus#FLUSHED}: NdkFlush,
     * a disconnect, or a fatal error found above this layer.
     */
    public void flush() {
        if (state == RcState.READY) {
            fail(tail, RcStatus.FLUSHED);
        }
    }

    /** Completes requests before {@code at} as flushed, {@code at} with {@code status}, the rest flushed; ERROR. */
    private void fail(long at, RcStatus status) {
        state = RcState.ERROR;
        ackDeadline = NONE;
        rnrDeadline = NONE;
        while (head != tail) {
            complete(head == at ? status : RcStatus.FLUSHED);
        }
        next = head;
    }

    private void complete(RcStatus status) {
        Slot s = slot(head);
        if (s.op == RcOperation.RDMA_READ && s.started) {
            readsStarted--;
        }
        long wrId = s.wrId;
        RcOperation op = s.op;
        int length = s.length;
        s.local = null;
        s.started = false;
        head++;
        completions.completed(wrId, op, status, status == RcStatus.SUCCESS ? length : 0);
    }

    private boolean isOutstanding(int psn) {
        return Psn.distance(ackPsn, psn) < Psn.distance(ackPsn, highPsn);
    }

    /** @return the ring position of the started request whose PSNs hold {@code psn}, or -1 */
    private long indexContaining(int psn) {
        for (long i = head; i != tail && slot(i).started; i++) {
            Slot s = slot(i);
            if (Psn.inWindow(psn, s.firstPsn, Psn.distance(s.firstPsn, s.lastPsn) + 1)) {
                return i;
            }
        }
        return -1;
    }

    private long slotContaining(int psn) {
        long at = indexContaining(psn);
        return at < 0 ? head : at;
    }

    private Slot slot(long position) {
        return ring[(int) Long.remainderUnsigned(position, ring.length)];
    }

    /**
     * @param length a message length
     * @param mtu the path MTU
     * @return the packets (and PSNs) it takes: at least one
     */
    static int packetsFor(int length, int mtu) {
        return length <= 0 ? 1 : (int) ((length + (long) mtu - 1) / mtu);
    }

    /** @return READY or ERROR */
    public RcState state() {
        return state;
    }

    /** @return posted requests not yet completed */
    public int outstanding() {
        return (int) (tail - head);
    }

    /** @return the oldest unacknowledged PSN */
    public int ackPsn() {
        return ackPsn;
    }

    /** @return the PSN the next new request will start at (one past the highest sent) */
    public int highPsn() {
        return highPsn;
    }

    /** @return a snapshot of the counters */
    public RcCounters counters() {
        return new RcCounters(counts);
    }

    /** @return the counters' live values, for a caller that must not allocate (read only) */
    long counter(RcCounter counter) {
        return counts[counter.ordinal()];
    }
}
