package io.jndk.roce.transport;

import io.jndk.api.DisconnectReason;
import io.jndk.api.NtStatus;
import io.jndk.provider.spi.ActiveHandler;
import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.WireConnection;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireRequest;
import io.jndk.roce.cm.CmConnection;
import io.jndk.roce.cm.ConnectReply;
import io.jndk.roce.rc.LocalBuffer;
import io.jndk.roce.rc.PacketSink;
import io.jndk.roce.rc.PostResult;
import io.jndk.roce.rc.RcConfig;
import io.jndk.roce.rc.RcOperation;
import io.jndk.roce.rc.RcState;
import io.jndk.roce.rc.RcStatus;
import io.jndk.roce.rc.ReceiveCompletionHandler;
import io.jndk.roce.rc.ReceiveSource;
import io.jndk.roce.rc.RemoteAccess;
import io.jndk.roce.rc.Requester;
import io.jndk.roce.rc.Responder;
import io.jndk.roce.rc.SendCompletionHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One RC queue pair of the {@code roce} transport: the connection's {@link CmConnection}, its {@link Requester} and
 * {@link Responder}, and the bridge between them and the provider's {@link QpPort}. Every RC and CM call runs on the
 * device's engine thread; the provider's calls ({@link #start}, {@link #kick}, {@link #disconnect}, ...) hand their
 * work to that thread.
 *
 * <p>Completions: a Write or Send is reported {@link QpPort#sent sent} when the responder acknowledged it (stronger
 * than handed to the wire), a Read when its last response was placed. Inbound Writes and Reads are checked by the
 * port ({@code writeTarget}, {@code readSource}: the provider's token, bounds and rights rules) once per message, and
 * placed or read only through the cursor the check returned; a Send takes the port's next receive at its first
 * packet, and with none posted the responder answers RNR NAK (the requester waits and resends, as on RoCE hardware).
 */
final class RoceQp implements WireConnection, RemoteAccess, ReceiveSource, SendCompletionHandler,
        ReceiveCompletionHandler, PacketSink {

    /** One outstanding initiator request. */
    private static final class Holder {
        final WireRequest request = new WireRequest();
        final CursorBuffer local = new CursorBuffer();
    }

    /** One granted inbound Read source. */
    private static final class ReadGrant {
        final CursorBuffer source = new CursorBuffer();
        int rkey;
        long va;
        long length;
        boolean valid;
    }

    /** The RC Acknowledge opcode. */
    private static final int ACKNOWLEDGE = 0x11;

    final RoceDevice device;
    final boolean active;
    final int qpn;
    final InetSocketAddress local;
    final InetSocketAddress remote;
    final InetAddress peer;
    final int sourcePort;
    private final WireCounters counters = new WireCounters();
    private final AtomicBoolean kickQueued = new AtomicBoolean();
    private final List<Runnable> releaseActions = new ArrayList<>(1);
    private final BufferCursor[] cursorOut = new BufferCursor[1];

    CmConnection cm;
    /** A connection without the CM (out-of-band extension): its numbers; {@link #cm} stays null. */
    io.jndk.provider.spi.ConnectRequest.OutOfBand outOfBand;
    ActiveHandler activeHandler;
    PassiveHandler passiveHandler;
    /** Active: the REP, and the PSN this side's REQ carried: the first one it expects (its peer sends with it). */
    ConnectReply reply;
    int receivePsn;
    /** The active side's connection deadline until the reply, the passive side's until established (nanoseconds). */
    long connectDeadline = Long.MAX_VALUE;
    /** The device's kick stack. */
    RoceQp nextKick;

    private volatile QpPort port;
    /** The peer abandoned the connection before {@link #start}. */
    volatile boolean abandoned;
    private Requester requester;
    private Responder responder;
    private Holder[] holders;
    private long posted;
    private long completed;
    private int readsOutstanding;
    private boolean fenced;
    /** Data flows (RC state built and the port bound). */
    private boolean running;
    /** The connection ended: nothing more is placed or reported. */
    private boolean ended;
    /** The provider asked for a graceful close: DREQ once every request is answered. */
    private boolean closing;
    private boolean released;
    private boolean established;

    private final CursorBuffer receive = new CursorBuffer();
    private boolean receiving;
    private boolean receiveEnded;
    private BufferCursor writeCursor;
    private long writeBase;
    private ReadGrant[] reads;
    private int readNext;
    private int lastTerm;

    RoceQp(RoceDevice device, boolean active, int qpn, InetSocketAddress local, InetSocketAddress remote) {
        this.device = device;
        this.active = active;
        this.qpn = qpn;
        this.local = local;
        this.remote = remote;
        this.peer = remote.getAddress();
        this.sourcePort = 0xC000 | ((qpn * 0x9E3779B1) >>> 18 & 0x3FFF);
    }

    // ---- set-up (engine thread) ---------------------------------------------------------------

    /**
     * Builds the RC state: both halves, with the negotiated path MTU, the peer's QPN and both starting PSNs.
     */
    void build(QpPort qp, int mtu, int remoteQpn, int sendPsn, int receivePsn) {
        RoceOptions o = device.options;
        int ird = Math.max(1, qp.inboundReadLimit());
        int ord = Math.max(1, qp.outboundReadLimit());
        RcConfig c = RcConfig.rxeDefaults().toBuilder().pathMtu(mtu).destQpn(remoteQpn)
            .localAckTimeout(o.ackTimeout()).retries(o.retryCount(), o.rnrRetry()).minRnrTimer(o.minRnrTimer())
            .readDepth(ord, ird).queueDepths(o.sendQueueDepth(), 1).build();
        this.port = qp;
        this.requester = new Requester(c, sendPsn, System::nanoTime, this);
        this.responder = new Responder(c, receivePsn, this, this, this);
        this.holders = new Holder[c.sendQueueDepth()];
        for (int i = 0; i < holders.length; i++) {
            holders[i] = new Holder();
        }
        this.reads = new ReadGrant[ird + QpPort.READ_RESPONSE_BATCH];
        for (int i = 0; i < reads.length; i++) {
            reads[i] = new ReadGrant();
        }
        this.running = true;
    }

    boolean running() {
        return running;
    }

    boolean ended() {
        return ended;
    }

    // ---- WireConnection (any thread) ----------------------------------------------------------

    @Override
    public int start(QpPort qp) {
        if (abandoned) {
            return NtStatus.STATUS_CONNECTION_ABORTED;
        }
        device.execute(() -> device.completeActive(this, qp));
        return NtStatus.STATUS_SUCCESS;
    }

    @Override
    public void reject() {
        device.execute(() -> {
            if (cm != null) {
                cm.reject(null);
            }
            end(false);
        });
    }

    @Override
    public void kick() {
        if (kickQueued.compareAndSet(false, true)) {
            device.kick(this);
        }
    }

    @Override
    public boolean progressByPolling() {
        return device.polling;
    }

    @Override
    public int progress() {
        if (counters.retired()) {
            return PROGRESS_CLOSED;
        }
        return Math.max(0, device.consumerTurn());
    }

    @Override
    public void consumerArmed() {
        device.consumerArmed();
    }

    /** Engine: the kick is taken. */
    void kicked() {
        kickQueued.set(false);
    }

    @Override
    public void disconnect() {
        device.execute(() -> {
            closing = true;
            device.ready(this);
        });
    }

    @Override
    public void abort(int term) {
        device.execute(() -> {
            // After the consumer's graceful disconnect (a connector closed right after NdkDisconnect) the end stays
            // graceful: the DREQ, if it has not gone yet, and never a REJ after it (rxe's rping server reported the
            // REJ that followed a DREQ as RDMA_CM_EVENT_REJECTED, and failed)
            boolean graceful = closing && term == 0;
            ended = true; // the provider knows: nothing is reported back
            try {
                stopData();
                if (graceful) {
                    disconnectCm();
                } else {
                    resetCm();
                }
            } finally {
                end(graceful && cm != null); // whatever the CM did: the consumer's close waits for this
            }
        });
    }

    @Override
    public void reset() {
        abort(0);
    }

    @Override
    public void whenReleased(Runnable action) {
        device.execute(() -> {
            if (released) {
                action.run();
            } else {
                releaseActions.add(action);
            }
        });
    }

    @Override
    public WireCounters counters() {
        return counters;
    }

    @Override
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    // ---- data path (engine thread) ------------------------------------------------------------

    /**
     * Takes new requests from the port and sends what the requester and responder have, up to {@code budget}
     * packets each.
     *
     * @return whether more is left (the budget ran out)
     */
    boolean service(int budget) {
        if (!running) {
            return false;
        }
        if (!ended) {
            pull();
        }
        // requests first: a consumer that answers what it just received must not wait behind its ACK
        int sentRequests = ended ? 0 : requester.poll(this, budget);
        int sent = responder.poll(this, budget);
        if (closing && !ended && requester.outstanding() == 0 && !moreRequests()) {
            ended = true;
            try {
                stopData();
                disconnectCm();
            } finally {
                end(cm != null); // the QPN waits out the CM's time wait; without a CM there is none
            }
        }
        return sent == budget || sentRequests == budget;
    }

    private boolean moreRequests() {
        return false;
    }

    private void pull() {
        if (fenced && readsOutstanding > 0) {
            return;
        }
        fenced = false;
        QpPort qp = port;
        while (posted - completed < holders.length && requester.state() == RcState.READY) {
            Holder h = holders[(int) (posted % holders.length)];
            WireRequest w = h.request;
            int r = qp.nextRequest(w, readsOutstanding);
            if (r == QpPort.NONE) {
                return;
            }
            if (r == QpPort.FENCED) {
                fenced = true;
                return;
            }
            if (r == QpPort.FAILED) {
                ended = true; // the provider completed the local error and knows
                stopData();
                resetCm();
                end(false);
                return;
            }
            h.local.set(w.local);
            RcOperation op = switch (w.kind) {
                case WireRequest.WRITE -> RcOperation.RDMA_WRITE;
                case WireRequest.READ -> RcOperation.RDMA_READ;
                default -> w.invalidate ? RcOperation.SEND_WITH_INVALIDATE : RcOperation.SEND;
            };
            PostResult p = requester.post(posted, op, h.local, w.remoteAddress, w.remoteToken, w.invalidateToken,
                w.solicited);
            if (p != PostResult.OK) {
                // MESSAGE_TOO_LONG cannot happen within the adapter's transfer limit; a refusal is a local error
                fail(NtStatus.STATUS_INVALID_PARAMETER, Term.LLP_LOCAL_CATASTROPHIC, true, DisconnectReason.TERMINATE_SENT);
                return;
            }
            posted++;
            if (op == RcOperation.RDMA_READ) {
                readsOutstanding++;
            }
        }
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) {
        if (framed(buffer, offset)) {
            counters.fpduOut();
            if (device.inConsumerPass()) {
                counters.fpduOutInline();
            }
        }
        device.transmit(peer, sourcePort, buffer, offset, length);
    }

    /** A packet for this QP. */
    void onPacket(ByteBuffer buffer, int offset, int length, boolean response) {
        if (!running || ended) {
            device.count(RoceDevice.Counter.DROPPED_CLOSED);
            return;
        }
        if (framed(buffer, offset)) {
            counters.fpduIn();
            if (device.inConsumerPass()) {
                counters.fpduInPolled();
            }
        }
        if (!established && !active) {
            cm.dataArrived();
        }
        if (response) {
            requester.onPacket(buffer, offset, length);
        } else {
            responder.onPacket(buffer, offset, length);
            if (responder.state() == RcState.ERROR && !ended) {
                // our check refused the request: the NAK is queued; the connection fails here as a Terminate would
                fail(NtStatus.STATUS_CANCELLED, lastTerm == 0 ? Term.DDP_CATASTROPHIC : lastTerm, true,
                    DisconnectReason.TERMINATE_SENT);
            }
        }
        device.ready(this);
    }

    /**
     * What the FPDU counters count on this wire: data-bearing packets and error NAKs (the Terminate's counterpart),
     * not plain ACKs or RNR NAKs.
     */
    private static boolean framed(ByteBuffer buffer, int offset) {
        return (buffer.get(offset) & 0xFF) != ACKNOWLEDGE || (buffer.get(offset + 12) & 0xE0) == 0x60;
    }

    /** Adds the RC requester's and responder's counters to {@code into} (indexed by {@link RcCounter} ordinal; turn holder). */
    void addRcCounters(long[] into) {
        if (requester != null) {
            long[] r = requester.counters().values();
            long[] s = responder.counters().values();
            for (int i = 0; i < into.length; i++) {
                into[i] += r[i] + s[i];
            }
        }
    }

    long nextDeadline() {
        return running && !ended ? requester.nextDeadline() : Long.MAX_VALUE;
    }

    void onTimer(long now) {
        if (running && !ended) {
            requester.onTimer(now);
            device.ready(this);
        }
    }

    // ---- requester completions ----------------------------------------------------------------

    @Override
    public void completed(long wrId, RcOperation operation, RcStatus status, int byteLength) {
        Holder h = holders[(int) (wrId % holders.length)];
        completed = wrId + 1;
        if (operation == RcOperation.RDMA_READ) {
            readsOutstanding--;
        }
        WireRequest w = h.request;
        h.local.set(null);
        if (ended) {
            return;
        }
        switch (status) {
            case SUCCESS -> {
                if (operation == RcOperation.RDMA_READ) {
                    w.length = byteLength;
                    port.readDone(w);
                } else {
                    port.sent(w);
                }
            }
            case FLUSHED -> {
                // the provider flushes its own queue when it hears of the failure
            }
            case RETRY_EXCEEDED -> fail(NtStatus.STATUS_IO_TIMEOUT, 0, false, DisconnectReason.TIMEOUT);
            case RNR_RETRY_EXCEEDED -> // NDKPI: a Send with no receive posted is a remote error
                fail(NtStatus.STATUS_REMOTE_RESOURCES, Term.DDP_UNTAGGED_NO_BUFFER, false,
                    DisconnectReason.TERMINATE_RECEIVED);
            case REMOTE_ACCESS_ERROR -> // the NAK carries no cause: the class, as an unknown token
                fail(NtStatus.STATUS_REMOTE_RESOURCES, operation == RcOperation.RDMA_READ ? Term.RDMAP_INVALID_STAG
                    : Term.DDP_TAGGED_INVALID_STAG, false, DisconnectReason.TERMINATE_RECEIVED);
            case REMOTE_INVALID_REQUEST ->
                fail(NtStatus.STATUS_REMOTE_RESOURCES, operation == RcOperation.RDMA_WRITE || operation
                    == RcOperation.RDMA_READ ? Term.DDP_TAGGED_BASE_BOUNDS : Term.DDP_UNTAGGED_TOO_LONG, false,
                    DisconnectReason.TERMINATE_RECEIVED);
            default -> fail(NtStatus.STATUS_REMOTE_RESOURCES, Term.RDMAP_UNSPECIFIED, false,
                DisconnectReason.TERMINATE_RECEIVED);
        }
        if (fenced && readsOutstanding == 0) {
            device.ready(this);
        }
    }

    // ---- responder: memory and receives -------------------------------------------------------

    @Override
    public Result check(int rkey, long virtualAddress, int length, Right right) {
        QpPort qp = port;
        int term = right == Right.REMOTE_WRITE ? qp.writeTarget(rkey, virtualAddress, length, cursorOut)
            : qp.readSource(rkey, virtualAddress, length, cursorOut);
        if (term != 0) {
            lastTerm = term;
            return Result.REMOTE_ACCESS_ERROR;
        }
        if (right == Right.REMOTE_WRITE) {
            writeCursor = cursorOut[0];
            writeBase = virtualAddress;
        } else {
            ReadGrant g = reads[readNext];
            readNext = (readNext + 1) % reads.length;
            g.source.set(cursorOut[0]);
            g.rkey = rkey;
            g.va = virtualAddress;
            g.length = length;
            g.valid = true;
        }
        return Result.OK;
    }

    @Override
    public void write(int rkey, long virtualAddress, ByteBuffer src, int srcIndex, int length) {
        if (!writeCursor.place(virtualAddress - writeBase, src, srcIndex, length)) {
            device.count(RoceDevice.Counter.PLACEMENT_REFUSED);
        }
    }

    @Override
    public void read(int rkey, long virtualAddress, ByteBuffer dst, int dstIndex, int length) {
        for (int i = 1; i <= reads.length; i++) {
            ReadGrant g = reads[Math.floorMod(readNext - i, reads.length)];
            if (g.valid && g.rkey == rkey && virtualAddress - g.va >= 0 && virtualAddress - g.va + length <= g.length) {
                g.source.copyOut(virtualAddress - g.va, dst, dstIndex, length);
                return;
            }
        }
        device.count(RoceDevice.Counter.PLACEMENT_REFUSED); // no grant: the response carries zeros, never other memory
        for (int i = 0; i < length; i++) {
            dst.put(dstIndex + i, (byte) 0);
        }
    }

    @Override
    public Result invalidate(int rkey) {
        receiveEnded = true;
        receiving = false;
        int term = port.endReceive(receive.placed, responder.solicitedEvent(), true, rkey);
        receive.set(null);
        if (term != 0) {
            lastTerm = term;
            return Result.REMOTE_ACCESS_ERROR;
        }
        return Result.OK;
    }

    @Override
    public LocalBuffer take() {
        int term = port.beginReceive(cursorOut);
        if (term == Term.DDP_UNTAGGED_NO_BUFFER) {
            return null; // none posted: RNR NAK
        }
        if (term != 0) {
            lastTerm = term; // the receive failed its local checks (the port completed it), or the QP is failing
            return FAILED;
        }
        receiving = true;
        receiveEnded = false;
        return receive.set(cursorOut[0]);
    }

    @Override
    public void completed(long wrId, RcStatus status, int byteLength, boolean invalidated, int invalidatedRkey) {
        if (receiveEnded) {
            receiveEnded = false;
            return;
        }
        if (!receiving) {
            return;
        }
        receiving = false;
        receive.set(null);
        switch (status) {
            case SUCCESS -> port.endReceive(byteLength, responder.solicitedEvent(), false, 0);
            case LOCAL_LENGTH_ERROR -> {
                lastTerm = Term.DDP_UNTAGGED_TOO_LONG;
                port.failReceive(NtStatus.STATUS_BUFFER_OVERFLOW, Term.DDP_UNTAGGED_TOO_LONG);
            }
            default -> port.failReceive(NtStatus.STATUS_CANCELLED, 0);
        }
    }

    // ---- failure and the end ------------------------------------------------------------------

    /** The connection failed here: the port hears it once; queued responses (a NAK) still go out; then DREQ. */
    void fail(int status, int term, boolean sent, int reason) {
        if (ended) {
            return;
        }
        ended = true;
        try {
            QpPort qp = port;
            if (qp != null) {
                qp.failed(status, term, sent, reason);
            }
            stopData();
            if (responder != null) {
                responder.poll(this, 64);
            }
            resetCm();
        } finally {
            end(false); // whatever failed on the way: the QP's memory is released and its close can end
        }
    }

    /** The peer's DREQ (or REJ on an established connection). */
    void peerEnded(boolean graceful) {
        if (ended) {
            end(true);
            return;
        }
        ended = true;
        QpPort qp = port;
        if (qp != null && running) {
            if (graceful) {
                qp.peerClosed();
            } else {
                qp.failed(NtStatus.STATUS_CONNECTION_RESET, 0, false, DisconnectReason.CONNECTION_RESET);
            }
        }
        stopData();
        end(true);
    }

    void established() {
        established = true;
    }

    private void stopData() {
        if (requester != null) {
            requester.flush();
            responder.flush();
        }
    }

    private void disconnectCm() {
        if (cm != null) {
            cm.disconnect(null);
        }
    }

    /** An abortive end: the peer's QP fails and flushes (a REJ on the established connection). */
    private void resetCm() {
        if (cm != null) {
            cm.reset();
        }
    }

    /**
     * Nothing of the QP's memory is touched from now on: the release actions run. {@code keep} leaves the QPN in
     * the device's table until the CM's time wait ends (stray packets are dropped there).
     */
    void end(boolean keep) {
        ended = true;
        if (reads != null) {
            for (ReadGrant g : reads) {
                g.valid = false;
                g.source.set(null);
            }
        }
        writeCursor = null;
        receive.set(null);
        if (!released) {
            released = true;
            counters.retire();
            for (Runnable r : releaseActions) {
                r.run();
            }
            releaseActions.clear();
        }
        if (!keep) {
            device.forget(this);
        }
    }

    @Override
    public String toString() {
        return (active ? "active" : "passive") + " QP 0x" + Integer.toHexString(qpn) + " " + local + " -> " + remote;
    }
}
