package io.jndk.roce.cm;

import io.jndk.roce.codec.NetworkOrder;
import io.jndk.roce.mad.CmAttribute;
import io.jndk.roce.mad.CmPairedMessageFlyweight;
import io.jndk.roce.mad.CmServiceId;
import io.jndk.roce.mad.CmaHeader;
import io.jndk.roce.mad.ConnectRejectFlyweight;
import io.jndk.roce.mad.ConnectReplyFlyweight;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import io.jndk.roce.mad.DisconnectReplyFlyweight;
import io.jndk.roce.mad.DisconnectRequestFlyweight;
import io.jndk.roce.mad.MadDecoder;
import io.jndk.roce.mad.MadError;
import io.jndk.roce.mad.MadHeaderFlyweight;
import io.jndk.roce.mad.MraFlyweight;
import io.jndk.roce.mad.ReadyToUseFlyweight;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The communication manager of one RoCEv2 port (one local GID), as Linux rdma_cm and ib_cm run it: it owns the
 * communication and transaction IDs, the listeners (by rdma_cm port, service ID {@code 0x0000000001060000 | port}),
 * and every {@link CmConnection}; it demultiplexes incoming MADs (a REQ by sender GID and sender communication ID,
 * every other message by the local communication ID it names) and drives the retry and time-wait timers from an
 * injected clock. It has no socket and no thread: the transport hands it each MAD from QP1 ({@link #receive}),
 * calls {@link #tick} when {@link #nextDeadline} passes, and puts what it sends on the wire ({@link MadSink}). One
 * thread drives it; handlers run on that thread.
 *
 * <p>Robustness: a malformed MAD, one for an unknown connection or one that does not fit its connection's state
 * is counted and dropped, or answered statelessly where ib_cm answers (a REQ for a port without listener: REJ 8;
 * an unusable REQ: REJ 28; a REP for an unknown ID: REJ 6; a DREQ for an unknown ID: DREP). Passive connections not
 * yet established are bounded by
 * {@link CmConfig#maxPendingRequests()}: a REQ beyond it gets REJ reason 3 (no resources) and leaves no state; all
 * connections are bounded by {@link CmConfig#maxConnections()}.
 */
public final class CmAgent {

    /** Consumer private data of a REQ: 92 octets less the 36 of the rdma_cm header. */
    public static final int REQ_PRIVATE_DATA = ConnectRequestFlyweight.PRIVATE_DATA_LENGTH - CmaHeader.LENGTH;
    /** Private data of a REP. */
    public static final int REP_PRIVATE_DATA = ConnectReplyFlyweight.PRIVATE_DATA_LENGTH;
    /** Private data of a REJ. */
    public static final int REJ_PRIVATE_DATA = ConnectRejectFlyweight.PRIVATE_DATA_LENGTH;
    /** Private data of an RTU. */
    public static final int RTU_PRIVATE_DATA = ReadyToUseFlyweight.PRIVATE_DATA_LENGTH;
    /** Private data of a DREQ. */
    public static final int DREQ_PRIVATE_DATA = DisconnectRequestFlyweight.PRIVATE_DATA_LENGTH;
    /** Private data of a DREP. */
    public static final int DREP_PRIVATE_DATA = DisconnectReplyFlyweight.PRIVATE_DATA_LENGTH;
    /** REJ reason 3: no resources (the pending-request table is full). */
    public static final int REASON_NO_RESOURCES = 3;
    /** REJ reason 6: invalid communication ID. */
    public static final int REASON_INVALID_COMM_ID = 6;
    /** The P_Key and LIDs rdma_cm puts in a RoCE REQ. */
    static final int PERMISSIVE = 0xFFFF;
    /** MRA's Message MRAed code for a REQ. */
    static final int MRAED_REQ = 0;
    /** MRA's Message MRAed code for a REP. */
    static final int MRAED_REP = 1;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final int ID_ATTEMPTS = 64;
    /** A held passive connection stays at most this many of this agent's own REQ retry windows. */
    private static final int MAX_HOLD_WINDOWS = 4;

    private final Gid localGid;
    private final CmConfig config;
    private final LongSupplier clock;
    private final CmIdSource ids;
    private final MadSink sink;
    private final Map<Integer, CmConnection> byLocalId = new HashMap<>();
    private final Map<RemoteKey, CmConnection> byRemote = new HashMap<>();
    private final Map<Integer, CmHandler> listeners = new HashMap<>();
    private final long[] counters = new long[CmCounter.values().length];
    private final MadDecoder decoder = new MadDecoder();
    private final ByteBuffer scratch = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
    private final ConnectRequestFlyweight req = new ConnectRequestFlyweight();
    private final ConnectReplyFlyweight rep = new ConnectReplyFlyweight();
    private final ConnectRejectFlyweight rej = new ConnectRejectFlyweight();
    private final ReadyToUseFlyweight rtu = new ReadyToUseFlyweight();
    private final MraFlyweight mra = new MraFlyweight();
    private final DisconnectRequestFlyweight dreq = new DisconnectRequestFlyweight();
    private final DisconnectReplyFlyweight drep = new DisconnectReplyFlyweight();
    private final CmaHeader cma = new CmaHeader();
    private int pendingRequests;
    /** Passive connections held after a REJ, oldest first (entries may already be gone: checked when taken). */
    private final java.util.ArrayDeque<CmConnection> heldRejections = new java.util.ArrayDeque<>();
    private long nextDeadline = CmConnection.NO_DEADLINE;

    /** A passive connection's key: the peer and the peer's communication ID. */
    private record RemoteKey(Gid peer, int commId) {
    }

    /**
     * @param localGid this port's GID
     * @param config the constants and bounds
     * @param nanoClock the time in nanoseconds ({@link System#nanoTime} or a test's clock)
     * @param ids the source of communication and transaction IDs
     * @param sink where sent MADs go
     */
    public CmAgent(Gid localGid, CmConfig config, LongSupplier nanoClock, CmIdSource ids, MadSink sink) {
        this.localGid = localGid;
        this.config = config;
        this.clock = nanoClock;
        this.ids = ids;
        this.sink = sink;
    }

    /** @return this port's GID */
    public Gid localGid() {
        return localGid;
    }

    /** @return the configuration */
    public CmConfig config() {
        return config;
    }

    /**
     * @param counter a counter
     * @return its value
     */
    public long counter(CmCounter counter) {
        return counters[counter.ordinal()];
    }

    /** @return how many connections the agent knows (every state but idle and closed) */
    public int connections() {
        return byLocalId.size();
    }

    /** @return how many passive connections count against {@link CmConfig#maxPendingRequests()} */
    public int pendingRequests() {
        return pendingRequests;
    }

    /**
     * Listens on an rdma_cm port (RDMA_PS_TCP): REQs for its service ID reach {@code handler}.
     *
     * @param port the port, 1-65535
     * @param handler receives the requests and the later events of their connections
     * @return {@link CmStatus#OK}, {@link CmStatus#INVALID_PARAMETER} or {@link CmStatus#ADDRESS_IN_USE}
     */
    public CmStatus listen(int port, CmHandler handler) {
        if (port <= 0 || port > 0xFFFF || handler == null) {
            return CmStatus.INVALID_PARAMETER;
        }
        return listeners.putIfAbsent(port, handler) == null ? CmStatus.OK : CmStatus.ADDRESS_IN_USE;
    }

    /**
     * Stops listening; connections already requested are not affected, new REQs for the port get REJ 8.
     *
     * @param port the port
     */
    public void unlisten(int port) {
        listeners.remove(port);
    }

    /**
     * @param handler receives the connection's events
     * @return a new active connection, {@link CmState#IDLE}
     */
    public CmConnection newConnection(CmHandler handler) {
        return new CmConnection(this, handler, true);
    }

    /** @return when {@link #tick} next has work, in the clock's nanoseconds; {@link Long#MAX_VALUE} for never */
    public long nextDeadline() {
        return nextDeadline;
    }

    /**
     * Runs every timer that has expired: resends, timeouts, the end of time waits.
     *
     * @return {@link #nextDeadline()}
     */
    public long tick() {
        long now = clock.getAsLong();
        if (now < nextDeadline) {
            return nextDeadline;
        }
        for (CmConnection c : new ArrayList<>(byLocalId.values())) {
            if (c.deadline <= now && byLocalId.get(c.localCommId) == c) {
                expire(c, now);
            }
        }
        long next = CmConnection.NO_DEADLINE;
        for (CmConnection c : byLocalId.values()) {
            next = Math.min(next, c.deadline);
        }
        nextDeadline = next;
        return next;
    }

    /**
     * Handles one MAD from QP1 (the payload of a GSI datagram, as {@link MadDecoder} reads it). Never throws for
     * any content.
     *
     * @param from the GID it came from (the IP source of the datagram)
     * @param buffer the buffer
     * @param offset index of the MAD's first octet
     * @param length octets from there
     */
    public void receive(Gid from, ByteBuffer buffer, int offset, int length) {
        count(CmCounter.MADS_RECEIVED);
        if (from == null || decoder.decode(buffer, offset, length) != MadError.NONE) {
            count(CmCounter.MALFORMED);
            return;
        }
        switch (decoder.attribute()) {
            case REQ -> onReq(from, decoder.req());
            case MRA -> onMra(from, decoder.mra());
            case REJ -> onRej(from, decoder.rej());
            case REP -> onRep(from, decoder.rep());
            case RTU -> onRtu(from, decoder.rtu());
            case DREQ -> onDreq(from, decoder.dreq());
            case DREP -> onDrep(from, decoder.drep());
        }
    }

    // ---- consumer calls ----

    CmStatus connect(CmConnection c, ConnectParams p) {
        if (!c.active || c.state != CmState.IDLE || c.closed) {
            return CmStatus.INVALID_STATE;
        }
        byte[] data = p.privateData();
        if (data.length > REQ_PRIVATE_DATA) {
            return CmStatus.INVALID_BUFFER_SIZE;
        }
        if (p.remoteGid() == null || !u24(p.localQpn()) || !u24(p.startingPsn()) || !u8(p.ird()) || !u8(p.ord())
            || !u16(p.sourcePort()) || p.destinationPort() <= 0 || !u16(p.destinationPort())) {
            return CmStatus.INVALID_PARAMETER;
        }
        if (byLocalId.size() >= config.maxConnections() || !register(c)) {
            return CmStatus.INSUFFICIENT_RESOURCES;
        }
        c.peer = p.remoteGid();
        c.localQpn = p.localQpn();
        c.transactionId = ids.transactionId(c.localCommId);
        c.retryMillis = config.reqIntervalMillis();
        writeReq(c, p, data);
        c.state = CmState.REQ_SENT;
        arm(c, config.maxCmRetries(), c.retryMillis);
        sendRetained(c);
        return CmStatus.OK;
    }

    CmStatus accept(CmConnection c, AcceptParams p) {
        if (c.active || c.state != CmState.REQ_RECEIVED || c.closed) {
            return CmStatus.INVALID_STATE;
        }
        byte[] data = p.privateData();
        if (data.length > REP_PRIVATE_DATA) {
            return CmStatus.INVALID_BUFFER_SIZE;
        }
        if (!u24(p.localQpn()) || !u24(p.startingPsn()) || !u8(p.ird()) || !u8(p.ord())) {
            return CmStatus.INVALID_PARAMETER;
        }
        c.localQpn = p.localQpn();
        rep.wrap(c.retained, 0);
        rep.initialize(c.transactionId);
        rep.localCommId(c.localCommId);
        rep.remoteCommId(c.remoteCommId);
        rep.localQkey(0);
        rep.localQpn(p.localQpn());
        rep.startingPsn(p.startingPsn());
        rep.responderResources(Math.min(p.ird(), c.requestInitiatorDepth));
        rep.initiatorDepth(Math.min(p.ord(), c.requestResponderResources));
        rep.targetAckDelay(config.targetAckDelay());
        rep.rnrRetryCount(config.rnrRetryCount());
        rep.localCaGuid(config.caGuid());
        rep.putPrivateData(data, 0, data.length);
        c.retainedKind = CmAttribute.REP;
        c.state = CmState.REP_SENT;
        arm(c, config.maxCmRetries(), c.retryMillis);
        sendRetained(c);
        return CmStatus.OK;
    }

    CmStatus reject(CmConnection c, byte[] privateData) {
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (c.closed || (c.state != CmState.REQ_RECEIVED && c.state != CmState.REP_RECEIVED)) {
            return CmStatus.INVALID_STATE;
        }
        if (data.length > REJ_PRIVATE_DATA) {
            return CmStatus.INVALID_BUFFER_SIZE;
        }
        rejectAndHold(c, ConnectRejectFlyweight.REASON_CONSUMER, data, false);
        return CmStatus.OK;
    }

    CmStatus complete(CmConnection c, byte[] privateData) {
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (!c.active || c.closed || c.state != CmState.REP_RECEIVED) {
            return CmStatus.INVALID_STATE;
        }
        if (data.length > RTU_PRIVATE_DATA) {
            return CmStatus.INVALID_BUFFER_SIZE;
        }
        rtu.wrap(c.retained, 0);
        rtu.initialize(c.transactionId);
        rtu.localCommId(c.localCommId);
        rtu.remoteCommId(c.remoteCommId);
        rtu.putPrivateData(data, 0, data.length);
        c.retainedKind = CmAttribute.RTU;
        c.state = CmState.ESTABLISHED;
        c.wasEstablished = true;
        disarm(c);
        sendRetained(c);
        return CmStatus.OK;
    }

    CmStatus disconnect(CmConnection c, byte[] privateData) {
        byte[] data = privateData == null ? new byte[0] : privateData;
        if (data.length > DREQ_PRIVATE_DATA) {
            return CmStatus.INVALID_BUFFER_SIZE;
        }
        if (c.wasEstablished && (c.state == CmState.TIMEWAIT || c.state == CmState.DREQ_SENT)) {
            return CmStatus.OK;
        }
        if (c.closed || c.state != CmState.ESTABLISHED) {
            return CmStatus.INVALID_STATE;
        }
        writeDreq(c, data);
        c.state = CmState.DREQ_SENT;
        arm(c, config.maxCmRetries(), c.retryMillis);
        sendRetained(c);
        return CmStatus.OK;
    }

    void dataArrived(CmConnection c) {
        if (c.state == CmState.REP_SENT && !c.closed) {
            establish(c);
        }
    }

    void close(CmConnection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        switch (c.state) {
            case IDLE -> c.state = CmState.CLOSED;
            case REQ_SENT -> {
                sendTimeoutReject(c);
                release(c);
            }
            case REQ_RECEIVED, REP_RECEIVED, REP_SENT -> rejectAndHold(c, ConnectRejectFlyweight.REASON_CONSUMER, new byte[0], false);
            case ESTABLISHED -> {
                writeDreq(c, new byte[0]);
                sendRetained(c);
                enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
            }
            case DREQ_SENT -> enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
            case TIMEWAIT, CLOSED -> {
                // nothing left to tell the peer
            }
        }
    }

    void reset(CmConnection c) {
        if (c.closed) {
            return;
        }
        if (c.state == CmState.ESTABLISHED || c.state == CmState.DREQ_SENT) {
            c.closed = true;
            writeRej(scratch, c.transactionId, c.localCommId, c.remoteCommId, ConnectRejectFlyweight.REJECTED_OTHER,
                ConnectRejectFlyweight.REASON_CONSUMER, new byte[0], false);
            count(CmCounter.REJECTS_SENT);
            send(c.peer, scratch);
            enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
            return;
        }
        close(c);
    }

    // ---- incoming messages ----

    private void onReq(Gid from, ConnectRequestFlyweight m) {
        CmConnection dup = byRemote.get(new RemoteKey(from, m.localCommId()));
        if (dup != null) {
            duplicateReq(dup);
            return;
        }
        long serviceId = m.serviceId();
        CmHandler listener = CmServiceId.isTcp(serviceId) ? listeners.get(CmServiceId.port(serviceId)) : null;
        if (listener == null) {
            rejectStateless(from, m.header().transactionId(), 0, m.localCommId(), ConnectRejectFlyweight.REJECTED_REQ,
                ConnectRejectFlyweight.REASON_INVALID_SERVICE_ID);
            return;
        }
        cma.wrap(m.buffer(), m.privateDataIndex());
        int ipVersion = cma.ipVersion();
        if (cma.cmaVersion() != CmaHeader.CMA_VERSION || (ipVersion != 4 && ipVersion != 6) || m.transportServiceType() != 0) {
            // what rdma_cm's REQ handler failing makes ib_cm send
            count(CmCounter.MALFORMED);
            rejectStateless(from, m.header().transactionId(), 0, m.localCommId(), ConnectRejectFlyweight.REJECTED_REQ,
                ConnectRejectFlyweight.REASON_CONSUMER);
            return;
        }
        if (byLocalId.size() >= config.maxConnections()) {
            evictHeldRejection();
        }
        if (pendingRequests >= config.maxPendingRequests() || byLocalId.size() >= config.maxConnections()) {
            count(CmCounter.REQUEST_OVERFLOW);
            rejectStateless(from, m.header().transactionId(), 0, m.localCommId(), ConnectRejectFlyweight.REJECTED_REQ,
                REASON_NO_RESOURCES);
            return;
        }
        CmConnection c = new CmConnection(this, listener, false);
        if (!register(c)) {
            count(CmCounter.REQUEST_OVERFLOW);
            rejectStateless(from, m.header().transactionId(), 0, m.localCommId(), ConnectRejectFlyweight.REJECTED_REQ,
                REASON_NO_RESOURCES);
            return;
        }
        c.peer = from;
        c.remoteCommId = m.localCommId();
        c.transactionId = m.header().transactionId();
        c.remoteQpn = m.localQpn();
        c.requestResponderResources = m.responderResources();
        c.requestInitiatorDepth = m.initiatorDepth();
        c.retryMillis = CmConfig.millis(m.localCmResponseTimeout());
        long reqInterval = 2 * CmConfig.millis(config.packetLifeTime()) + CmConfig.millis(m.remoteCmResponseTimeout());
        // a hostile REQ's timeouts must not pin a pending slot for hours
        c.holdMillis = Math.min((m.maxCmRetries() + 1) * reqInterval, MAX_HOLD_WINDOWS * (config.maxCmRetries() + 1)
            * config.reqIntervalMillis());
        c.request = incoming(from, m, ipVersion);
        c.pending = true;
        pendingRequests++;
        byRemote.put(new RemoteKey(from, c.remoteCommId), c);
        c.state = CmState.REQ_RECEIVED;
        arm(c, 0, c.holdMillis);
        emit(c, new CmEvent.RequestReceived(c, c.request));
    }

    /**
     * Makes room for a new request by forgetting the oldest passive connection held only to repeat its REJ to the
     * peer's retries: a courtesy, which must not lock new requests out after a storm of rejected ones (the peer whose
     * held rejection is forgotten gets REJ "stale connection" or none at its next retry, and gives up all the same).
     */
    private void evictHeldRejection() {
        while (!heldRejections.isEmpty()) {
            CmConnection c = heldRejections.pollFirst();
            if (c.state == CmState.TIMEWAIT && byLocalId.get(c.localCommId) == c) {
                count(CmCounter.REQUEST_OVERFLOW);
                release(c);
                return;
            }
        }
    }

    private IncomingConnect incoming(Gid from, ConnectRequestFlyweight m, int ipVersion) {
        int addressLength = ipVersion == 4 ? 4 : CmaHeader.ADDRESS_LENGTH;
        int skip = CmaHeader.ADDRESS_LENGTH - addressLength;
        byte[] source = new byte[addressLength];
        byte[] destination = new byte[addressLength];
        int base = m.privateDataIndex();
        NetworkOrder.copyOut(m.buffer(), base + CmaHeader.SOURCE_OFFSET + skip, source, 0, addressLength);
        NetworkOrder.copyOut(m.buffer(), base + CmaHeader.DESTINATION_OFFSET + skip, destination, 0, addressLength);
        byte[] data = new byte[REQ_PRIVATE_DATA];
        NetworkOrder.copyOut(m.buffer(), base + CmaHeader.LENGTH, data, 0, data.length);
        return new IncomingConnect(from, ipVersion, source, destination, cma.port(), CmServiceId.port(m.serviceId()),
            m.localQpn(), m.startingPsn(), m.responderResources(), m.initiatorDepth(), m.localCaGuid(), m.pathMtu(), data);
    }

    private void duplicateReq(CmConnection c) {
        count(CmCounter.DUPLICATES);
        switch (c.state) {
            case REQ_RECEIVED -> {
                // rdma_cm's delayed MRA: sent only when the REQ is retried while the consumer decides
                c.mraSent = true;
                sendMra(c, MRAED_REQ);
                long extended = CmConfig.millis(config.mraServiceTimeout()) + c.holdMillis;
                c.deadline = Math.max(c.deadline, clock.getAsLong() + extended * NANOS_PER_MILLI);
                nextDeadline = Math.min(nextDeadline, c.deadline);
            }
            case REP_SENT -> sendRetained(c);
            case TIMEWAIT -> {
                if (c.retainedKind == CmAttribute.REJ) {
                    sendRetained(c);
                } else {
                    rejectStateless(c.peer, c.transactionId, c.localCommId, c.remoteCommId, ConnectRejectFlyweight.REJECTED_REQ,
                        ConnectRejectFlyweight.REASON_STALE_CONNECTION);
                }
            }
            default -> {
                // established or disconnecting: the REQ is stale, as ib_cm drops it
            }
        }
    }

    private void onRep(Gid from, ConnectReplyFlyweight m) {
        CmConnection c = find(from, m, false);
        if (c == null || !c.active) {
            count(CmCounter.UNKNOWN_CONNECTION);
            rejectStateless(from, m.header().transactionId(), m.remoteCommId(), m.localCommId(),
                ConnectRejectFlyweight.REJECTED_REP, REASON_INVALID_COMM_ID);
            return;
        }
        switch (c.state) {
            case REQ_SENT -> {
                c.remoteCommId = m.localCommId();
                c.remoteQpn = m.localQpn();
                byte[] data = new byte[REP_PRIVATE_DATA];
                m.getPrivateData(data, 0);
                c.reply = new ConnectReply(m.localQpn(), m.startingPsn(), m.responderResources(), m.initiatorDepth(),
                    m.localCaGuid(), data);
                c.state = CmState.REP_RECEIVED;
                disarm(c);
                emit(c, new CmEvent.ReplyReceived(c, c.reply));
            }
            case REP_RECEIVED -> {
                // the peer resends its REP while the consumer decides: ask it to wait
                count(CmCounter.DUPLICATES);
                c.mraSent = true;
                sendMra(c, MRAED_REP);
            }
            case ESTABLISHED, TIMEWAIT -> {
                // the RTU (or the REJ) was lost
                count(CmCounter.DUPLICATES);
                if (c.retainedKind == CmAttribute.RTU || c.retainedKind == CmAttribute.REJ) {
                    sendRetained(c);
                }
            }
            default -> count(CmCounter.WRONG_STATE);
        }
    }

    private void onRtu(Gid from, ReadyToUseFlyweight m) {
        CmConnection c = find(from, m, false);
        if (c == null) {
            count(CmCounter.UNKNOWN_CONNECTION);
        } else if (c.state == CmState.REP_SENT && !c.active) {
            establish(c);
        } else {
            count(CmCounter.WRONG_STATE);
        }
    }

    private void onMra(Gid from, MraFlyweight m) {
        CmConnection c = find(from, m, false);
        if (c == null) {
            count(CmCounter.UNKNOWN_CONNECTION);
            return;
        }
        boolean forOurs = (c.state == CmState.REQ_SENT && m.messageMraed() == MRAED_REQ)
            || (c.state == CmState.REP_SENT && m.messageMraed() == MRAED_REP);
        if (!forOurs) {
            count(CmCounter.WRONG_STATE);
            return;
        }
        // the peer needs up to its service timeout more: wait that long before the next resend
        long wait = CmConfig.millis(m.serviceTimeout()) + CmConfig.millis(config.packetLifeTime());
        c.deadline = clock.getAsLong() + wait * NANOS_PER_MILLI;
        nextDeadline = Math.min(nextDeadline, c.deadline);
    }

    private void onRej(Gid from, ConnectRejectFlyweight m) {
        CmConnection c;
        if (m.remoteCommId() == 0) {
            // an active side giving up before it learned our ID (reason 4 timeout): find it by its own ID
            c = byRemote.get(new RemoteKey(from, m.localCommId()));
        } else {
            c = find(from, m, true);
        }
        if (c == null) {
            count(CmCounter.UNKNOWN_CONNECTION);
            return;
        }
        byte[] data = new byte[REJ_PRIVATE_DATA];
        m.getPrivateData(data, 0);
        CmState during = c.state;
        switch (during) {
            case REQ_SENT, REP_RECEIVED, REQ_RECEIVED, REP_SENT -> {
                release(c);
                emit(c, new CmEvent.Rejected(c, during, m.reason(), data));
            }
            case ESTABLISHED, DREQ_SENT -> {
                enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
                emit(c, new CmEvent.Disconnected(c, during == CmState.ESTABLISHED ? DisconnectCause.RESET : DisconnectCause.LOCAL));
            }
            default -> count(CmCounter.WRONG_STATE);
        }
    }

    private void onDreq(Gid from, DisconnectRequestFlyweight m) {
        CmConnection c = find(from, m, false);
        if (c == null) {
            // ib_cm answers a DREQ it cannot place, so the peer's disconnect ends
            count(CmCounter.UNKNOWN_CONNECTION);
            writeDrep(scratch, m.header().transactionId(), m.remoteCommId(), m.localCommId());
            send(from, scratch);
            return;
        }
        if (m.remoteQpn() != c.localQpn) {
            count(CmCounter.WRONG_STATE);
            return;
        }
        switch (c.state) {
            case REP_SENT, ESTABLISHED, DREQ_SENT, REP_RECEIVED -> {
                CmState was = c.state;
                if (was == CmState.REP_SENT) {
                    // the RTU was lost and the peer is already done: established, then disconnected
                    establish(c);
                }
                writeDrep(c.retained, m.header().transactionId(), c.localCommId, c.remoteCommId);
                c.retainedKind = CmAttribute.DREP;
                sendRetained(c);
                enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
                emit(c, new CmEvent.Disconnected(c, was == CmState.DREQ_SENT ? DisconnectCause.LOCAL : DisconnectCause.PEER));
            }
            case TIMEWAIT -> {
                count(CmCounter.DUPLICATES);
                writeDrep(scratch, m.header().transactionId(), c.localCommId, c.remoteCommId);
                send(from, scratch);
            }
            default -> count(CmCounter.WRONG_STATE);
        }
    }

    private void onDrep(Gid from, DisconnectReplyFlyweight m) {
        CmConnection c = find(from, m, false);
        if (c == null) {
            count(CmCounter.UNKNOWN_CONNECTION);
        } else if (c.state == CmState.DREQ_SENT) {
            enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
            emit(c, new CmEvent.Disconnected(c, DisconnectCause.LOCAL));
        } else {
            count(CmCounter.WRONG_STATE);
        }
    }

    /**
     * @param from the sender
     * @param m a message naming our ID as its remote ID
     * @param unknownSenderId true when the sender's own ID may be 0 (a REJ of an undecided REQ)
     * @return the connection it names, if the sender and its ID match it
     */
    private CmConnection find(Gid from, CmPairedMessageFlyweight m, boolean unknownSenderId) {
        CmConnection c = byLocalId.get(m.remoteCommId());
        if (c == null || !c.peer.equals(from)) {
            return null;
        }
        boolean senderMatches = c.remoteCommId == 0 || m.localCommId() == c.remoteCommId
            || (unknownSenderId && m.localCommId() == 0);
        return senderMatches ? c : null;
    }

    // ---- timers and transitions ----

    private void expire(CmConnection c, long now) {
        switch (c.state) {
            case REQ_SENT, REP_SENT, DREQ_SENT -> {
                if (c.retriesLeft > 0) {
                    c.retriesLeft--;
                    c.deadline = now + c.retryMillis * NANOS_PER_MILLI;
                    count(CmCounter.RETRIES);
                    sendRetained(c);
                } else if (c.state == CmState.REQ_SENT) {
                    sendTimeoutReject(c);
                    release(c);
                    emit(c, new CmEvent.TimedOut(c, CmState.REQ_SENT));
                } else if (c.state == CmState.REP_SENT) {
                    rejectAndHold(c, ConnectRejectFlyweight.REASON_TIMEOUT, new byte[0], true);
                    emit(c, new CmEvent.TimedOut(c, CmState.REP_SENT));
                } else {
                    enterTimewait(c, CmConfig.millis(config.localAckTimeout()));
                    emit(c, new CmEvent.Disconnected(c, DisconnectCause.TIMEOUT));
                }
            }
            case REQ_RECEIVED -> {
                // the consumer left the request undecided beyond the active side's retries: it has given up
                release(c);
                emit(c, new CmEvent.TimedOut(c, CmState.REQ_RECEIVED));
            }
            case TIMEWAIT -> {
                release(c);
                emit(c, new CmEvent.TimewaitExit(c));
            }
            default -> disarm(c);
        }
    }

    private void establish(CmConnection c) {
        c.state = CmState.ESTABLISHED;
        c.wasEstablished = true;
        disarm(c);
        unpend(c);
        emit(c, new CmEvent.Established(c));
    }

    /**
     * Sends a REJ in the form ib_cm gives it for the state, then keeps the connection in time wait to answer
     * the peer's retries with it.
     */
    private void rejectAndHold(CmConnection c, int reason, byte[] data, boolean timeoutAri) {
        int local = c.localCommId;
        int rejected = ConnectRejectFlyweight.REJECTED_OTHER;
        if (c.state == CmState.REQ_RECEIVED) {
            rejected = ConnectRejectFlyweight.REJECTED_REQ;
            local = c.mraSent ? c.localCommId : 0;
        } else if (c.state == CmState.REP_RECEIVED) {
            rejected = ConnectRejectFlyweight.REJECTED_REP;
        }
        writeRej(c.retained, c.transactionId, local, c.remoteCommId, rejected, reason, data, timeoutAri);
        c.retainedKind = CmAttribute.REJ;
        count(CmCounter.REJECTS_SENT);
        sendRetained(c);
        // decided: held only to answer the peer's retries with the REJ, counted among the connections (bounded by
        // maxConnections) but no longer among the pending requests, so rejected requests do not lock new ones out
        unpend(c);
        enterTimewait(c, c.active ? CmConfig.millis(config.localAckTimeout()) : c.holdMillis);
        if (!c.active) {
            while (!heldRejections.isEmpty() && byLocalId.get(heldRejections.peekFirst().localCommId) != heldRejections.peekFirst()) {
                heldRejections.pollFirst(); // released already (its hold ended): holds end about in order
            }
            heldRejections.addLast(c);
        }
    }

    /** The REJ ib_cm sends when a connecting ID is destroyed or gives up: reason 4, the CA GUID as ARI. */
    private void sendTimeoutReject(CmConnection c) {
        writeRej(scratch, c.transactionId, c.localCommId, c.remoteCommId, ConnectRejectFlyweight.REJECTED_OTHER,
            ConnectRejectFlyweight.REASON_TIMEOUT, new byte[0], true);
        count(CmCounter.REJECTS_SENT);
        send(c.peer, scratch);
    }

    private void enterTimewait(CmConnection c, long millis) {
        c.state = CmState.TIMEWAIT;
        arm(c, 0, millis);
    }

    private boolean register(CmConnection c) {
        for (int i = 0; i < ID_ATTEMPTS; i++) {
            int id = ids.nextCommId();
            if (id != 0 && !byLocalId.containsKey(id)) {
                c.localCommId = id;
                byLocalId.put(id, c);
                return true;
            }
        }
        return false;
    }

    private void release(CmConnection c) {
        c.state = CmState.CLOSED;
        disarm(c);
        unpend(c);
        byLocalId.remove(c.localCommId, c);
        if (!c.active) {
            byRemote.remove(new RemoteKey(c.peer, c.remoteCommId), c);
        }
    }

    private void unpend(CmConnection c) {
        if (c.pending) {
            c.pending = false;
            pendingRequests--;
        }
    }

    private void arm(CmConnection c, int retries, long millis) {
        c.retriesLeft = retries;
        c.deadline = clock.getAsLong() + millis * NANOS_PER_MILLI;
        nextDeadline = Math.min(nextDeadline, c.deadline);
    }

    private static void disarm(CmConnection c) {
        c.deadline = CmConnection.NO_DEADLINE;
        c.retriesLeft = 0;
    }

    private void emit(CmConnection c, CmEvent event) {
        if (!c.closed && c.handler != null) {
            c.handler.onEvent(event);
        }
    }

    // ---- message formats ----

    private void writeReq(CmConnection c, ConnectParams p, byte[] data) {
        req.wrap(c.retained, 0);
        req.initialize(c.transactionId);
        req.localCommId(c.localCommId);
        req.serviceId(CmServiceId.tcp(p.destinationPort()));
        req.localCaGuid(config.caGuid());
        req.localQkey(0);
        req.localQpn(p.localQpn());
        req.responderResources(p.ird());
        req.initiatorDepth(p.ord());
        req.remoteCmResponseTimeout(config.cmResponseTimeout());
        req.startingPsn(p.startingPsn());
        req.localCmResponseTimeout(config.cmResponseTimeout());
        req.retryCount(config.retryCount());
        req.pkey(PERMISSIVE);
        req.pathMtu(config.pathMtu());
        req.rnrRetryCount(config.rnrRetryCount());
        req.maxCmRetries(config.maxCmRetries());
        byte[] gid = new byte[Gid.LENGTH];
        req.primaryPath().localLid(PERMISSIVE).remoteLid(PERMISSIVE);
        localGid.copyTo(gid, 0);
        req.primaryPath().putLocalGid(gid, 0);
        p.remoteGid().copyTo(gid, 0);
        req.primaryPath().putRemoteGid(gid, 0);
        // rdma_cm's RoCEv2 flow label: source port * 31 + destination port, 20 bits
        req.primaryPath().flowLabel((p.sourcePort() * 31 + p.destinationPort()) & 0xFFFFF).hopLimit(config.hopLimit())
            .localAckTimeout(config.localAckTimeout());
        cma.wrap(c.retained, req.privateDataIndex());
        if (localGid.isIpv4Mapped() && p.remoteGid().isIpv4Mapped()) {
            cma.ipv4(p.sourcePort(), localGid.ipv4(), p.remoteGid().ipv4());
        } else {
            cma.ipv6(p.sourcePort(), localGid.octets(), p.remoteGid().octets());
        }
        NetworkOrder.copyIn(c.retained, req.privateDataIndex() + CmaHeader.LENGTH, data, 0, data.length);
        c.retainedKind = CmAttribute.REQ;
    }

    private void writeDreq(CmConnection c, byte[] data) {
        dreq.wrap(c.retained, 0);
        dreq.initialize(ids.transactionId(c.localCommId));
        dreq.localCommId(c.localCommId);
        dreq.remoteCommId(c.remoteCommId);
        dreq.remoteQpn(c.remoteQpn);
        dreq.putPrivateData(data, 0, data.length);
        c.retainedKind = CmAttribute.DREQ;
    }

    private void writeDrep(ByteBuffer buffer, long transactionId, int local, int remote) {
        drep.wrap(buffer, 0);
        drep.initialize(transactionId);
        drep.localCommId(local);
        drep.remoteCommId(remote);
    }

    private void writeRej(ByteBuffer buffer, long transactionId, int local, int remote, int rejected, int reason, byte[] data,
        boolean guidAri) {
        rej.wrap(buffer, 0);
        rej.initialize(transactionId);
        rej.localCommId(local);
        rej.remoteCommId(remote);
        rej.messageRejected(rejected);
        rej.reason(reason);
        if (guidAri) {
            rej.rejectInfoLength(Long.BYTES);
            byte[] ari = new byte[ConnectRejectFlyweight.ARI_LENGTH];
            ByteBuffer.wrap(ari).putLong(config.caGuid());
            rej.putAri(ari, 0);
        }
        rej.putPrivateData(data, 0, data.length);
    }

    private void rejectStateless(Gid to, long transactionId, int local, int remote, int rejected, int reason) {
        writeRej(scratch, transactionId, local, remote, rejected, reason, new byte[0], false);
        count(CmCounter.REJECTS_SENT);
        send(to, scratch);
    }

    private void sendMra(CmConnection c, int mraed) {
        mra.wrap(scratch, 0);
        mra.initialize(c.transactionId);
        mra.localCommId(c.localCommId);
        mra.remoteCommId(c.remoteCommId);
        mra.messageMraed(mraed);
        mra.serviceTimeout(config.mraServiceTimeout());
        send(c.peer, scratch);
    }

    private void sendRetained(CmConnection c) {
        send(c.peer, c.retained);
    }

    private void send(Gid to, ByteBuffer mad) {
        count(CmCounter.MADS_SENT);
        sink.send(to, mad.duplicate().clear());
    }

    private void count(CmCounter counter) {
        counters[counter.ordinal()]++;
    }

    private static boolean u8(int v) {
        return v >= 0 && v <= 0xFF;
    }

    private static boolean u16(int v) {
        return v >= 0 && v <= 0xFFFF;
    }

    private static boolean u24(int v) {
        return v >= 0 && v <= 0xFFFFFF;
    }
}
