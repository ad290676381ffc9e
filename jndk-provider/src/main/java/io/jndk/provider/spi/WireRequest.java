package io.jndk.provider.spi;

/**
 * One initiator request handed to the transport by {@link QpPort#nextRequest}: a mutable, reusable holder.
 * The provider keeps the request's queue slot until it is reported back.
 */
public final class WireRequest {
    /** Request kinds that go on the wire. */
    public static final int WRITE = 1, READ = 2, SEND = 3;

    /** {@link #WRITE}, {@link #READ} or {@link #SEND}. */
    public int kind;
    /** Bytes to move. */
    public long length;
    /** Remote tagged offset and token (write target or read source). */
    public long remoteAddress;
    public int remoteToken;
    /** Send: solicited event. */
    public boolean solicited;
    /** Send: invalidate {@link #invalidateToken} at the peer. */
    public boolean invalidate;
    public int invalidateToken;
    /** Local source (write, send) or sink (read), already checked. */
    public BufferCursor local;
    /** Provider handle of the queue slot; pass back unchanged. */
    public Object handle;

    /** An empty holder. */
    public WireRequest() {}
}
