package io.jndk.provider;

import io.jndk.api.NdkCounter;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NtStatus;

/**
 * A QP's initiator queue (siw's SQ with {@code sq_get}/{@code sq_put}): a ring of preallocated {@link WorkRequest}
 * slots and the rules that govern them.
 *
 * <ul>
 *   <li><b>Posting.</b> {@link #tail()} is the slot a post fills; {@link #commit} publishes it. A request posted with
 *       {@code DEFER} waits until a later post without it (or an inline failure, {@link #releaseOnFailure}) releases
 *       every deferred request (NDKPI §7.9); {@link #takeKick()} tells the poster to kick the transport once the QP
 *       lock is released.</li>
 *   <li><b>Taking.</b> The transport takes released requests in posting order ({@link #peekNext()},
 *       {@link #start}); a request is then {@link WorkRequest.State#STARTED}.</li>
 *   <li><b>Completing.</b> Requests complete in posting order: {@link #finish} records an outcome, and every
 *       finished request at the head completes, so a Write handed to TCP after a Read still waiting for its
 *       response completes after that Read.</li>
 *   <li><b>Requests after an error are flushed</b> (NDKPI §7.12): once a request has completed with an error,
 *       every later one completes {@code STATUS_CANCELLED}, including one the transport had already finished with
 *       success while it waited behind the failed one (a Send handed to TCP behind a Read the peer refused: the peer
 *       discards it after its Terminate). A later request that failed itself keeps its own error (it caused one).</li>
 *   <li><b>Flushing.</b> {@link #flush()} completes everything left with {@code STATUS_CANCELLED}: the head of the
 *       queue never finished (finished heads complete at once), and nothing behind an unfinished request may report
 *       success. Only a request that failed keeps its error.</li>
 * </ul>
 *
 * <p>Guarded by the QP's {@link SoftQp#lock}: every method must be called with it held.
 */
final class SendQueue {
    private final SoftQp qp;
    private final Ring ring;
    /** Requests posted and not yet taken by the transport. */
    private int unstarted;
    /** The newest of them that were posted deferred and not yet released by a non-deferred post. */
    private int deferred;
    /** The transport must be kicked once the QP lock is released. */
    private boolean kickOwed;
    /** A request completed with an error: every later success completes cancelled until the queue is flushed. */
    private boolean failed;

    SendQueue(SoftQp qp, int depth, int maxSge, int inlineSize) {
        this.qp = qp;
        this.ring = new Ring(depth, maxSge, inlineSize);
    }

    private boolean locked() {
        return Thread.holdsLock(qp.lock);
    }

    // ---- posting ------------------------------------------------------------------------------

    boolean full() {
        assert locked();
        return ring.full();
    }

    /** The slot the next {@link #commit} publishes. */
    WorkRequest tail() {
        assert locked();
        return ring.tail();
    }

    /** Publishes the tail slot; unless {@code flags} defer it, releases everything queued to the transport. */
    void commit(int flags) {
        assert locked();
        WorkRequest w = ring.tail();
        w.state = WorkRequest.State.QUEUED;
        ring.commit();
        unstarted++;
        qp.adapter.count(NdkCounter.WORK_REQUESTS);
        if ((flags & NdkOpFlags.DEFER) != 0) {
            deferred++;
        } else {
            release();
        }
    }

    /** An inline failure of a post: every earlier deferred request goes to the transport first (NDK deferral rule). */
    void releaseOnFailure() {
        assert locked();
        if (unstarted > 0) {
            release();
        }
    }

    private void release() {
        deferred = 0;
        kickOwed = true;
    }

    /** Whether the poster owes the transport a kick (cleared by the call). */
    boolean takeKick() {
        assert locked();
        boolean k = kickOwed;
        kickOwed = false;
        return k;
    }

    /** Requests the transport may take now (deferred ones wait for a release). */
    int released() {
        assert locked();
        return unstarted - deferred;
    }

    // ---- taking -------------------------------------------------------------------------------

    /** The oldest request not yet taken, or null when none is released. */
    WorkRequest peekNext() {
        assert locked();
        return released() > 0 ? ring.peek(ring.size() - unstarted) : null;
    }

    /** Marks {@link #peekNext()}'s request taken by the transport. */
    void start(WorkRequest w) {
        assert locked() && w == peekNext();
        unstarted--;
        w.state = WorkRequest.State.STARTED;
    }

    /** Whether {@code w} is taken and not finished (a late report of a flushed request is ignored). */
    boolean isStarted(WorkRequest w) {
        assert locked();
        return w.state == WorkRequest.State.STARTED;
    }

    // ---- completing ---------------------------------------------------------------------------

    /** Records {@code w}'s outcome and completes every finished request at the head, in posting order. */
    void finish(WorkRequest w, int status, int bytes, int providerError) {
        assert locked() && w.state == WorkRequest.State.STARTED;
        w.state = WorkRequest.State.FINISHED;
        w.finishedStatus = status;
        w.finishedBytes = bytes;
        w.finishedProviderError = providerError;
        int taken = ring.size() - unstarted;
        while (taken > 0) {
            WorkRequest h = ring.peek(0);
            if (h.state != WorkRequest.State.FINISHED) {
                break;
            }
            ring.poll();
            taken--;
            if (!complete(h)) {
                qp.adapter.count(NdkCounter.FLUSHED_REQUESTS);
            }
            h.free();
        }
    }

    /**
     * Completes a finished request with its outcome, or cancelled when an earlier request failed and it succeeded.
     *
     * @return false when it was cancelled
     */
    private boolean complete(WorkRequest h) {
        int status = h.finishedStatus;
        if (status == NtStatus.STATUS_SUCCESS && failed) {
            qp.completeInitiator(h, NtStatus.STATUS_CANCELLED, 0, 0);
            return false;
        }
        failed |= status != NtStatus.STATUS_SUCCESS;
        qp.completeInitiator(h, status, h.finishedBytes, h.finishedProviderError);
        return true;
    }

    /** The connection failed: the oldest request on the wire finishes with {@code status} (it caused, or met, the error). */
    void failOldestStarted(int status, int providerError) {
        assert locked();
        int taken = ring.size() - unstarted;
        for (int i = 0; i < taken; i++) {
            WorkRequest w = ring.peek(i);
            if (w.state == WorkRequest.State.STARTED) {
                finish(w, status, 0, providerError);
                return;
            }
        }
    }

    /**
     * Completes every request left with {@code STATUS_CANCELLED}, one the transport finished with success included (it
     * waits behind an unfinished request, which is cancelled); one that failed keeps its error.
     *
     * @return how many were cancelled
     */
    int flush() {
        assert locked();
        int cancelled = 0;
        WorkRequest w;
        while ((w = ring.poll()) != null) {
            if (w.op != null) {
                if (w.state == WorkRequest.State.FINISHED && w.finishedStatus != NtStatus.STATUS_SUCCESS) {
                    qp.completeInitiator(w, w.finishedStatus, w.finishedBytes, w.finishedProviderError);
                } else {
                    qp.completeInitiator(w, NtStatus.STATUS_CANCELLED, 0, 0);
                    cancelled++;
                }
            }
            w.free();
        }
        unstarted = 0;
        deferred = 0;
        failed = false;
        return cancelled;
    }

    /**
     * Requests in the queue, read without the QP lock by a thread that does not hold it: a hint, possibly stale
     * ({@link SoftQpPort#postedAlone}).
     */
    int sizeHint() {
        return ring.size();
    }

    /** Requests in the queue (posted and not completed). */
    int size() {
        assert locked();
        return ring.size();
    }
}
