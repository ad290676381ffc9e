package io.jndk.roce.rc;

/**
 * Where a {@link Responder} takes receive buffers when its owner keeps the receive queue itself (the provider's
 * receive queue or shared receive queue): asked once for each inbound SEND, at its first packet, in PSN order.
 */
@FunctionalInterface
public interface ReceiveSource {

    /**
     * What {@link #take} returns when the next receive exists but cannot take the message (its buffer failed the
     * owner's local checks, and the owner completed it in error): the responder answers NAK remote operational error
     * and goes to {@link RcState#ERROR}.
     */
    LocalBuffer FAILED = LocalBuffer.wrap(java.nio.ByteBuffer.allocate(0));

    /**
     * @return the buffer of the next posted receive, now taken for this SEND, or {@code null} when none is posted
     *     (the responder answers RNR NAK and asks again when the requester resends), or {@link #FAILED}
     */
    LocalBuffer take();
}
