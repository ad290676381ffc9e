package io.jndk.iwarp.transport;

import io.jndk.provider.spi.BufferCursor;
import io.jndk.provider.spi.QpPort;
import io.jndk.provider.spi.WireRequest;

/**
 * The two RDMA Read rings of a connection, preallocated when it starts (siw's {@code orq}/{@code irq} with
 * {@code orq_get_current}, {@code orq_get_free}, {@code irq_alloc_free}). Positions count up for ever; a slot is
 * {@code position % capacity}. Each position has one writer, which publishes it (a volatile store) after the slot
 * is filled, so the other side reads a complete slot.
 *
 * <p><b>ORQ</b> (outbound reads, up to the ORD): the transmit side pushes a Read when it sends its Request
 * ({@link #orqPush}, before the write: the response may arrive before {@code write()} returns); the receive side
 * places the responses into the head read's sink ({@link #orqHead}), completes it where its last octet lands and
 * then frees its place ({@link #orqRelease}). A transmit side that waits for a free place, or for outstanding reads
 * before a fenced request, says so ({@link #txWaitsForRead}) and the receive side wakes it.
 *
 * <p><b>IRQ</b> (inbound reads, up to the IRD): the receive side fills the tail slot from a Read Request's header
 * ({@link #irqReserve}) and publishes it when the frame ends ({@link #irqPush}); the transmit side sends the
 * responses in order ({@link #irqPeek}) and frees each place just before the response's last segment is queued
 * ({@link #irqRelease}): the requester may issue its next read as soon as that segment arrives. Its source cursor
 * stays in use until the batch holding it is written, which is why the provider keeps
 * {@link QpPort#READ_RESPONSE_BATCH} more source cursors than the IRQ holds, and why a batch holds at most that many
 * Read Responses.
 */
final class ReadQueues {
    /** The deepest ring (ORD or IRD) a connection preallocates, whatever the QP allows. */
    private static final int MAX_DEPTH = 128;

    /** One queued inbound RDMA Read: where its response goes, and the checked source it is read from. */
    static final class InboundRead {
        int sinkStag;
        long sinkTo;
        long length;
        BufferCursor source;
    }

    private final QpPort qp;

    // ---- ORQ: the transmit side writes orqTail; the receive side completes (readDone) and writes orqHead ----
    private final WireRequest[] orq;
    private volatile long orqTail;
    private volatile long orqHead;
    /** Set by the transmit side while its next request waits for a read to complete (ORD reached, or fenced). */
    private volatile boolean txWaitsForRead;

    // ---- IRQ: the receive side writes irqTail; the transmit side sends from and writes irqHead --------------
    private final InboundRead[] irq;
    private volatile long irqTail;
    private volatile long irqHead;

    /** Sizes both rings from the QP's negotiated limits (at least 1, at most {@link #MAX_DEPTH}). */
    ReadQueues(QpPort qp) {
        this.qp = qp;
        int ord = Math.max(1, Math.min(MAX_DEPTH, qp.outboundReadLimit()));
        orq = new WireRequest[ord];
        for (int i = 0; i < ord; i++) {
            orq[i] = new WireRequest();
        }
        int ird = Math.max(1, Math.min(MAX_DEPTH, qp.inboundReadLimit()));
        irq = new InboundRead[ird];
        for (int i = 0; i < ird; i++) {
            irq[i] = new InboundRead();
        }
    }

    // ---- ORQ, transmit side ----------------------------------------------------------------------------------

    /** @return reads sent and not yet completed (one read of the receive side's position) */
    int orqOutstanding() {
        return (int) (orqTail - orqHead);
    }

    /** @return whether {@code outstanding} reads (from {@link #orqOutstanding}) fill the ORQ: the ORD is reached */
    boolean orqFull(int outstanding) {
        return outstanding >= orq.length;
    }

    /**
     * Queues a Read whose Request is about to be sent: copies {@code r} into the tail slot and publishes it.
     *
     * @return the slot (its fields are the Request's)
     */
    WireRequest orqPush(WireRequest r) {
        WireRequest slot = orq[(int) (orqTail % orq.length)];
        slot.kind = r.kind;
        slot.length = r.length;
        slot.remoteAddress = r.remoteAddress;
        slot.remoteToken = r.remoteToken;
        slot.local = r.local;
        slot.handle = r.handle;
        slot.solicited = false;
        slot.invalidate = false;
        slot.invalidateToken = 0;
        orqTail = orqTail + 1;
        return slot;
    }

    /** The transmit side's next request waits ({@code true}) or no longer waits for a read to complete. */
    void txWaitsForRead(boolean waits) {
        txWaitsForRead = waits;
    }

    // ---- ORQ, receive side -----------------------------------------------------------------------------------

    /** @return whether no read is outstanding (a Read Response now is unexpected) */
    boolean orqEmpty() {
        return orqHead == orqTail;
    }

    /** @return the oldest outstanding read, the one Read Responses answer (the ORQ must not be empty) */
    WireRequest orqHead() {
        return orq[(int) (orqHead % orq.length)];
    }

    /** The head read completed: its slot forgets the memory and is free again. */
    void orqRelease() {
        WireRequest head = orqHead();
        head.local = null;
        head.handle = null;
        orqHead = orqHead + 1;
    }

    /** @return whether the transmit side waits for a read to complete (and must be woken when one does) */
    boolean txWaitsForRead() {
        return txWaitsForRead;
    }

    // ---- IRQ, receive side -----------------------------------------------------------------------------------

    /** @return whether the IRQ holds as many reads as it can, or as the QP's IRD allows */
    boolean irqFull() {
        long queued = irqTail - irqHead;
        return queued >= irq.length || queued >= qp.inboundReadLimit();
    }

    /** @return the tail slot, to fill from a Read Request's header; it is queued by {@link #irqPush} */
    InboundRead irqReserve() {
        return irq[(int) (irqTail % irq.length)];
    }

    /** The reserved slot's Read Request ended: it is queued for the transmit side. */
    void irqPush() {
        irqTail = irqTail + 1;
    }

    // ---- IRQ, transmit side ----------------------------------------------------------------------------------

    /** @return whether no inbound read waits for its response */
    boolean irqEmpty() {
        return irqHead == irqTail;
    }

    /** @return the oldest inbound read (the IRQ must not be empty) */
    InboundRead irqPeek() {
        return irq[(int) (irqHead % irq.length)];
    }

    /** The oldest inbound read's response is queued up to its last segment: its place is free again. */
    void irqRelease() {
        irqHead = irqHead + 1;
    }
}
